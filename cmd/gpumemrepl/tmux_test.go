package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// terminal is the REPL running in a tmux pane.
type terminal struct {
	t    *testing.T
	sock string
	home string
}

// startTerminal runs the binary with args in a fresh tmux server.
func startTerminal(t *testing.T, args ...string) *terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed (.ci/run installs it)")
		}
		t.Skip("tmux is not installed: apt-get install tmux")
	}
	term := &terminal{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock"), home: t.TempDir()}
	term.tmux(append([]string{"new-session", "-d", "-x", "200", "-y", "50", "env", "HOME=" + term.home, "TERM=xterm", binary}, args...)...)
	t.Cleanup(func() { exec.Command("tmux", "-S", term.sock, "kill-server").Run() })
	term.waitFor("gpumem>")
	return term
}

func (term *terminal) tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-S", term.sock}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (term *terminal) keys(keys ...string) { term.tmux(append([]string{"send-keys"}, keys...)...) }

func (term *terminal) screen() string { return term.tmux("capture-pane", "-p") }

// waitFor waits until the screen shows what, and returns the screen.
func (term *terminal) waitFor(what string) string { return term.waitForN(what, 1) }

// waitForN waits until the screen shows what n times.
func (term *terminal) waitForN(what string, n int) string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := term.screen()
		if strings.Count(s, what) >= n {
			return s
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("screen never showed %q:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitLineRead waits until the prompt has read a line: its terminal
// leaves raw mode (where Ctrl-C is a key readline reads) for canonical
// mode (where Ctrl-C is a SIGINT), as Readline returns.
func (term *terminal) waitLineRead() {
	tty := strings.TrimSpace(term.tmux("display-message", "-p", "#{pane_tty}"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		mode, err := exec.Command("stty", "-F", tty, "-a").CombinedOutput()
		if err != nil {
			term.t.Fatalf("stty -F %s: %v: %s", tty, err, mode)
		}
		if slices.Contains(strings.Fields(string(mode)), "icanon") {
			return
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("the prompt never read the line:\n%s", term.screen())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// quit presses Ctrl-D and waits for the REPL to end.
func (term *terminal) quit() {
	term.keys("C-d")
	deadline := time.Now().Add(5 * time.Second)
	for exec.Command("tmux", "-S", term.sock, "has-session").Run() == nil {
		if time.Now().After(deadline) {
			term.t.Fatalf("Ctrl-D did not quit:\n%s", term.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestInteractiveInTmux drives the prompt in a real terminal, as a person
// would: the seed's first commands, a Tab completion, a typo, Ctrl-D.
func TestInteractiveInTmux(t *testing.T) {
	term := startTerminal(t, "--device", "sim", "--fake-host")
	term.keys("a = zeros 256x1024x1024 cuda", "Enter")
	term.waitFor("a: 1024.00 MiB float32 [256, 1024, 1024] on cuda:0")
	term.keys("b = zer", "Tab")
	term.waitFor("b = zeros")
	term.keys(" 10xq cuda", "Enter")
	s := term.waitFor("error: expected a shape")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.Contains(l, "error: expected a shape") {
			if i < 2 || !strings.Contains(lines[i-2], "b = zeros 10xq cuda") || strings.Index(lines[i-1], "^") != strings.Index(lines[i-2], "10xq") {
				t.Errorf("no caret under the column:\n%s", s)
			}
		}
	}
	term.keys("del a", "Enter")
	term.waitFor("freed a (1024.00 MiB on cuda:0)")
	// A with-block continues on "..." lines until a blank line.
	term.keys("with torch.no_grad():", "Enter")
	term.waitFor("\n...")
	term.keys("    y = zeros 2 cuda", "Enter")
	// As in Python's REPL, the block runs when a blank line ends it.
	term.keys("Enter")
	term.waitFor("y: 8 bytes float32 [2] on cuda:0")
	term.keys("vars", "Enter")
	if s := term.waitFor("y        8 bytes"); !strings.Contains(s, "gpumem> vars") {
		t.Errorf("the blank line did not end the block:\n%s", s)
	}
	// Python at the prompt sees the command form's names: a bare
	// expression echoes its repr, and an exception shows its traceback.
	term.keys("y.shape", "Enter")
	term.waitFor("torch.Size([2])")
	term.keys("def f():", "Enter", "    return 1 / 0", "Enter", "Enter", "f()", "Enter")
	term.waitFor("ZeroDivisionError: division by zero")
	// History keeps a block whole: Up six times (del y, f(), the def,
	// y.shape, vars, then the with block) recalls it, and Enter and a
	// blank line run it again.
	term.keys("del y", "Enter")
	term.waitFor("freed y (8 bytes on cuda:0)")
	term.keys("Up", "Up", "Up", "Up", "Up", "Up", "Enter", "Enter")
	term.waitForN("y: 8 bytes float32 [2] on cuda:0", 2)
	term.quit()
	hist, err := os.ReadFile(filepath.Join(term.home, ".gpumemrepl_history"))
	if err != nil || !strings.Contains(string(hist), "del a") || !strings.Contains(string(hist), "def f():\n    return 1 / 0\n") {
		t.Errorf("history file: %v %q", err, hist)
	}
}

// TestInteractiveInterrupt presses Ctrl-C while a 4 GiB host tensor's
// memory is being written, at the end of its step (a host tensor gets
// its memory then, within the host budget): the writing stops as
// KeyboardInterrupt, the memory not written is given back and the
// tensor counted, not resident, and the prompt goes on.
func TestInteractiveInterrupt(t *testing.T) {
	term := startTerminal(t, "--device", "sim", "--no-color", "--host-budget", "8G")
	term.keys("a = zeros 1024x1024x1024 cpu", "Enter")
	// Ctrl-C as soon as the prompt has read the line, not after a
	// fixed wait: before, it is a key the prompt reads later; after, it
	// is the command's, even before the step begins.
	term.waitLineRead()
	term.keys("C-c")
	s := term.waitFor("KeyboardInterrupt")
	if !strings.Contains(s, "(4.00 GiB +4.00 GiB counted)") || strings.Contains(s, "RuntimeError") {
		t.Errorf("the interrupted tensor is not counted, or Ctrl-C raised other than KeyboardInterrupt:\n%s", s)
	}
	term.keys("b = zeros 10 cpu", "Enter")
	term.waitFor("b: 40 bytes float32 [10] on cpu")
	term.quit()
}

// TestProgressLine: on a terminal, a script's step that runs over a
// second shows which line runs and for how long, and the line is gone
// when the step ends. The loop runs for some seconds (150,000 rounds,
// once enough, came to under one on the CI's machine).
func TestProgressLine(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: apt-get install tmux")
	}
	script := writeScript(t, "long.py", "import torch\nfor i in range(2000000):\n    x = torch.zeros(1, device='cuda')\nprint('loop done')\n")
	term := &terminal{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock"), home: t.TempDir()}
	term.tmux("new-session", "-d", "-x", "200", "-y", "50", "sh", "-c", binary+" --device sim --fake-host --no-color "+script+"; sleep 60")
	t.Cleanup(func() { exec.Command("tmux", "-S", term.sock, "kill-server").Run() })
	s := term.waitFor(script + ":2: running")
	if strings.Contains(s, "loop done") {
		t.Fatalf("the progress line came after the step:\n%s", s)
	}
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(s, "loop done") && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		s = term.screen()
	}
	if !strings.Contains(s, "loop done") || strings.Contains(s, "running") {
		t.Errorf("the progress line stayed after the step:\n%s", s)
	}
}
