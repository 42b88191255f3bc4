// Tests of the engine's Go API. The oracle of every memory rule is
// PyTorch 2.11 on the H200: the programs of testdata/pyrules and their
// recordings (NAME.jsonl beside each, by scripts/record_script.py),
// compared statement by statement through the binary (cmd/gpumemrepl's
// TestPythonAsPasted over testdata/python_passing.txt) and event by event
// (torchpy's *_events_test.go); the probes' tables (testdata/pyrules/*.txt)
// for the kernels' workspaces.
package engine

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// newTestSession is a simulated H200 session with devices GPUs.
func newTestSession(t *testing.T, devices int) *Session {
	t.Helper()
	s, err := NewSession(Options{Preset: Presets["h200"], Devices: devices, FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustTensor makes a tensor of sp or stops the test.
func mustTensor(t *testing.T, s *Session, sp TensorSpec) *Tensor {
	t.Helper()
	x, err := s.NewTensor(sp)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// wantErr checks that err says want.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || pyText(err) != want {
		t.Errorf("%s: error %v, want %q", what, err, want)
	}
}

// pyText is err as Python prints the exception the binding raises for
// it: "IndexError: index 3 is out of bounds ...".
func pyText(err error) string {
	return KindOf(err).String() + ": " + err.Error()
}

// sixOnCUDA is torch.tensor([[1., 2.], [3., 4.], [5., 6.]], device='cuda').
var sixOnCUDA = TensorSpec{Op: "tensor", Shape: []int64{3, 2}, DType: Float32, Device: cuda0, Values: []float64{1, 2, 3, 4, 5, 6}}

// mustRepr is s.Repr(x), failing the test on an error.
func mustRepr(t *testing.T, s *Session, x *Tensor) string {
	t.Helper()
	r, err := s.Repr(x)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSelectAndNarrowAreViews(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, sixOnCUDA)
	before := s.Measure().Devices[0].Allocated
	row, err := s.SelectDim(x, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.NarrowDim(x, 0, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustRepr(t, s, row), "tensor([3., 4.], device='cuda:0')"; got != want {
		t.Errorf("x[1] = %s, want %s", got, want)
	}
	if got, want := mustRepr(t, s, rows), "tensor([[3., 4.],\n        [5., 6.]], device='cuda:0')"; got != want {
		t.Errorf("x[1:3] = %s, want %s", got, want)
	}
	if !row.SameStorage(x) || !rows.SameStorage(x) {
		t.Error("a view has a storage of its own")
	}
	if after := s.Measure().Devices[0].Allocated; after != before {
		t.Errorf("views allocated %d bytes", after-before)
	}
	_, err = s.SelectDim(x, 0, 3)
	wantErr(t, "x[3]", err, "IndexError: index 3 is out of bounds for dimension 0 with size 3")
	_, err = s.NarrowDim(x, 0, 2, 2)
	wantErr(t, "x.narrow(0, 2, 2)", err, "RuntimeError: start (2) + length (2) exceeds dimension size (3).")
	for _, v := range []*Tensor{row, rows} {
		if _, _, freed := s.Release(v); freed {
			t.Error("releasing a view freed its base's storage")
		}
	}
	if _, _, freed := s.Release(x); !freed {
		t.Error("releasing the last reference kept the storage")
	}
}

func TestViewInfersOneDimension(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, sixOnCUDA)
	v, err := s.View(x, []int64{-1, 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Shape, []int64{2, 3}) {
		t.Errorf("x.view(-1, 3) has shape %v, want [2 3]", v.Shape)
	}
	_, err = s.View(x, []int64{4, -1})
	wantErr(t, "x.view(4, -1)", err, "RuntimeError: shape '[4, -1]' is invalid for input of size 6")
}

func TestOpChecksNumbersAndKeepsItsArguments(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, sixOnCUDA)
	for _, c := range []struct {
		op   string
		args []*Tensor
		want string
	}{
		{"relu", []*Tensor{Scalar()}, "TypeError: relu(): argument 'input' must be Tensor, not a number"},
		{"add", []*Tensor{Scalar(), Scalar()}, "TypeError: add(): argument 'input' must be Tensor, not a number"},
		{"lt", []*Tensor{x, Scalar(), Scalar()}, "TypeError: lt() takes at most 2 arguments (3 given)"},
		{"frobnicate", []*Tensor{x}, `RuntimeError: unknown operation "frobnicate"`},
	} {
		_, err := s.Op(c.op, c.args...)
		wantErr(t, c.op, err, c.want)
	}
	y, err := s.Op("mul", x, Scalar())
	if err != nil {
		t.Fatal(err)
	}
	if y.SameStorage(x) || !slices.Equal(y.Shape, x.Shape) {
		t.Errorf("x * 2 is %s over x's storage: %v", y.Describe(), y.SameStorage(x))
	}
	s.Release(y)
	if _, _, freed := s.Release(x); !freed {
		t.Error("an op kept a reference to its argument")
	}
}

func TestEmptyCacheAndResetPeak(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{1 << 20}, DType: Float32, Device: cuda0})
	s.Release(x)
	d := s.Measure().Devices[0]
	if d.Allocated != 0 || d.Reserved == 0 || d.MaxAllocated != 4<<20 {
		t.Fatalf("after a freed 4 MiB tensor: allocated %d, reserved %d, peak %d", d.Allocated, d.Reserved, d.MaxAllocated)
	}
	if err := s.EmptyCache(); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetPeak(0); err != nil {
		t.Fatal(err)
	}
	d = s.Measure().Devices[0]
	if d.Reserved != 0 || d.MaxAllocated != 0 || d.MaxReserved != 0 {
		t.Errorf("after empty_cache and reset: reserved %d, peaks %d and %d", d.Reserved, d.MaxAllocated, d.MaxReserved)
	}
}

func TestSetDeviceAndFraction(t *testing.T) {
	s := newTestSession(t, 2)
	if err := s.SetDevice(1); err != nil {
		t.Fatal(err)
	}
	if s.CurrentDevice() != 1 || !s.Measure().Devices[1].Inited || s.Measure().Devices[0].Inited {
		t.Errorf("set_device(1): current %d, inited %v", s.CurrentDevice(), s.Measure().Devices)
	}
	wantErr(t, "set_device(2)", s.SetDevice(2), "torch.AcceleratorError: CUDA error: invalid device ordinal: cuda:2 (this session has 2 device(s))")
	if err := s.SetFraction(0.5, 0); err != nil {
		t.Fatal(err)
	}
	half := int64(Presets["h200"].Total / 2 / 4)
	_, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{half}, DType: Float32, Device: cuda0})
	var oom *allocator.OutOfMemoryError
	if !errors.As(err, &oom) {
		t.Errorf("half the device under a fraction of 0.5: %v, want an out-of-memory error", err)
	}
}

func TestSavedSnapshotLoadsBack(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{3 << 20}, DType: Float32, Device: cuda0})
	mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{1 << 20}, DType: Float32, Device: cuda0})
	s.Release(x)
	path := filepath.Join(t.TempDir(), "snap.pickle")
	if err := s.SaveSnapshot(path, 0); err != nil {
		t.Fatal(err)
	}
	r := newTestSession(t, 1)
	l, err := r.LoadHistory(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Measure().Devices[0].Allocated; got != 4<<20 {
		t.Errorf("loaded %d bytes still allocated, want the one live tensor's %d", got, 4<<20)
	}
	r.FreeLoaded(l)
	if got := r.Measure().Devices[0].Allocated; got != 0 {
		t.Errorf("after FreeLoaded %d bytes allocated", got)
	}
}
