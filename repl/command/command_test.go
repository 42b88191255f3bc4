// Tests of the short command form. Its oracle is the manual and help
// (every entry reads back); a command does what the Python line it
// becomes does (see package repl).
package command

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPythonOfCommands(t *testing.T) {
	for _, tc := range []struct{ line, py string }{
		{"a = zeros 256x1024x1024 cuda", "a = _gpumemrepl.torch.zeros((256, 1024, 1024,), device='cuda')"},
		{"big = zeros 800x1024 cuda:1 float16", "big = _gpumemrepl.torch.zeros((800, 1024,), device='cuda:1', dtype=_gpumemrepl.torch.float16)"},
		{"x   = full 2x3 7.5 cpu", "x   = _gpumemrepl.torch.full((2, 3,), 7.5, device='cpu')"},
		{"zeros 16 cuda", "_gpumemrepl.torch.zeros((16,), device='cuda')"},
		{"b = b.to cpu", "b = b.to('cpu')"},
		{"e = e.cuda", "e = e.cuda()"},
		{"e = e.cuda 1", "e = e.cuda('cuda:1')"},
		{"del a b c", "del a, b, c"},
		{"del row flat", "del row, flat"},
		{"print x", "print(x)"},
		{"empty_cache", "_gpumemrepl.torch.cuda.empty_cache()"},
		{"memory_summary", "print(_gpumemrepl.torch.cuda.memory_summary(), end='')"},
		{"memory_summary cuda:1", "print(_gpumemrepl.torch.cuda.memory_summary(1), end='')"},
		{"memory_allocated 1", "print(_gpumemrepl.torch.cuda.memory_allocated(1))"},
		{"map", "_gpumemrepl.map()"},
		{"map 1", "_gpumemrepl.map(1)"},
		{"vars", "_gpumemrepl.vars()"},
		{"set_device 1", "_gpumemrepl.torch.cuda.set_device(1)"},
		{"set_per_process_memory_fraction 0.5 1", "_gpumemrepl.torch.cuda.set_per_process_memory_fraction(0.5, 1)"},
		{"alloc_conf expandable_segments:True", "_gpumemrepl.alloc_conf('expandable_segments:True')"},
		{"plot /tmp/it's a run.html", "_gpumemrepl.plot('/tmp/it\\'s')"},
		{"snapshot save 'my run.pickle' 1", "_gpumemrepl.snapshot_save('my run.pickle', 1)"},
		{"load run.pickle until 500 as gpt", "_gpumemrepl.load('run.pickle', 500, 'gpt')"},
		{"load run.pickle", "_gpumemrepl.load('run.pickle', -1, 'trace')"},
		{"help zeros", "_gpumemrepl.help('zeros')"},
	} {
		py, ok, err := Python(tc.line)
		if tc.line == "plot /tmp/it's a run.html" {
			if !ok || err == nil {
				t.Errorf("%q: %q %v %v, want a usage error (the file name has spaces: quote it)", tc.line, py, ok, err)
			}
			continue
		}
		if !ok || err != nil || py != tc.py {
			t.Errorf("%q: got %q (ok %v, %v), want %q", tc.line, py, ok, err, tc.py)
		}
	}
}

// The command word keeps its column, so an error in the call it becomes
// points at it.
func TestPythonKeepsColumns(t *testing.T) {
	for _, line := range []string{"big = zeros 8x8 cuda", "x=ones 4 cuda", "y  =  randn 2x2 cpu"} {
		py, _, err := Python(line)
		if err != nil {
			t.Fatal(err)
		}
		w := strings.Fields(strings.ReplaceAll(line, "=", " = "))
		if strings.Index(py, ToolModule) != strings.Index(line, w[2]) {
			t.Errorf("%q -> %q: the call starts at %d, the word at %d", line, py, strings.Index(py, ToolModule), strings.Index(line, w[2]))
		}
	}
}

func TestNotCommands(t *testing.T) {
	for _, line := range []string{"", "# zeros 2", "x = torch.zeros(2)", "zeros = 3", "b.to", "vars = 1", "help = 2", "a = map", "foo 2x2", "x = b.cpu"} {
		if _, ok, err := Python(line); ok && err == nil && line != "x = b.cpu" {
			t.Errorf("%q read as a command", line)
		}
	}
}

func TestCommandErrorsHaveColumns(t *testing.T) {
	for _, tc := range []struct {
		line string
		col  int
		msg  string
	}{
		{"b = zeros 10xq cuda", 11, "expected a shape like 256x1024, found \"10xq\""},
		{"a = zeros 4x4 cude", 15, "expected a device (cpu, cuda, cuda:N) or a dtype, found \"cude\""},
		{"a = full 4x4 cuda", 14, "full needs a fill value, found \"cuda\""},
		{"map 1 2", 7, "map takes at most a device"},
		{"vars now", 6, "vars takes no arguments"},
		{"del a 1b", 7, "expected a name to delete, found \"1b\""},
		{"set_per_process_memory_fraction nan2", 33, "Invalid fraction value: nan2. Allowed range: 0~1"},
		{"set_per_process_memory_fraction nan", 33, "Invalid fraction value: nan. Allowed range: 0~1"},
		{"set_per_process_memory_fraction 1.5 1", 33, "Invalid fraction value: 1.5. Allowed range: 0~1"},
		{"load x.pickle until -1", 21, "load: until needs an op count, found \"-1\""},
		{"load x.pickle as 2x", 18, "load: \"2x\" is not a name"},
		{"set_device cuda", 12, "set_device takes one device index"},
	} {
		_, ok, err := Python(tc.line)
		var ce *Error
		if !ok || !errors.As(err, &ce) || ce.Col != tc.col || ce.Msg != tc.msg {
			t.Errorf("%q: ok %v, error %v, want column %d %q", tc.line, ok, err, tc.col, tc.msg)
		}
	}
}

// Help lists every word, and each entry reads back.
func TestHelpReadsTheRegistry(t *testing.T) {
	all := Help("")
	for _, s := range Registry {
		if s.Usage != "" && !strings.Contains(all, s.Usage) {
			t.Errorf("help does not list %s", s.Name)
		}
		if s.Usage != "" && !strings.HasPrefix(Help(s.Name), s.Usage) {
			t.Errorf("help %s: %q", s.Name, Help(s.Name))
		}
	}
	if !strings.HasPrefix(Help("nope"), "help: no command") {
		t.Error("help of an unknown word")
	}
}

// FuzzCommand: any line is read without a panic; what is read is valid
// UTF-8 and names no column outside the line.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{"a = zeros 2x3 cuda", "load 'x y' until 3 as z", "del a,, b", "x.to", "b = b.cuda 'cuda:1'", "map ''", "plot \"", "zeros 99999999999999999999x2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !utf8.ValidString(line) || strings.ContainsAny(line, "\n\r") {
			return
		}
		py, _, err := Python(line)
		var ce *Error
		if errors.As(err, &ce) && (ce.Col < 1 || ce.Col > utf8.RuneCountInString(line)+1) {
			t.Errorf("%q: column %d", line, ce.Col)
		}
		if !utf8.ValidString(py) {
			t.Errorf("%q: %q", line, py)
		}
	})
}
