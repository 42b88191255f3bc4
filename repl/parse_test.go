package repl

import (
	"reflect"
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
		"b = a.to(torch.device('cuda', 1))", "b = a.to(torch.device('cpu'))",
		"torch.cuda.memory_allocated()", "torch.cuda.max_memory_reserved(1)", "torch.cuda.memory_reserved(device=1)",
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
		"m = torch.nn.Linear(1000, 4000, bias=False).cuda()",
		"m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.GELU(), nn.Linear(8, 4)).to('cuda')",
		"m = Sequential(Linear(in_features=4, out_features=8), ReLU())",
		"y = m(x)", "y = m(x) @ w + b * 2", "z = (a + b).sum()", "loss = y.square().mean()",
		"y = F.gelu(m(x))", "y = torch.nn.functional.relu(x)", "y = torch.matmul(a, b)",
		"loss.backward()", "y.sum().backward()", "(a * b).mean().backward()",
		"m.zero_grad(set_to_none=True)", "opt.zero_grad()", "opt.step()", "x.requires_grad_()",
		"opt = torch.optim.AdamW(model.parameters(), lr=1e-3)", "opt = SGD(m.parameters(), lr=0.1, momentum=0.9)",
		"with torch.no_grad():", "with torch.no_grad(): y = m(x)", "torch.set_grad_enabled(False)",
		"total = 0", "total = total + loss", "v = loss.item()", "d = x.detach()",
		"x = torch.randn(2, 3, device='cuda', requires_grad=True)",
		"load trace.pickle until 10 as run", "snapshot save /tmp/s.pickle 0",
	} {
		if _, err := Parse(line, 1, 0); err != nil {
			t.Errorf("Parse(%q): %v", line, err)
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
		{"m = torch.nn.Conv2d(3, 8, 3)", 14, "not supported"},
		{"m = torch.nn.Linear(10)", 14, "Linear needs in_features and out_features"},
		{"y = (a + b", 11, "expected \")\""},
		{"with torch.enable_autocast():", 12, "not supported"},
		{"opt = torch.optim.AdamW(m.params())", 27, "expected \"parameters\""},
		{"y = a.sum(1)", 11, "expected \")\""},
		{"y = 3(x)", 6, "only a module can be called"},
		{"b = a.to(torch.devic('cpu'))", 16, "expected torch.device(...)"},
		{"b = a.to(torch.device('tpu'))", 10, "expected a device"},
		{"torch.cuda.memory_allocated(0, 1)", 32, "takes at most a device"},
	} {
		_, err := Parse(tc.line, 3, 0)
		e, ok := err.(*Error)
		if !ok || e.Pos.Col != tc.col || e.Pos.Line != 3 || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("Parse(%q) = %v, want 3:%d: ...%s...", tc.line, err, tc.col, tc.msg)
		}
	}
}

// After set_device, cuda and the commands without a device mean the
// current one; a device named stays as named.
func TestParseCurrentDevice(t *testing.T) {
	for _, tc := range []struct {
		line string
		want any
	}{
		{"a = zeros 10 cuda", &engine.Assign{}},
		{"memory_summary", &engine.MemorySummary{Device: 2}},
		{"torch.cuda.memory_allocated()", &engine.MemoryStats{Device: 2, Key: "allocated_bytes.all.current"}},
		{"torch.cuda.set_device(1)", &engine.SetDevice{Device: 1}},
		{"set_device 3", &engine.SetDevice{Device: 3}}, {"torch.cuda.set_device('cuda:3')", &engine.SetDevice{Device: 3}},
	} {
		c, err := Parse(tc.line, 1, 2)
		if err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		if a, ok := c.(*engine.Assign); ok {
			if d := a.X.(*engine.Create).Device; d != (engine.Device{CUDA: true, Index: 2}) {
				t.Errorf("%q: device %v, want cuda:2", tc.line, d)
			}
			continue
		}
		if !reflect.DeepEqual(c, tc.want) {
			t.Errorf("%q: %#v, want %#v", tc.line, c, tc.want)
		}
	}
	for _, line := range []string{"y = x.cuda()", "y = x.to('cuda')"} {
		c, _ := Parse(line, 1, 2)
		if d := c.(*engine.Assign).X.(*engine.To).Device; d != (engine.Device{CUDA: true, Index: 2}) {
			t.Errorf("%q: %v, want cuda:2", line, d)
		}
	}
	if c, _ := Parse("y = x.to('cuda:0')", 1, 2); c.(*engine.Assign).X.(*engine.To).Device.Index != 0 {
		t.Error("cuda:0 named is not cuda:0")
	}
}

func TestParseShapes(t *testing.T) {
	c, err := Parse("a = torch.zeros([256,1024,1024], dtype=torch.float16, device='cuda:2')", 1, 0)
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
	for _, s := range []string{"a = zeros 256x1024 cuda", "b = b.to('cpu')", "del a, b", "torch.cuda.empty_cache()", "a = torch.full((2,3), 1, device='cuda:0')", "x.cuda(", "alloc_conf max_split_size_mb:40",
		"y.sum().backward()", "z = m(x) @ w", "with torch.no_grad(): y = m(x)", "opt.step()", "m.zero_grad()", "q = (y * 2 + x.sum()).mean()", "m = m.cpu()"} {
		f.Add(s)
	}
	prelude := []string{"keep = zeros 1000 cuda", "m = Linear(4, 8).cuda()", "x = torch.randn(2, 4, device='cuda', requires_grad=True)", "y = m(x)", "opt = AdamW(m.parameters())"}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "snapshot") || strings.Contains(line, "_dump_") {
			t.Skip("writes a file") // the save commands are tested with a temporary directory
		}
		s, err := engine.NewSession(engine.Options{FakeHost: true, TotalBytes: 1 << 30, Devices: 2})
		if err != nil {
			t.Fatal(err)
		}
		var sink strings.Builder
		r := &Runner{Session: s, Out: &sink, Err: &sink, File: "fuzz"}
		for i, l := range prelude {
			if err := r.Line(l, i+1); err != nil {
				t.Fatalf("prelude %q: %v", l, err)
			}
		}
		before := s.Measure()
		names := strings.Join(s.Names(), ",")
		err = r.Line(line, len(prelude)+1)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("line %q: %v", line, err)
		}
		if err != nil {
			if after := s.Measure(); strings.Join(s.Names(), ",") != names || after.Devices[0].Allocated != before.Devices[0].Allocated {
				t.Errorf("failing line %q changed the session", line)
			}
		}
	})
}

// Names that are also command words still bind.
func TestCommandWordsAsNames(t *testing.T) {
	for _, line := range []string{"load = zeros 3", "plot = zeros 3", "snapshot = zeros 3"} {
		c, err := Parse(line, 1, 0)
		if _, ok := c.(*engine.Assign); err != nil || !ok {
			t.Errorf("Parse(%q) = %#v, %v; want an assignment", line, c, err)
		}
	}
}

// `plot = ...` binds a name; it does not write a page.
func TestPlotAsName(t *testing.T) {
	s, err := engine.NewSession(engine.Options{FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := &Runner{Session: s, Out: &out, Err: &out}
	if err := r.Line("plot = zeros 3", 1); err != nil || strings.Contains(out.String(), "wrote") || len(s.Names()) != 1 {
		t.Errorf("err %v, names %v, output %q", err, s.Names(), out.String())
	}
}
