package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeScript writes a Python script into a test's temporary folder.
func writeScript(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTorchLoad: torch.load of a checkpoint PyTorch saved, run as a
// user runs a script, allocates its tensors where map_location puts
// them; a file that is not there is Python's FileNotFoundError, a
// checkpoint of the format from before PyTorch 1.6 is refused by name
// (and with mmap=True is PyTorch's own error), a pickle naming a class
// a weights_only load does not read is refused at its offset.
func TestTorchLoad(t *testing.T) {
	t.Parallel()
	ck, err := filepath.Abs("../../testdata/checkpoints")
	if err != nil {
		t.Fatal(err)
	}
	script := writeScript(t, "load.py", `import torch
sd = torch.load("`+ck+`/linear_cuda.pt", map_location="cuda:0", mmap=True, weights_only=True)
print(sd["weight"].shape, sd["bias"].device, torch.cuda.memory_allocated())
try:
    torch.load("`+ck+`/missing.pt")
except FileNotFoundError as e:
    print("FileNotFoundError:", e)
try:
    torch.load("`+ck+`/legacy.pt", mmap=True)
except RuntimeError as e:
    print(str(e)[:40])
x = torch.load("`+ck+`/legacy.pt")
`)
	out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--no-color", script)
	for _, want := range []string{
		"torch.Size([3, 4]) cuda:0 1024\n",
		"FileNotFoundError: [Errno 2] No such file or directory: '" + ck + "/missing.pt'\n",
		"mmap can only be used with files saved w\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if code != 1 || !strings.Contains(errOut, "load.py:12:5: NotImplementedError: gpumemrepl does not model torch.load of a checkpoint in the format from before PyTorch 1.6") {
		t.Errorf("legacy: exit %d, %s", code, errOut)
	}
	hostile := writeScript(t, "hostile.py", "import torch\nx = torch.load('../../allocator/snapshot/testdata/class.pickle')\n")
	_, errOut, code = run(t, "run", "--device", "sim", "--fake-host", "--no-color", hostile)
	if code != 1 || !strings.Contains(errOut, "hostile.py:2:5: RuntimeError: ../../allocator/snapshot/testdata/class.pickle: not a checkpoint: neither a zip archive") {
		t.Errorf("a pickle that is not a checkpoint: exit %d, %s", code, errOut)
	}
}
