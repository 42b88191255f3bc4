package repl

import (
	"os"
	"slices"
	"testing"
)

// candidates are the completions of text (the cursor at its end), whole.
func candidates(c *completer, text string) []string {
	line := []rune(text)
	sufs, n := c.Do(line, len(line))
	var out []string
	for _, s := range sufs {
		out = append(out, string(line[len(line)-n:])+string(s))
	}
	return out
}

// Tab completes what the cursor is in: a tensor's methods, a module's
// attributes, names in scope, file names after a file command or in a
// string; private names only when asked.
func TestCompleteInContext(t *testing.T) {
	r, py, _ := newTestPrompt(t)
	r.pyInput(py, "x = torch.zeros(3, device='cuda')")
	r.pyInput(py, "import torch.nn as nn")
	r.pyInput(py, "model_a = nn.Linear(2, 3)")
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{"trace.pickle", "train.py", ".hidden"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir("traces", 0o755); err != nil {
		t.Fatal(err)
	}
	c := &completer{py: py}
	for _, tc := range []struct {
		text     string
		want     []string
		unwanted []string
	}{
		{"x.su", []string{"sum("}, nil},
		{"y = x.", []string{"cuda(", "view(", "shape"}, []string{"__add__("}},
		{"x.__ad", []string{"__add__("}, nil},
		{"torch.cuda.empty_c", []string{"empty_cache("}, nil},
		{"torch.cuda.", []string{"memory_allocated(", "empty_cache("}, []string{"zeros("}},
		{"nn.Lin", []string{"Linear("}, nil},
		{"model_a.", []string{"weight", "bias", "parameters("}, nil},
		{"model_a.weight.", []string{"grad", "sum("}, nil},
		{"mod", []string{"model_a"}, nil},
		{"zer", []string{"zeros"}, nil},
		{"load tr", []string{"trace.pickle", "traces/", "train.py"}, nil},
		{"load ", []string{"trace.pickle"}, []string{".hidden"}},
		{"plot traces/", nil, []string{"trace.pickle"}},
		{"snapshot save t", []string{"trace.pickle"}, nil},
		{"torch.cuda.memory._dump_snapshot('tra", []string{"trace.pickle"}, nil},
		{"nosuch.", nil, []string{"sum("}},
		{"help py", []string{"python"}, nil},
	} {
		got := candidates(c, tc.text)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %q not offered (%q)", tc.text, w, got)
			}
		}
		for _, w := range tc.unwanted {
			if slices.Contains(got, w) {
				t.Errorf("%q: %q offered", tc.text, w)
			}
		}
	}
	c.busy.Store(true)
	if got := candidates(c, "x.su"); len(got) != 0 {
		t.Errorf("completion read the namespace while a statement ran: %q", got)
	}
}
