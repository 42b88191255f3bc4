package command

import (
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// TestOpHelpReadsTheTable: help torch has one line per op of the table,
// its signature then its memory rule; help OP names every name it
// answers to; help of an unknown word still says so.
func TestOpHelpReadsTheTable(t *testing.T) {
	all := Help("torch")
	ops := engine.OpList()
	at := 0
	for _, d := range ops {
		line := strings.Index(all[at:], "  "+d.Signature())
		if line < 0 || !strings.Contains(all[at+line:], d.Memory+"\n") {
			t.Errorf("help torch has no line for %s (%s: %s) after the one before it", d.Name, d.Signature(), d.Memory)
			continue
		}
		at += line
	}
	if got := strings.Count(all, "\n"); got != len(ops)+1 {
		t.Errorf("help torch has %d lines, want a heading and %d ops", got, len(ops))
	}
	add := Help("add")
	for _, want := range []string{"torch.add(input, other, *, alpha=1)\n", "Tensor.add_", "__radd__", "__iadd__", "memory: "} {
		if !strings.Contains(add, want) {
			t.Errorf("help add lacks %q:\n%s", want, add)
		}
	}
	if Help("Tensor.unsqueeze") != Help("unsqueeze") {
		t.Error("help Tensor.unsqueeze is not help unsqueeze")
	}
	if got := Help("frobnicate"); !strings.HasPrefix(got, "help: no command") {
		t.Errorf("help frobnicate = %q", got)
	}
}
