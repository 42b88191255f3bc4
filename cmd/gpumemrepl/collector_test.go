package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// cycleLeak makes 600 reference cycles, each holding a 1 MiB CUDA
// tensor (each round allocates three container objects: the instance,
// the tensor and the cycle's bound method), then prints what is left and
// the collector's figures.
const cycleLeak = `import gc
import torch


class Holder:
    def __init__(self, t):
        self.t = t
        self.me = self.touch

    def touch(self):
        pass


for i in range(600):
    Holder(torch.empty(256, 1024, device="cuda"))
print(torch.cuda.memory_allocated() // (1 << 20) < 600, gc.get_stats()[0]["collections"] > 0)
gc.collect()
print(torch.cuda.memory_allocated(), gc.get_count())
`

// TestAutomaticCollectionFreesCycles: CPython's collector runs by
// itself as allocations pass generation 0's threshold, so a loop that
// leaks cycles of tensors frees them along the way; the statement where
// it freed tensors is estimated (gc (automatic)), and --strict refuses
// it there.
func TestAutomaticCollectionFreesCycles(t *testing.T) {
	path := writeProgram(t, "leak.py", cycleLeak)
	out, errOut, code := run(t, path)
	for _, want := range []string{
		"True True\n",
		// memory_allocated() leaves its cycle (eval's LeaveClosureCycle):
		// 122 pairs, 2 cells, a function, its closure and a list, none
		// from the free lists a full collection emptied; and the 39
		// dicts of its statistics, the two items tuples its walk freed
		// last and the args of the two KeyErrors os.getenv raises and
		// catches on its way to the current device count too, gone back
		// to those free lists
		"0 (170, 0, 0)\n",
		"estimated: gc (automatic) generation 0 freed ",
		"in reference cycles: when CPython starts a collection depends on what it and PyTorch allocate inside, modelled, not recorded",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	out, errOut, code = run(t, "--strict", path)
	if code != 1 || !strings.Contains(out+errOut, "NotImplementedError: gc (automatic) generation 0 freed ") {
		t.Errorf("--strict: exit %d\n%s%s", code, out, errOut)
	}
}

// TestDataSwapFollowedByGraph is issue 35's case: model.cpu() after a
// forward that saved what holds the weight (the graph's AccumulateGrad
// holds the leaf itself, whose storage Module._apply swapped) frees the
// CUDA weight, as in PyTorch; the tool kept it. The scripts of .data,
// set_ and Module._apply match PyTorch's recording at every statement
// (TestPythonAsPasted, and event by event in torchpy); here, their
// reports carry no estimate, and set_ over an untyped storage checks
// its bounds as PyTorch does.
func TestDataSwapFollowedByGraph(t *testing.T) {
	for _, name := range []string{"data_swap_saved", "data_assign", "tensor_set", "module_apply_overwrite", "optim_state_data"} {
		out, errOut, code := run(t, "../../testdata/pyrules/"+name+".py")
		if code != 0 || strings.Contains(out, "estimated") {
			t.Errorf("%s: exit %d, or an estimate: a swap a graph follows is recorded\n%s%s", name, code, out, errOut)
		}
	}
	// a layout past the end of an untyped storage is PyTorch's error
	path := writeProgram(t, "bounds.py", `import torch
s = torch.randn(16, device="cuda").untyped_storage()
b = torch.empty(0, device="cuda")
b.set_(s, 2, (3, 4), (1, 3))
print(b.shape, b.stride(), b.storage_offset())
b.set_(s, 0, (5, 5))
`)
	out, errOut, code := run(t, path)
	want := path + ":6:1: RuntimeError: setStorage: sizes [5, 5], strides [5, 1], storage offset 0, and itemsize 4 requiring a storage size of 100 are out of bounds for storage of size 64"
	if code != 1 || !strings.Contains(out, "torch.Size([3, 4]) (1, 3) 2\n") || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, want %q\n%s%s", code, want, out, errOut)
	}
}

// TestTorchCallsCountAsCPython: a torch function's argument tuple goes
// back to CPython's free list as the call returns, so a loop that calls
// torch.randn(4, 8, ...) 2,000 times counts only its first tensor (the
// tool kept each tuple, so from the free list's 664th on each counted);
// a torch.Size is a tuple subclass's instance, which no free list
// serves (PyTorch's THPSize_New allocates it by tp_alloc): one more.
func TestTorchCallsCountAsCPython(t *testing.T) {
	path := writeProgram(t, "counts.py", `import gc
import torch

gc.disable()
x = torch.empty(4, 8, device="cuda")
before = gc.get_count()[0]
s = x.shape
b = gc.get_count()[0] - before
before = gc.get_count()[0]
for _ in range(2000):
    y = torch.randn(4, 8, device="cuda")
a = gc.get_count()[0] - before
print(a, b)
`)
	out, errOut, code := run(t, path)
	if code != 0 || !strings.Contains(out, "\n1 1\n") {
		t.Errorf("exit %d, want 1 1 printed:\n%s%s", code, out, errOut)
	}
}

// TestImportSysMakesNothing: CPython makes sys before a script runs, so
// importing it after torch takes nothing from the free lists and counts
// nothing: the collector's figures are those of a script that imported
// it first (the leak experiments' `import torch, sys` copies of
// testdata/experiments/gc/rounds).
func TestImportSysMakesNothing(t *testing.T) {
	figures := func(imports string) string {
		path := writeProgram(t, "sys.py", imports+"\nsys._debugmallocstats()\nprint(gc.get_count())\n")
		out, errOut, code := run(t, path)
		reads, count := freeListReads(errOut), regexp.MustCompile(`\(\d+, \d+, \d+\)`).FindString(out)
		if code != 0 || len(reads) != 1 || count == "" {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		return count + "\n" + strings.Join(reads[0], "\n")
	}
	first, after := figures("import sys\nimport gc\nimport torch"), figures("import gc\nimport torch\nimport sys")
	if first != after {
		t.Errorf("import sys after torch moved the collector's figures:\n%s\nwhere importing it first leaves\n%s", after, first)
	}
}

// TestTupleOfGeneratorShrinks: tuple() of an iterable that gives no
// length (a generator) takes a 10-tuple, CPython's guess, and shrinks it
// in place to its items: the 10-tuple free list loses one, and the pair
// free list gains one when the tuple dies (torch.nn's RemovableHandle
// makes one for each forward hook: rounds/gh46386_hook_self's reads).
// Of a list it makes a tuple of the list's length.
func TestTupleOfGeneratorShrinks(t *testing.T) {
	path := writeProgram(t, "shrink.py", `import sys
import torch

sys._debugmallocstats()
t = tuple(x for x in "ab")
sys._debugmallocstats()
del t
sys._debugmallocstats()
t = tuple(["a", "b"])
sys._debugmallocstats()
`)
	_, errOut, code := run(t, path)
	reads := freeListReads(errOut)
	sized := func(read, n int) int {
		for _, l := range reads[read] {
			var k, size int
			if _, err := fmt.Sscanf(strings.TrimSpace(l), "%d free %d-sized", &k, &size); err == nil && size == n {
				return k
			}
		}
		t.Fatalf("read %d has no %d-sized line:\n%s", read, n, strings.Join(reads[read], "\n"))
		return 0
	}
	if code != 0 || len(reads) != 4 {
		t.Fatalf("exit %d, %d reads\n%s", code, len(reads), errOut)
	}
	tens := []int{sized(0, 10), sized(1, 10), sized(2, 10), sized(3, 10)}
	pairs := []int{sized(0, 2), sized(1, 2), sized(2, 2), sized(3, 2)}
	if tens[1] != tens[0]-1 || tens[2] != tens[1] || tens[3] != tens[2] {
		t.Errorf("10-tuples on the free list %v: want one taken by the generator's tuple, none after", tens)
	}
	if pairs[1] != pairs[0] || pairs[2] != pairs[1]+1 || pairs[3] != pairs[2]-1 {
		t.Errorf("pairs on the free list %v: want one back as the shrunk tuple dies, one taken by the list's", pairs)
	}
}

// TestDynamoImportCounts: the first optimizer's add_param_group imports
// torch._dynamo, whose collections leave CPython's collector as
// scripts/gc_dynamo_import.py's recording shows; from import torch to
// the statement after the optimizer's, gc.get_count() is the
// recording's after each statement (before it, the recorder's own start
// is not knowable).
func TestDynamoImportCounts(t *testing.T) {
	rec, err := os.ReadFile("../../testdata/experiments/gc/gc_dynamo_import.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--as-recorded", "../../scripts/gc_dynamo_import.py")
	got := map[int][]int{}
	for _, r := range readGCRows(t, out) {
		got[r.Line] = r.GC
	}
	n := 0
	for _, w := range readGCRows(t, string(rec)) {
		if w.Line < 11 || w.Line > 18 {
			continue
		}
		n++
		if !slices.Equal(got[w.Line], w.GC) {
			t.Errorf("line %d: gc.get_count() %v, CPython's %v\n%s", w.Line, got[w.Line], w.GC, errOut)
		}
	}
	if n != 5 {
		t.Errorf("%d rows from import torch to the statement after the optimizer's, want 5", n)
	}
}

// TestClassCallArgsTuple: calling a class a class statement made (a heap
// type, with no vectorcall in CPython 3.12) goes through
// _PyObject_MakeTpCall, which makes a tuple of the positional arguments
// for type_call: with the pair free list emptied, C(1, 2) makes a pair
// that goes back to the free list as the call returns.
func TestClassCallArgsTuple(t *testing.T) {
	path := writeProgram(t, "classcall.py", `import sys
import torch


class C:
    def __init__(self, a, b):
        self.a = a


keep = [(i, i + 1) for i in range(2000)]
sys._debugmallocstats()
c = C(1, 2)
sys._debugmallocstats()
`)
	_, errOut, code := run(t, path)
	reads := freeListReads(errOut)
	if code != 0 || len(reads) != 2 {
		t.Fatalf("exit %d, %d reads\n%s", code, len(reads), errOut)
	}
	pairs := func(read []string) string {
		for _, l := range read {
			if strings.Contains(l, " 2-sized ") {
				return strings.Fields(l)[0]
			}
		}
		return ""
	}
	if before, after := pairs(reads[0]), pairs(reads[1]); before != "0" || after != "1" {
		t.Errorf("pairs on the free list %s before C(1, 2) and %s after, want 0 and 1 (its arguments' tuple)", before, after)
	}
}

// super().m() and super(C, obj).m() call the method found after C with
// obj, making no super object and no bound method (CPython 3.12's
// LOAD_SUPER_ATTR): nothing counts while it runs. super().m read as an
// attribute, not called, is a bound method, which counts. For a class
// with __getattr__ (an nn.Module) LOAD_SUPER_ATTR_METHOD binds the
// method: the bound method counts while the call's arguments are
// evaluated, and CALL drops it before the method runs.
func TestSuperMakesNoObject(t *testing.T) {
	path := writeProgram(t, "super_call.py", `import gc
gc.disable()


class A:
    def m(self):
        return gc.get_count()[0]

    def k(self, x):
        return x


class B(A):
    def m(self):
        n = gc.get_count()[0]
        return super().m() - n

    def m2(self):
        n = gc.get_count()[0]
        return super(B, self).m() - n

    def m3(self):
        n = gc.get_count()[0]
        f = super().m
        return gc.get_count()[0] - n

    def m4(self):
        n = gc.get_count()[0]
        return super().k(gc.get_count()[0]) - n


class H(B):
    def __getattr__(self, name):
        raise AttributeError(name)

    def m4(self):
        n = gc.get_count()[0]
        return super(B, self).k(gc.get_count()[0]) - n


b, h = B(), H()
print(b.m(), b.m2(), b.m3(), b.m4(), h.m2(), h.m4())
`)
	out, errOut, code := run(t, path)
	if code != 0 || !strings.Contains(out, "0 0 1 0 0 1\n") {
		t.Errorf("exit %d, printed %q, want \"0 0 1 0 0 1\" (objects counted inside super().m(), super(B, self).m(), after f = super().m, in super().k's argument; inside super(B, self).m() and in super(B, self).k's argument where the class defines __getattr__)\n%s", code, out, errOut)
	}
}
