package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInteractiveInTmux drives the prompt in a real terminal, as a person
// would: the seed's first commands, a Tab completion, a typo, Ctrl-D.
func TestInteractiveInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed (.ci/run installs it)")
		}
		t.Skip("tmux is not installed: apt-get install tmux")
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	home := t.TempDir()
	tmux("new-session", "-d", "-x", "200", "-y", "50", "env", "HOME="+home, "TERM=xterm", binary, "--device", "sim", "--fake-host")
	defer exec.Command("tmux", "-S", sock, "kill-server").Run()
	screen := func() string { return tmux("capture-pane", "-p") }
	waitFor := func(what string) string {
		deadline := time.Now().Add(10 * time.Second)
		for {
			s := screen()
			if strings.Contains(s, what) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("screen never showed %q:\n%s", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("gpumem>")
	tmux("send-keys", "a = zeros 256x1024x1024 cuda", "Enter")
	waitFor("a: 1024.00 MiB float32 [256, 1024, 1024] on cuda:0")
	tmux("send-keys", "b = zer", "Tab")
	waitFor("b = zeros")
	tmux("send-keys", " 10xq cuda", "Enter")
	s := waitFor("error: expected a shape")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.Contains(l, "error: expected a shape") {
			if i < 2 || !strings.Contains(lines[i-2], "b = zeros 10xq cuda") || strings.Index(lines[i-1], "^") != strings.Index(lines[i-2], "10xq") {
				t.Errorf("no caret under the column:\n%s", s)
			}
		}
	}
	tmux("send-keys", "del a", "Enter")
	waitFor("freed a (1024.00 MiB on cuda:0)")
	tmux("send-keys", "C-d")
	deadline := time.Now().Add(5 * time.Second)
	for exec.Command("tmux", "-S", sock, "has-session").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("Ctrl-D did not quit:\n%s", screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if hist, err := os.ReadFile(filepath.Join(home, ".gpumemrepl_history")); err != nil || !strings.Contains(string(hist), "del a") {
		t.Errorf("history file: %v %q", err, hist)
	}
}
