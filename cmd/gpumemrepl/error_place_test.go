package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorNamesProgramLine: an error raised inside the tool's own
// Python of torch.nn (a Sequential's forward calling a convolution that
// --strict refuses) names the program's statement on its first line,
// FILE:LINE:COL, not <torch.nn>:65:16, a source the user cannot open;
// the traceback still lists every frame.
func TestErrorNamesProgramLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "seq.py")
	src := "import torch\nm = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3)).cuda()\nx = torch.randn(3, 3, 37, 41, device='cuda')\ny = m(x)\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "run", "--strict", "--device", "sim", "--fake-host", "--no-color", path)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	at := strings.Index(errOut, path+":")
	if at < 0 {
		t.Fatalf("stderr names no place in %s:\n%s", path, errOut)
	}
	first, _, _ := strings.Cut(errOut[at:], "\n")
	if !strings.HasPrefix(first, path+":4:5: NotImplementedError: F.conv2d of input [3, 3, 37, 41]") {
		t.Errorf("first line %q, want %s:4:5: NotImplementedError: F.conv2d ...", first, path)
	}
	if !strings.Contains(errOut, "  File \"<torch.nn>\", line ") {
		t.Errorf("the traceback lacks torch.nn's frames:\n%s", errOut)
	}
}
