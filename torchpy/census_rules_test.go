package torchpy_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCensusRulesRecorded: issue 35's rule scripts recorded on the GPU
// machine (testdata/pyrules: an H100 lent for the H200, the same GH100
// and PyTorch) make PyTorch's allocator events, in order, and print what
// it printed: custom autograd Functions (save_for_backward, ctx
// attributes, mark_dirty, mark_non_differentiable, materialized
// gradients), the RNN cells (the fused LSTM and GRU kernels, the simple
// cells' products outliving their nonlinearity), and issue 35's model
// with a custom Function trained under save_on_cpu(pin_memory=True)
// (each Linear's transposed weight made dense on the GPU as it is
// packed, before the product's output; unpacked tensors freed last
// first).
func TestCensusRulesRecorded(t *testing.T) {
	checkRules(t, "autograd_function", "rnn_cells", "train_custom_fn")
}

// TestSavedHooksRecorded: saved-tensor hooks (identity, clone, nested,
// save_on_cpu with and without pinned memory, retain_graph, a custom
// Function's saved tensors) make PyTorch's allocator events up to the
// errors (line 104: a pack hook that writes its input, which PyTorch
// calls before mul makes its output and the tool after, an estimate),
// and every statement prints what it printed.
func TestSavedHooksRecorded(t *testing.T) {
	s, printed := runRule(t, "saved_hooks")
	path := filepath.Join("..", "testdata", "pyrules", "saved_hooks.jsonl")
	checkEventsBefore(t, s, path, 104)
	checkPrinted(t, printed, path)
}

// TestCopyToHostTemporary: a blocking copy_ of a transposed GPU tensor
// into a contiguous host tensor is not one memcpy: PyTorch makes the
// source dense on the GPU first and frees it after (save_on_cpu's
// pinned pack of a Linear's weight, train_custom_fn.py's recording: 9
// MiB allocated and freed before the host copy). A contiguous source
// makes nothing.
func TestCopyToHostTemporary(t *testing.T) {
	script := filepath.Join(t.TempDir(), "copy.py")
	src := "import torch\nw = torch.randn(3072, 768, device='cuda')\nh = torch.empty(768, 3072, pin_memory=True)\nh.copy_(w.t())\nh.copy_(w.view(768, 3072))\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := runScript(t, script)
	want := []event{{"segment_alloc", 20 << 20}, {"alloc", 9 << 20}, {"alloc", 9 << 20}, {"free_completed", 9 << 20}}
	if got := sessionEvents(s); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
