package repl

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/chzyer/readline"
)

// Progress is a line on a terminal that says what a long run is doing:
// drawn once its task has run a second, redrawn as it goes, cleared
// when it ends. It may be drawn from another goroutine than the run's.
type Progress struct {
	w     io.Writer
	mu    sync.Mutex
	name  string
	start time.Time
	shown bool
	// active is from Begin to Done: a Show after Done (the ticker's, as
	// it stops) draws nothing, or the line would stay after the task
	active bool
	// ticking is set once Tick started the ticker, which runs as long
	// as the process: a ticker for each task cost a million-line
	// script, one task a line, more than half its time.
	ticking bool
}

// NewProgress is a progress line on w, or nil when w is not a terminal
// or quiet is set (every method of a nil Progress does nothing).
func NewProgress(w io.Writer, quiet bool) *Progress {
	f, ok := w.(*os.File)
	if quiet || !ok || !readline.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &Progress{w: w}
}

// Begin starts a task named name: nothing is drawn for its first second.
func (p *Progress) Begin(name string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.name, p.start, p.active = name, time.Now(), true
	p.mu.Unlock()
}

// Show draws the line with text, once the task has run a second.
func (p *Progress) Show(text string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active || time.Since(p.start) < time.Second {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s %s", p.name, text)
	p.shown = true
}

// Tick shows, four times a second until Done, how long the task has
// run.
func (p *Progress) Tick() {
	if p == nil || p.ticking {
		return
	}
	p.ticking = true
	go func() {
		for range time.Tick(250 * time.Millisecond) {
			p.mu.Lock()
			start := p.start
			p.mu.Unlock()
			p.Show(fmt.Sprintf("running %.1f s", time.Since(start).Seconds()))
		}
	}()
}

// Done ends the task: the line is cleared, and the ticker draws nothing
// until the next Begin.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active = false
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
