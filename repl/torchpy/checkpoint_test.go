package torchpy_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl"
)

// TestCheckpointEventsInOrder: checkpointed training (pyrules/ckpt_train:
// an MLP with AdamW, the whole model checkpointed and in 2 segments), the
// reentrant variant and checkpoint_sequential in both variants make
// PyTorch's allocations, frees and segments in PyTorch's order: what
// forward keeps, when backward recomputes, when each recomputed tensor
// goes.
func TestCheckpointEventsInOrder(t *testing.T) {
	for _, name := range []string{"ckpt_train", "ckpt_reentrant", "ckpt_sequential"} {
		t.Run(name, func(t *testing.T) {
			s, _ := runRule(t, name)
			checkEvents(t, s, filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}

// TestCheckpointPrints: the checkpoint rule scripts print what PyTorch
// printed (grad_fn names of both variants and of the default, an output
// that needs no grad, the RNG states' dtypes, shapes and devices).
func TestCheckpointPrints(t *testing.T) {
	for _, name := range []string{"ckpt_block", "ckpt_funcs", "ckpt_reentrant", "ckpt_sequential", "ckpt_train"} {
		t.Run(name, func(t *testing.T) {
			_, printed := runRule(t, name)
			checkPrinted(t, printed, filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}

// TestCheckpointWarnsAsPyTorch: checkpoint_sequential without
// use_reentrant writes PyTorch 2.11's UserWarning, with the calling line
// and its source, as the published experiment's recording shows it on
// stderr.
func TestCheckpointWarnsAsPyTorch(t *testing.T) {
	script := filepath.Join("..", "..", "testdata", "experiments", "book_checkpoint_sequential.py")
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(strings.TrimSuffix(script, ".py") + ".stderr")
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", FakeHost: true, Devices: 1})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	r := &repl.Runner{Session: s, Out: io.Discard, Err: &stderr, File: script, KeepGoing: true, JSON: true}
	r.PyScript(src)
	// the recording ran the script by its path from the repository's root
	wantText := strings.ReplaceAll(string(want), "testdata/experiments/", filepath.Dir(script)+"/")
	if got := stderr.String(); !strings.HasPrefix(got, wantText) {
		t.Errorf("stderr begins\n%s\nwant\n%s", got, wantText)
	}
}
