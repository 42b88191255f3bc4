package repl

import (
	"bufio"
	"io"
	"os"
	"sync"
	"time"

	"github.com/chzyer/readline"
)

// bufferOutput gathers what a script writes to its standard output,
// when that is not a terminal (a file, a pipe, /dev/null), into writes
// of 64 KiB: a generated million-line script made a million write
// system calls, one per step's report. What is gathered goes out within
// a tenth of a second (a pipe into tee still shows a slow step's
// report), before anything written to the error stream (2>&1 keeps
// the order of the two), and at the end, when restore puts back the
// writers.
func (r *Runner) bufferOutput() (restore func()) {
	f, ok := r.Out.(*os.File)
	if !ok || readline.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	out, errOut := r.Out, r.Err
	b := &batched{w: bufio.NewWriterSize(f, 64<<10)}
	r.Out, r.Err = b, flushFirst{b, errOut}
	return func() {
		b.flush()
		b.mu.Lock()
		if b.timer != nil {
			b.timer.Stop()
		}
		b.mu.Unlock()
		r.Out, r.Err = out, errOut
	}
}

// batched is a buffered writer that a timer flushes a while after its
// first unwritten byte.
type batched struct {
	mu    sync.Mutex
	w     *bufio.Writer
	timer *time.Timer
}

// flushAfter is how long written bytes may wait in a batched writer.
const flushAfter = 100 * time.Millisecond

func (b *batched) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w.Buffered() == 0 {
		if b.timer == nil {
			b.timer = time.AfterFunc(flushAfter, b.flush)
		} else {
			b.timer.Reset(flushAfter)
		}
	}
	return b.w.Write(p)
}

// flush writes out what b holds (a write error stays with the writer,
// as bufio keeps it).
func (b *batched) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.w.Flush() //nolint:errcheck // as every report line's write
}

// flushFirst is the error stream beside a batched standard output: the
// output gathered so far goes out before each write to it.
type flushFirst struct {
	out *batched
	w   io.Writer
}

func (f flushFirst) Write(p []byte) (int, error) {
	f.out.flush()
	return f.w.Write(p)
}
