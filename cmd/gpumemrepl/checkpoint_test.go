package main

import (
	"archive/zip"
	"bytes"
	le "encoding/binary"
	"hash/crc32"
	"io"
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

// savedRecord is a record's data in a zip archive.
func savedRecord(t *testing.T, path, name string) []byte {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	f, err := z.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTorchSaveIsPyTorchs runs testdata/checkpoints/make.py, the
// program that saved the checkpoints there in PyTorch 2.11: the files
// torch.save writes of tensors, views of one storage, a tensor under
// two names with numbers and strings, a Parameter, and a list of empty,
// integer, bool and CUDA tensors are PyTorch's byte for byte (but for
// the random serialization id each save draws, and its CRC). The
// state dicts of modules differ: the tool's state_dict is a dict, not
// an OrderedDict with _metadata; their tensors read back as PyTorch's.
// The file of the format from before PyTorch 1.6 is refused.
func TestTorchSaveIsPyTorchs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--keep-going", "../../testdata/checkpoints/make.py", "--", dir)
	if code != 1 || !strings.Contains(errOut, "make.py:15:5: NotImplementedError: gpumemrepl does not model torch.save(_use_new_zipfile_serialization=False)") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"tensor", "views", "mixed", "parameter", "list"} {
		ours := filepath.Join(dir, name+".pt")
		got, err := os.ReadFile(ours)
		if err != nil {
			t.Fatal(err)
		}
		theirs := "../../testdata/checkpoints/" + name + ".pt"
		want, err := os.ReadFile(theirs)
		if err != nil {
			t.Fatal(err)
		}
		id := name + "/.data/serialization_id"
		ourID, theirID := savedRecord(t, ours, id), savedRecord(t, theirs, id)
		crc := func(b []byte) []byte { return le.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(b)) }
		got = bytes.ReplaceAll(bytes.ReplaceAll(got, ourID, theirID), crc(ourID), crc(theirID))
		if !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: %d bytes, PyTorch's %d; they differ from byte %d", name, len(got), len(want), i)
		}
	}
	for _, name := range []string{"linear_cuda", "sequential_bf16", "train_state"} {
		for _, p := range []string{filepath.Join(dir, name+".pt"), "../../testdata/checkpoints/" + name + ".pt"} {
			script := writeScript(t, "check.py", "import torch\nsd = torch.load('"+p+"', map_location='cpu')\nprint(sorted(sd))\n")
			out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", script)
			if code != 0 {
				t.Errorf("%s: exit %d: %s", p, code, errOut)
			}
			if name == "linear_cuda" && !strings.Contains(out, "['bias', 'weight']") {
				t.Errorf("%s read back as\n%s", p, out)
			}
		}
	}
}
