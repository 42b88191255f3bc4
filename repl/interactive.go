package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/chzyer/readline"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// Interactive runs the prompt on a terminal: readline with history in
// ~/.gpumemrepl_history and tab completion; Ctrl-C drops the line being
// typed or interrupts the running command, Ctrl-D (or exit) quits.
// Errors are shown with a caret under their column and change nothing.
func (r *Runner) Interactive() int {
	r.File = ""
	home, _ := os.UserHomeDir()
	c := &completer{}
	rl, err := readline.NewEx(&readline.Config{
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
	// Raw mode is on only inside Readline, where Ctrl-C drops the line.
	// While a command runs, Ctrl-C is a real SIGINT: it interrupts the
	// command at its next chunk of work, and the command fails as
	// KeyboardInterrupt, changing nothing.
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
	fmt.Fprintf(r.Out, "gpumemrepl: PyTorch's CUDA caching allocator on %s. Type Python (torch is imported) or the short commands; help lists them; Ctrl-D quits.\n", where)
	py := r.newPyPrompt()
	c.names = func() []string { return pyNames(py) }
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
		more := r.pyInput(py, line)
		if !more && len(block) > 0 {
			rl.SaveHistory(strings.Join(block, "\n")) //nolint:errcheck // history is a convenience
			block = nil
		}
		prompt(more)
	}
}

// pyNames are the prompt's Python names, for completion.
func pyNames(p *pyPrompt) []string {
	var out []string
	p.fr.Globals().Items(func(k, _ eval.Value) bool {
		if s, ok := k.(string); ok && !strings.HasPrefix(s, "__") {
			out = append(out, s)
		}
		return true
	})
	return out
}

// completer completes command words, names, devices and dtypes.
type completer struct {
	names func() []string // the prompt's Python names
}

var completionWords = func() []string {
	w := append([]string{"del", "cpu", "cuda", "cuda:0", "torch.", ".to", ".cuda()", ".cpu()", ".clone()", "exit"}, command.Words()...)
	w = append(w, "ReLU", "GELU", "Sequential", "SGD", "Adam", "AdamW", "torch.no_grad():")
	for d := range engine.DTypes {
		w = append(w, d)
	}
	return w
}()

// Do implements readline.AutoCompleter: candidates for the word before
// the cursor, as suffixes.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	start := pos
	for start > 0 && (unicode.IsLetter(line[start-1]) || unicode.IsDigit(line[start-1]) || line[start-1] == '_' || line[start-1] == ':') {
		start--
	}
	prefix := string(line[start:pos])
	words := slices.Clone(completionWords)
	if c.names != nil {
		words = append(words, c.names()...)
	}
	sort.Strings(words)
	var out [][]rune
	seen := map[string]bool{}
	for _, w := range words {
		if strings.HasPrefix(w, prefix) && w != prefix && !seen[w] {
			seen[w] = true
			out = append(out, []rune(w[len(prefix):]))
		}
	}
	return out, len([]rune(prefix))
}
