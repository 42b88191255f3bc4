package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chzyer/readline"
)

// progress draws a progress bar on a terminal for a replay that has run
// longer than a second, and clears it at the end.
type progress struct {
	w     io.Writer
	name  string
	start time.Time
	shown bool
}

// newProgress returns a progress bar on stderr, or nil when stderr is not
// a terminal or quiet is set.
func newProgress(stderr io.Writer, quiet bool) *progress {
	f, ok := stderr.(*os.File)
	if quiet || !ok || !readline.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: stderr}
}

// hook is the replay's progress function for one file; nil without a bar.
func (p *progress) hook(name string) func(done, total int) {
	if p == nil {
		return nil
	}
	p.name, p.start, p.shown = name, time.Now(), false
	return p.update
}

func (p *progress) update(done, total int) {
	if time.Since(p.start) < time.Second || total == 0 {
		return
	}
	const width = 30
	n := done * width / total
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < n {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r%s [%s] %d/%d ops", p.name, bar, done, total)
	p.shown = true
}

// done clears the bar.
func (p *progress) done() {
	if p != nil && p.shown {
		fmt.Fprintf(p.w, "\r\033[K")
		p.shown = false
	}
}
