package main

import (
	"fmt"
	"io"

	"github.com/gpumemrepl/gpumemrepl/repl"
)

// newProgress is a progress line on stderr, or nil when stderr is not a
// terminal or quiet is set.
func newProgress(stderr io.Writer, quiet bool) *repl.Progress { return repl.NewProgress(stderr, quiet) }

// replayHook is the replay's progress function for one file: a bar of
// the ops done; nil without a progress line.
func replayHook(p *repl.Progress, name string) func(done, total int) {
	if p == nil {
		return nil
	}
	p.Begin(name)
	return func(done, total int) {
		if total > 0 {
			p.Show(barText(done, total))
		}
	}
}

// barText is a bar of done ops out of total, and the counts.
func barText(done, total int) string {
	const width = 30
	n := done * width / total
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < n {
			bar[i] = '#'
		}
	}
	return fmt.Sprintf("[%s] %d/%d ops", bar, done, total)
}
