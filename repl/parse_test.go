package repl

import (
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

func TestParseValid(t *testing.T) {
	for _, line := range []string{
		"a = zeros 256x1024x1024 cuda",
		"a = zeros 10 float16 cuda:1",
		"a = full 2x3 7.5 int64 cpu",
		"b = b.to cpu",
		"b = b.to('cuda:0')",
		"b = b.to(device='cuda')",
		"e = e.cuda()",
		"e = e.cuda(1)",
		"x.cpu()",
		"y = x.clone()",
		"x = a",
		"del a, b",
		"del a b",
		"empty_cache",
		"torch.cuda.empty_cache()",
		"import torch",
		"a = torch.zeros([256,1024,1024], device= 'cuda')",
		"a = torch.zeros(2, 3, dtype=torch.bfloat16, device='cuda')",
		"a = torch.full((2, 3), 1.5, device='cuda')",
		"t = torch.tensor([1, 2, 3]).cuda()",
		"memory_summary", "memory_summary 1", "torch.cuda.memory_summary()",
		"memory_stats", "reset_peak_memory_stats", "torch.cuda.reset_peak_memory_stats(0)",
		"set_per_process_memory_fraction 0.5", "torch.cuda.set_per_process_memory_fraction(0.25, 0)",
		"alloc_conf max_split_size_mb:128", "vars", "#%%", "  # a comment", "",
	} {
		if _, err := ParseLine(line, 1); err != nil {
			t.Errorf("ParseLine(%q): %v", line, err)
		}
	}
}

func TestParseErrorsHavePositions(t *testing.T) {
	for _, tc := range []struct {
		line string
		col  int
		msg  string
	}{
		{"a = zeros 10xq cuda", 11, "expected a shape"},
		{"a = zeros 10 gpu", 14, "expected a device"},
		{"a = torch.zeros([1,2], device='tpu')", 31, "expected a device"},
		{"a = torch.ones([1,x])", 19, "expected a dimension"},
		{"b = b.too(cpu)", 7, "unknown method"},
		{"del", 4, "expected a name to delete"},
		{"a = 'cuda", 5, "unterminated string"},
		{"a = zeros 4 cuda )", 18, "unexpected text"},
		{"set_per_process_memory_fraction 1.5", 33, "Invalid fraction value"},
		{"a = torch.arange(10)", 11, "not supported"},
		{"a = $", 5, "unexpected character"},
	} {
		_, err := ParseLine(tc.line, 3)
		e, ok := err.(*Error)
		if !ok || e.Pos.Col != tc.col || e.Pos.Line != 3 || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("ParseLine(%q) = %v, want 3:%d: ...%s...", tc.line, err, tc.col, tc.msg)
		}
	}
}

func TestParseShapes(t *testing.T) {
	c, err := ParseLine("a = torch.zeros([256,1024,1024], dtype=torch.float16, device='cuda:2')", 1)
	if err != nil {
		t.Fatal(err)
	}
	cr := c.(*engine.Assign).X.(*engine.Create)
	if len(cr.Shape) != 3 || cr.Shape[1] != 1024 || cr.DType.Size != 2 || cr.Device != (engine.Device{CUDA: true, Index: 2}) {
		t.Errorf("got %+v", cr)
	}
}

// FuzzLine: no input makes the parser or the session panic, and a failing
// line changes nothing.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"a = zeros 256x1024 cuda", "b = b.to('cpu')", "del a, b", "torch.cuda.empty_cache()", "a = torch.full((2,3), 1, device='cuda:0')", "x.cuda(", "alloc_conf max_split_size_mb:40"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		s, err := engine.NewSession(engine.Options{FakeHost: true, TotalBytes: 1 << 30, Devices: 2})
		if err != nil {
			t.Fatal(err)
		}
		var sink strings.Builder
		r := &Runner{Session: s, Out: &sink, Err: &sink, File: "fuzz"}
		r.Line("keep = zeros 1000 cuda", 1)
		before := s.Measure()
		names := strings.Join(s.Names(), ",")
		if err := r.Line(line, 2); err != nil {
			if after := s.Measure(); strings.Join(s.Names(), ",") != names || after.Devices[0].Allocated != before.Devices[0].Allocated {
				t.Errorf("failing line %q changed the session", line)
			}
		}
	})
}
