package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/chzyer/readline"

	"github.com/gpumemrepl/gpumemrepl/repl/command"
)

// Interactive runs the prompt on a terminal: readline with history in
// ~/.gpumemrepl_history and tab completion; Ctrl-C drops the line being
// typed or interrupts the running command, Ctrl-D (or exit) quits.
// Errors are shown with a caret under their column and change nothing.
// Where the output is the terminal, the step report, map and help fit
// its width; redirected, its lines stay whole.
func (r *Runner) Interactive() int {
	r.File = ""
	defer r.fitTerminal()()
	home, _ := os.UserHomeDir()
	c := &completer{}
	// Raw mode is on only inside Readline, where Ctrl-C is a key that
	// drops the line. Outside it Ctrl-C is a real SIGINT: it interrupts
	// the command at its next chunk of work, and the command fails as
	// KeyboardInterrupt, changing nothing. A pending interrupt is
	// forgotten as raw mode begins, so that one from the last command
	// does not stop the next; one that comes once the line is read (raw
	// mode has ended, even before Readline returns) is the line's.
	raw := new(readline.RawMode)
	rl, err := readline.NewEx(&readline.Config{
		FuncMakeRaw: func() error {
			err := raw.Enter()
			r.Session.ClearInterrupt()
			return err
		},
		FuncExitRaw:       raw.Exit,
		Prompt:            "gpumem> ",
		HistoryFile:       filepath.Join(home, ".gpumemrepl_history"),
		AutoComplete:      c,
		InterruptPrompt:   "^C",
		EOFPrompt:         "exit",
		HistorySearchFold: true,
		// a whole block is one history entry, saved when it completes
		DisableAutoSaveHistory: true,
	})
	if err != nil {
		fmt.Fprintf(r.Err, "gpumemrepl: %v\n", err)
		return 1
	}
	defer rl.Close()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer func() {
		signal.Stop(sigs)
		close(sigs)
	}()
	go func() {
		for range sigs {
			r.Session.Interrupt()
		}
	}()
	where := "a simulated GPU"
	if !r.Session.Simulated() {
		where = "this machine's GPU"
	}
	banner := fmt.Sprintf("gpumemrepl: PyTorch's CUDA caching allocator on %s. Type Python (torch is imported) or the short commands; help lists them; Ctrl-D quits.\n", where)
	io.WriteString(r.Out, command.Wrap(banner, widthOf(r.Out), "", ""))
	py := r.newPyPrompt()
	c.py = py
	prompt := func(more bool) {
		rl.SetPrompt(map[bool]string{true: "...     ", false: "gpumem> "}[more])
	}
	var block []string // the lines of the statement being typed, for history
	for {
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			if len(py.buf) > 0 { // Ctrl-C abandons the block being typed
				py.buf, block = nil, nil
				prompt(false)
			}
			continue
		}
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err != nil {
			fmt.Fprintf(r.Err, "gpumemrepl: %v\n", err)
			return 1
		}
		if len(py.buf) == 0 {
			switch strings.TrimSpace(line) {
			case "exit", "quit", "exit()", "quit()":
				rl.SaveHistory(line) //nolint:errcheck // history is a convenience
				return 0
			case "":
				continue
			}
		}
		if strings.TrimSpace(line) != "" {
			block = append(block, line)
		}
		c.busy.Store(true)
		more := r.pyInput(py, line)
		c.busy.Store(false)
		if !more && len(block) > 0 {
			rl.SaveHistory(strings.Join(block, "\n")) //nolint:errcheck // history is a convenience
			block = nil
		}
		prompt(more)
	}
}

// screen is the prompt's output when it is the terminal: the step
// report, map and help fit its width, read at each write, so that they
// follow a resize.
type screen struct{ io.Writer }

// Width is the terminal's width in columns (stdout's, which screen is).
func (screen) Width() int { return readline.GetScreenWidth() }

// fitTerminal makes r's output fit the terminal when it is one (the
// step report, map and help wrap at its width); it returns what puts
// the output back.
func (r *Runner) fitTerminal() (restore func()) {
	f, ok := r.Out.(*os.File)
	if !ok || !readline.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	r.Out = screen{f}
	errOut := r.Err
	if e, ok := r.Err.(*os.File); ok && readline.IsTerminal(int(e.Fd())) {
		r.Err = screen{e}
	}
	return func() { r.Out, r.Err = f, errOut }
}

// fitLines is text of whole lines fitted to the width of w, each line
// that breaks continuing indented: an error, a table, as they reach the
// terminal (unchanged where w has no width).
func fitLines(text string, w io.Writer) string {
	width := widthOf(w)
	if width == 0 {
		return text
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" {
			b.WriteString(command.Wrap(l, width, "", "    "))
		}
	}
	return b.String()
}

// fitted is output that goes where a width applies (a step's printed
// text, shown on the terminal after the step).
type fitted struct {
	io.Writer
	width int
}

// Width is the width the text must fit.
func (s fitted) Width() int { return s.width }

// widthOf is the width output to w must fit: the terminal's, or 0 (no
// limit) for a pipe or a file, where lines stay whole for scripts.
func widthOf(w io.Writer) int {
	if s, ok := w.(interface{ Width() int }); ok {
		return max(s.Width(), 0)
	}
	return 0
}
