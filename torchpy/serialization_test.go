package torchpy_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigSaved is scripts/probe_big_checkpoint.py's record of a 6.9 GB
// checkpoint saved and loaded on the H200.
type bigSaved struct {
	Loads []struct {
		MMap        bool                 `json:"mmap"`
		Allocated   uint64               `json:"allocated"`
		Reserved    uint64               `json:"reserved"`
		MaxReserved uint64               `json:"max_reserved"`
		Events      [][2]json.RawMessage `json:"events"`
	} `json:"loads"`
	Layout struct {
		Entries []struct {
			Offset int64  `json:"offset"`
			Header string `json:"header"`
			Data   string `json:"data"`
			Size   int64  `json:"size"`
		} `json:"entries"`
		TailOffset int64  `json:"tail_offset"`
		Tail       string `json:"tail"`
		Size       int64  `json:"size"`
	} `json:"layout"`
}

// rebuildBig writes the recorded checkpoint again at path, byte for
// byte but for its tensors' data: zeros, left as holes of a sparse file
// (no disk space, no time).
func rebuildBig(t *testing.T, rec *bigSaved, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(rec.Layout.Size); err != nil {
		t.Fatal(err)
	}
	write := func(off int64, b64 string) {
		b, err := base64.StdEncoding.DecodeString(b64)
		if err == nil {
			_, err = f.WriteAt(b, off)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range rec.Layout.Entries {
		write(e.Offset, e.Header)
		if e.Data != "" {
			h, _ := base64.StdEncoding.DecodeString(e.Header)
			write(e.Offset+int64(len(h)), e.Data)
		}
	}
	write(rec.Layout.TailOffset, rec.Layout.Tail)
}

// TestLoadBigCheckpoint loads the 6.9 GB checkpoint saved on the H200
// (rebuilt from its record without its tensor data) as the GPU machine
// did, torch.load(..., map_location='cuda', mmap=True,
// weights_only=True), and without mmap: the caching allocator sees the
// allocations and segments PyTorch's did, in order, and ends with its
// allocated and reserved bytes; the data is never read.
func TestLoadBigCheckpoint(t *testing.T) {
	raw, err := os.ReadFile("../testdata/checkpoints/llama3b_h200.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec bigSaved
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "llama3b.pt")
	rebuildBig(t, &rec, path)
	for _, load := range rec.Loads {
		t.Run(fmt.Sprintf("mmap=%v", load.MMap), func(t *testing.T) {
			script := filepath.Join(dir, "load.py")
			src := fmt.Sprintf("import torch\nsd = torch.load(%q, map_location='cuda', mmap=%v, weights_only=True)\nprint(torch.cuda.memory_allocated(), torch.cuda.memory_reserved(), torch.cuda.max_memory_reserved())\n", path, map[bool]string{true: "True", false: "False"}[load.MMap])
			if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			s, printed := runScript(t, script)
			if errs := scriptErrors[s]; len(errs) > 0 {
				t.Fatal(errs)
			}
			var want []event
			for _, e := range load.Events {
				var a string
				var n uint64
				json.Unmarshal(e[0], &a)
				json.Unmarshal(e[1], &n)
				if counted[a] {
					want = append(want, event{a, n})
				}
			}
			got := sessionEvents(s)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%d events, PyTorch's %d; first: %v, PyTorch's %v", len(got), len(want), got[:min(4, len(got))], want[:min(4, len(want))])
			}
			if got, want := printed[3], fmt.Sprintln(load.Allocated, load.Reserved, load.MaxReserved); got != want {
				t.Errorf("allocated, reserved and peak reserved %q, PyTorch's %q", got, want)
			}
		})
	}
}

// TestLoadRecordedCheckpoints runs ckpt_load.py, torch.load of the
// checkpoints PyTorch saved in every form the tool models, into a model
// built on the meta device too, and torch.save of CUDA tensors: each
// allocation and free is PyTorch's, in order, and each statement prints
// what it printed (the path in PyTorch's mmap error is where the
// recorder ran the script).
func TestLoadRecordedCheckpoints(t *testing.T) {
	s, printed := runRule(t, "ckpt_load")
	path := filepath.Join("..", "testdata", "pyrules", "ckpt_load.jsonl")
	checkEvents(t, s, path)
	for line, out := range recordedOutput(t, path) {
		if want := strings.ReplaceAll(out, ".dev/bigmodels/", "../"); printed[line] != want {
			t.Errorf("line %d printed %q, PyTorch %q", line, printed[line], want)
		}
	}
}
