package torchpy_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMissingAttrNote: an attribute PyTorch 2.11 has (pytorch_names.txt)
// and the tool does not model says so in its AttributeError; one PyTorch
// does not have reads as CPython's; hasattr stays False either way.
func TestMissingAttrNote(t *testing.T) {
	src := `import torch
x = torch.zeros(4, device='cuda')
print(hasattr(x, 'index_fill_'), hasattr(x, 'frobnicate'))
class Net(torch.nn.Module):
    pass
for f in (lambda: x.index_fill_, lambda: x.frobnicate, lambda: torch.Tensor.index_fill_, lambda: torch.index_put,
          lambda: torch.nn.functional.fold, lambda: Net().register_load_state_dict_post_hook, lambda: Net().frobnicate):
    try:
        f()
    except AttributeError as e:
        print(e)
`
	want := `False False
'Tensor' object has no attribute 'index_fill_' (PyTorch 2.11 has torch.Tensor.index_fill_; gpumemrepl does not model it yet, so it cannot say what memory it uses)
'Tensor' object has no attribute 'frobnicate'
type object 'Tensor' has no attribute 'index_fill_' (PyTorch 2.11 has torch.Tensor.index_fill_; gpumemrepl does not model it yet, so it cannot say what memory it uses)
module 'torch' has no attribute 'index_put' (PyTorch 2.11 has torch.index_put; gpumemrepl does not model it yet, so it cannot say what memory it uses)
module 'torch.nn.functional' has no attribute 'fold' (PyTorch 2.11 has torch.nn.functional.fold; gpumemrepl does not model it yet, so it cannot say what memory it uses)
'Net' object has no attribute 'register_load_state_dict_post_hook' (PyTorch 2.11 has torch.nn.Module.register_load_state_dict_post_hook; gpumemrepl does not model it yet, so it cannot say what memory it uses)
'Net' object has no attribute 'frobnicate'
`
	if got := runSource(t, 1, src); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
}

// TestMissingAttrNoteNamespaces: the other recorded namespaces note too
// (torch.optim declares every optimizer, refusing those not modelled).
func TestMissingAttrNoteNamespaces(t *testing.T) {
	src := `import torch
import torch.utils.data
for f in (lambda: torch.cuda.CUDAGraph, lambda: torch.autograd.gradcheck, lambda: torch.utils.data.WeightedRandomSampler):
    try:
        f()
    except AttributeError as e:
        print(str(e).split(' (')[1][:-1])
`
	want := ""
	for _, name := range []string{"torch.cuda.CUDAGraph", "torch.autograd.gradcheck", "torch.utils.data.WeightedRandomSampler"} {
		want += "PyTorch 2.11 has " + name + "; gpumemrepl does not model it yet, so it cannot say what memory it uses\n"
	}
	if got := runSource(t, 1, src); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
}

// TestGradFnType: a grad_fn's class is its node's, as PyTorch 2.11
// printed it (testdata/pyrules/gradfn_type.py and .stdout).
func TestGradFnType(t *testing.T) {
	dir := filepath.Join("..", "testdata", "pyrules")
	src, err := os.ReadFile(filepath.Join(dir, "gradfn_type.py"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "gradfn_type.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	if got := runSource(t, 1, string(src)); got != string(want) {
		t.Errorf("printed\n%s\nPyTorch\n%s", got, want)
	}
}
