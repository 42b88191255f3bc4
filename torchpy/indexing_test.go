package torchpy_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// TestHostIndexRules: a CUDA tensor read through index tensors or a
// bool mask on the host, and written through a host mask (pyrules/
// index_host, index_host_two, index_host_mask_grad), allocates and
// frees what PyTorch's did on the H200, in its order (each host index
// copied to the GPU, the output, the copies freed; a mask's nonzero
// copied whole; under autograd the host index kept, and backward's
// flattened index one copy for each host index where a GPU index takes
// a wrapped and a scaled tensor) and prints what it printed, but for
// sums of values the tool does not compute.
func TestHostIndexRules(t *testing.T) {
	for _, c := range []struct {
		name        string
		notComputed int
	}{{"index_host", 32}, {"index_host_two", 37}, {"index_host_mask_grad", 0}} {
		t.Run(c.name, func(t *testing.T) {
			s, printed := runRule(t, c.name)
			path := filepath.Join("..", "testdata", "pyrules", c.name+".jsonl")
			checkEvents(t, s, path)
			if c.notComputed > 0 {
				if !strings.Contains(printed[c.notComputed], "not computed") {
					t.Errorf("line %d printed %q, a value the tool does not compute", c.notComputed, printed[c.notComputed])
				}
				printed[c.notComputed] = recordedOutput(t, path)[c.notComputed]
			}
			checkPrinted(t, printed, path)
			if errs := scriptErrors[s]; len(errs) > 0 {
				t.Errorf("errors %q, PyTorch's none", errs)
			}
		})
	}
}

// TestIndexErrors: what PyTorch refuses in advanced indexing (pyrules/
// index_errors, index_errors_broadcast, index_broadcast) is refused at the
// same statements with the same exception and message, after the same
// allocations (a list index made on the GPU, a number's 0-d tensor, a
// host index copied there, a mask's nonzero, before a shape mismatch),
// the lists freed in the key's order; and indices of different shapes,
// read, written and differentiated, allocate and free what PyTorch's
// did (each index not of the broadcast shape expanded and copied, a
// host index's copy let go once expanded). index_errors_broadcast's last statement reads a CUDA tensor out of
// range, where PyTorch raises nothing: the tool does
// (TestIndexOutOfRangeOnGPU), and allocates nothing there.
func TestIndexErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		last int // the statement where PyTorch's device assert starts, 0: none
	}{{"index_errors", 0}, {"index_errors_broadcast", 22}, {"index_broadcast", 0}, {"index_mixed", 0}} {
		t.Run(c.name, func(t *testing.T) {
			s, printed := runRule(t, c.name)
			path := filepath.Join("..", "testdata", "pyrules", c.name+".jsonl")
			want, lines := recordedEvents(t, path)
			if c.last > 0 {
				want = want[:slices.Index(lines, c.last)]
				printed[c.last+1] = recordedOutput(t, path)[c.last+1] // used() without the refused read
			}
			if got := sessionEvents(s); !slices.Equal(got, want) {
				t.Errorf("events %v, PyTorch's %v", got, want)
			}
			checkPrinted(t, printed, path)
			var got []string
			for _, e := range scriptErrors[s] {
				got = append(got, errorColumn.ReplaceAllString(e, "$1: "))
			}
			recorded := recordedErrors(t, path)
			if c.last > 0 {
				if len(got) == 0 || !strings.HasPrefix(got[len(got)-1], strconv.Itoa(c.last)+": torch.AcceleratorError: index 9 is out of bounds for dimension 1 with size 4") {
					t.Errorf("errors %q, want the read out of range at line %d", got, c.last)
				}
				got = got[:max(len(got)-1, 0)]
			}
			if !slices.Equal(got, recorded) {
				t.Errorf("errors\n%q\nPyTorch's\n%q", got, recorded)
			}
		})
	}
}

// TestIndexOutOfRangeOnGPU: PyTorch indexes a CUDA tensor past a
// dimension's end without an error at the statement (pyrules/
// index_oob_read, index_oob_write, index_oob_host: its kernel's
// device-side assert surfaces at a later call as AcceleratorError);
// the tool raises torch.AcceleratorError at the statement itself,
// naming the index and saying what PyTorch does, before anything is
// allocated: every event before the statement is PyTorch's, and none
// follows it there.
func TestIndexOutOfRangeOnGPU(t *testing.T) {
	for _, c := range []struct {
		name, index string
		line, later int
	}{
		{"index_oob_read", "index 5 is out of bounds for dimension 0 with size 3", 9, 11},
		{"index_oob_write", "index 3 is out of bounds for dimension 0 with size 3", 8, 10},
		{"index_oob_host", "index -4 is out of bounds for dimension 0 with size 3", 8, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := runRule(t, c.name)
			path := filepath.Join("..", "testdata", "pyrules", c.name+".jsonl")
			errs := recordedErrors(t, path)
			if len(errs) == 0 || !strings.HasPrefix(errs[0], strconv.Itoa(c.later)+": AcceleratorError: CUDA error: device-side assert triggered") {
				t.Fatalf("recorded errors %q, want PyTorch's device-side assert at line %d", errs, c.later)
			}
			got := scriptErrors[s]
			if len(got) == 0 || !strings.HasPrefix(got[0], strconv.Itoa(c.line)+":") || !strings.Contains(got[0], "torch.AcceleratorError: "+c.index+" on cuda:0: PyTorch raises nothing at this statement") {
				t.Fatalf("errors %q, want the index out of range at line %d", got, c.line)
			}
			if got, want := eventsBefore(t, s, path, c.line); !slices.Equal(got, want) {
				t.Errorf("events before line %d differ from PyTorch's", c.line)
			}
		})
	}
}

// TestIndexOutOfRangeAllocatesNothing: a read or a write out of range on
// the GPU, through a list, a GPU index or a host index, is refused
// before anything is made: the peak stays at x's 512-byte block.
func TestIndexOutOfRangeAllocatesNothing(t *testing.T) {
	for _, stmt := range []string{"x[[0, 3]] = 1.0", "y = x[[3]]", "y = x[torch.tensor([0, 5])]", "x[torch.tensor([-4])] = 2.0"} {
		s, printed := runSnippet(t, "import torch\nx = torch.zeros(3, 4, device='cuda')\ntorch.cuda.reset_peak_memory_stats()\n"+stmt+"\nprint(torch.cuda.max_memory_allocated(), torch.cuda.memory_allocated())\n")
		if errs := scriptErrors[s]; len(errs) != 1 || !strings.Contains(errs[0], "AcceleratorError") {
			t.Errorf("%s: errors %q, want the index out of range", stmt, errs)
		}
		if printed[5] != "512 512\n" {
			t.Errorf("%s: peak and allocated %q, want x's 512 bytes alone", stmt, printed[5])
		}
	}
}

// TestMixedIndexNodes: reads through indices beside ints, slices, None
// and ... have PyTorch's shapes, strides and autograd chains (the basic
// items' view nodes under IndexBackward0; none for a whole slice or
// ...), as scripts/probe_index_nodes.py printed them on the H200
// (pyrules/index_mixed_nodes.txt). The probe names each node by
// type(f).__name__: a leaf's is AccumulateGrad, whose name() has its
// namespace.
func TestMixedIndexNodes(t *testing.T) {
	_, printed := runScript(t, filepath.Join("..", "scripts", "probe_index_nodes.py"))
	want, err := os.ReadFile(filepath.Join("..", "testdata", "pyrules", "index_mixed_nodes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, out := range printed {
		if out != "" {
			got = append(got, out)
		}
	}
	if len(got) != 1 || got[0] != string(want) {
		t.Errorf("printed\n%s\nPyTorch's\n%s", strings.Join(got, "|"), want)
	}
}

// TestMaskBesideOtherItems: a bool mask beside ints, slices, None, ...
// and an index tensor (pyrules/index_mask_mixed) is its nonzero's
// columns, one a mask dimension: reads make the nonzero (its count,
// CUB's scratches), the output, then free the nonzero, with PyTorch's
// shapes and strides; a number written through a mask of the tensor's
// device is masked_fill_ (nothing allocated), through a host mask
// index_put_ (the number's 0-d tensor, the nonzero's copy); a tensor
// written makes and frees the nonzero, before a shape mismatch too;
// backward takes the nonzero again before index_put_'s temporaries.
// Every event, print and error is PyTorch's.
func TestMaskBesideOtherItems(t *testing.T) {
	s, printed := runRule(t, "index_mask_mixed")
	path := filepath.Join("..", "testdata", "pyrules", "index_mask_mixed.jsonl")
	checkEvents(t, s, path)
	checkPrinted(t, printed, path)
	var got []string
	for _, e := range scriptErrors[s] {
		got = append(got, errorColumn.ReplaceAllString(e, "$1: "))
	}
	if want := recordedErrors(t, path); !slices.Equal(got, want) || len(want) != 1 {
		t.Errorf("errors\n%q\nPyTorch's\n%q", got, want)
	}
}

// TestMaskBesideOtherItemsRefused: what index_mask_mixed.py did not
// record of a bool mask beside other items is refused at its statement,
// saying what; a mask whose values are not known says the output's
// size depends on them; a mask that does not fit its dimensions is
// PyTorch's IndexError.
func TestMaskBesideOtherItemsRefused(t *testing.T) {
	for _, c := range []struct{ stmt, want string }{
		{"y = x[:, m.to(torch.uint8)]", "NotImplementedError: gpumemrepl does not model indexing a tensor with a uint8 mask"},
		{"y = x[m2, m]", "NotImplementedError: gpumemrepl does not model indexing by two bool masks in one key"},
		{"y = x[m2, [0, 1]]", "NotImplementedError: gpumemrepl does not model a bool mask beside a list index"},
		{"y = x[m2, torch.tensor([0, 1])]", "NotImplementedError: gpumemrepl does not model a bool mask beside an index tensor on the host"},
		{"y = x[m2.cpu(), torch.tensor([0, 1], device='cuda')]", "NotImplementedError: gpumemrepl does not model a bool mask on the host beside an index tensor"},
		{"y = x[torch.tensor(True, device='cuda'), 0]", "NotImplementedError: gpumemrepl does not model a 0-d bool mask beside other items of an index"},
		{"y = x[:, torch.rand(4, device='cuda') > 0.5]", "NotImplementedError: the size of indexing by a bool mask's output, which depends on values the tool does not compute, is not modelled"},
		{"y = x[:, m2]", "IndexError: The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [3, 4] at index 1"},
		{"x[m2, torch.tensor([0, 1], device='cuda')] = 1.0", "NotImplementedError: gpumemrepl does not model assigning a number through a bool mask beside an index tensor"},
		{"y = x[torch.tensor([False, True, False], device='cuda'), torch.tensor([0, 1], device='cuda')]", "NotImplementedError: gpumemrepl does not model a bool mask whose count of true values broadcasts against an index of another size"},
		{"x[:, m2] = 1.0", "IndexError: The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [3, 4] at index 1"},
	} {
		s, _ := runSnippet(t, "import torch\nx = torch.zeros(3, 4, device='cuda')\nm = torch.tensor([True, False, True, True], device='cuda')\nm2 = torch.tensor([True, False, True], device='cuda')\n"+c.stmt+"\n")
		if errs := scriptErrors[s]; len(errs) != 1 || !strings.HasPrefix(errs[0], "5:") || !strings.Contains(errs[0], c.want) {
			t.Errorf("%s: errors %q, want %q at line 5", c.stmt, errs, c.want)
		}
	}
}

// TestMaskFillOfUnknownValues: a number written through a bool mask
// beside ints, slices, None and ... is masked_fill_ (index_mask_mixed.py
// lines 62, 63 and 67), which needs neither the mask's count nor its
// values: a mask the tool cannot compute is written through with
// nothing allocated.
func TestMaskFillOfUnknownValues(t *testing.T) {
	for _, stmt := range []string{"x[:, m] = 0.0", "x[1, m] = 2", "x[None, 1:3, m] = 1.5", "x[..., m] = True"} {
		s, printed := runSnippet(t, "import torch\nx = torch.zeros(3, 4, device='cuda')\nm = torch.rand(4, device='cuda') > 0.5\ntorch.cuda.reset_peak_memory_stats()\n"+stmt+"\nprint(torch.cuda.max_memory_allocated(), torch.cuda.memory_allocated())\n")
		if errs := scriptErrors[s]; len(errs) != 0 {
			t.Errorf("%s: errors %q, PyTorch's none", stmt, errs)
		}
		if printed[6] != "1024 1024\n" {
			t.Errorf("%s: peak and allocated %q, want x's and m's 512-byte blocks alone", stmt, printed[6])
		}
	}
}

// runSnippet runs the Python source src as a script file (runScript).
func runSnippet(t *testing.T, src string) (*engine.Session, map[int]string) {
	t.Helper()
	return runScript(t, snippetFile(t, src))
}

// snippetFile writes the Python source src to a script file of its own.
func snippetFile(t *testing.T, src string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "snippet.py")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

// TestTensorAsIndex: a one-element integer tensor is an index, as
// Tensor.__index__ makes it (x[:n], range(n)), where the tool knows its
// value; a floating one is PyTorch's TypeError, and one whose value the
// tool does not compute is refused, naming why.
func TestTensorAsIndex(t *testing.T) {
	_, printed := runSnippet(t, `import torch
n = torch.tensor(3)
x = torch.zeros(10, device='cuda')
print(x[:n].shape, list(range(n)), x[torch.tensor([2, 5]).sum():].shape)
try:
    x[:torch.tensor(2.0)]
except TypeError as e:
    print(e)
try:
    x[:torch.randint(0, 5, ())]
except Exception as e:
    print(type(e).__name__)
`)
	for line, want := range map[int]string{
		4: "torch.Size([3]) [0, 1, 2] torch.Size([3])\n",
		5: "only integer tensors of a single element can be converted to an index\n",
		9: "UnknownValueError\n",
	} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q", line, printed[line], want)
		}
	}
}
