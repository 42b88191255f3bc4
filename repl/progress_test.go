package repl

import (
	"strings"
	"testing"
	"time"
)

// TestProgressLine: nothing is drawn in a task's first second, then
// each Show redraws the line, and Done clears it.
func TestProgressLine(t *testing.T) {
	var b strings.Builder
	p := &Progress{w: &b}
	p.Begin("fit:")
	p.Show("run 1")
	if b.Len() != 0 {
		t.Errorf("a line within the first second: %q", b.String())
	}
	p.start = time.Now().Add(-2 * time.Second)
	p.Show("run 2")
	if got := b.String(); got != "\r\033[Kfit: run 2" {
		t.Errorf("line %q", got)
	}
	p.Done()
	if !strings.HasSuffix(b.String(), "run 2\r\033[K") {
		t.Errorf("not cleared: %q", b.String())
	}
	var nilP *Progress
	nilP.Begin("x")
	nilP.Show("y")
	nilP.Tick()
	nilP.Done()
}
