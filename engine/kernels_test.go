package engine

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// readRows decodes every JSON line of a recording in testdata (gzipped
// when its name ends in .gz).
func readRows[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var in io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		in = z
	}
	var rows []T
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var r T
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// allocsDuring runs f on a fresh simulated H200 session after setup and
// returns the sizes cuda:0's allocator was asked for meanwhile.
func allocsDuring(t *testing.T, setup func(s *Session) []*Tensor, f func(s *Session, ts []*Tensor) error) []uint64 {
	t.Helper()
	s, err := NewSession(Options{Preset: Presets["h200"], FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := setup(s)
	before := len(s.History(0))
	if err := f(s, ts); err != nil {
		t.Fatal(err)
	}
	var sizes []uint64
	for _, e := range s.History(0)[before:] {
		if e.Action == "alloc" {
			sizes = append(sizes, e.Size)
		}
	}
	return sizes
}

var cuda0 = Device{CUDA: true}

// TestReductionTemps replays scripts/probe_reduce.py's recording: for
// every dtype, op and size PyTorch 2.11 reduced on the H200, x.sum() and
// x.mean() allocate what it allocated besides the output, in order.
func TestReductionTemps(t *testing.T) {
	type row struct {
		DType string   `json:"dtype"`
		Op    string   `json:"op"`
		N     uint64   `json:"n"`
		Temps []uint64 `json:"temps"`
	}
	rows := readRows[row](t, "../testdata/reduce_temps.jsonl")
	checked := 0
	for _, r := range rows {
		if r.Op == "" {
			continue
		}
		checked++
		got := allocsDuring(t, func(s *Session) []*Tensor {
			x, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{int64(r.N)}, DType: DTypes[r.DType], Device: cuda0})
			if err != nil {
				t.Fatal(err)
			}
			return []*Tensor{x}
		}, func(s *Session, ts []*Tensor) error {
			_, err := s.Op(r.Op, ts[0])
			return err
		})
		if len(got) == 0 || !slices.Equal(got[1:], r.Temps) && !(len(got) == 1 && len(r.Temps) == 0) {
			t.Errorf("%s.%s() of %d elements allocated %v after its output, PyTorch %v", r.DType, r.Op, r.N, got, r.Temps)
		}
	}
	if checked < 300 {
		t.Fatalf("only %d recorded reductions", checked)
	}
}

// TestLinearCublasLt replays scripts/probe_lt.py's recording: a Linear
// made on the GPU allocates, in its forward, the output, the cuBLAS
// workspace and (through cuBLASLt) its workspace exactly as PyTorch did.
func TestLinearCublasLt(t *testing.T) {
	type row struct {
		Rows   int64    `json:"rows"`
		In     int64    `json:"in"`
		Out    int64    `json:"out"`
		Bias   bool     `json:"bias"`
		DType  string   `json:"dtype"`
		Allocs []uint64 `json:"allocs"`
	}
	rows := readRows[row](t, "../testdata/cublaslt.jsonl")
	for _, r := range rows {
		if r.DType != "float32" {
			continue // Linear(dtype=) is float32 only here
		}
		got := allocsDuring(t, func(s *Session) []*Tensor {
			w, err := s.NewParameter([]int64{r.Out, r.In}, cuda0)
			if err != nil {
				t.Fatal(err)
			}
			var b *Tensor
			if r.Bias {
				if b, err = s.NewParameter([]int64{r.Out}, cuda0); err != nil {
					t.Fatal(err)
				}
			}
			x, err := s.NewTensor(TensorSpec{Op: "randn", Shape: []int64{r.Rows, r.In}, DType: Float32, Device: cuda0})
			if err != nil {
				t.Fatal(err)
			}
			return []*Tensor{x, w, b}
		}, func(s *Session, ts []*Tensor) error {
			_, err := s.Linear(ts[0], ts[1], ts[2])
			return err
		})
		if !slices.Equal(got, r.Allocs) {
			t.Errorf("Linear(%d, %d, bias=%v) on %d rows allocated %v, PyTorch %v", r.In, r.Out, r.Bias, r.Rows, got, r.Allocs)
		}
	}
}

// TestReductionInnerRecorded replays scripts/probe_reduce_inner.py's
// recordings (on an NVIDIA H100 80GB HBM3 lent for the H200): sum, mean,
// amax, max, argmax and var along the innermost dimension of more than
// 1024 elements, of a contiguous tensor (testdata/reduce_inner.jsonl)
// and of rows not contiguous with each other (--strided: x[:, k] of a
// [rows, 3, n] tensor, testdata/reduce_inner_strided.jsonl.gz), allocate,
// within the probed ranges (innerProbed, apartProbed), what PyTorch
// allocated, in order, and no figure is estimated; past them (2^20
// elements, where the kernel adds a buffer and semaphores) the tool
// estimates.
func TestReductionInnerRecorded(t *testing.T) {
	type row struct {
		Op     string   `json:"op"`
		DType  string   `json:"dtype"`
		Shape  []int64  `json:"shape"`
		Layout string   `json:"layout"`
		K      int64    `json:"k"`
		Allocs []uint64 `json:"allocs"`
	}
	for _, c := range []struct {
		file             string
		checked, outside int
	}{{"reduce_inner.jsonl", 840, 60}, {"reduce_inner_strided.jsonl.gz", 2160, 144}} {
		checked, outside := 0, 0
		for _, r := range readRows[row](t, "../testdata/"+c.file) {
			if r.Op == "" || r.Op == "logsumexp" { // logsumexp: a composite of its own
				continue
			}
			rows, n := r.Shape[0], r.Shape[1]
			probed := innerProbed(r.Op, DTypes[r.DType], n, rows)
			if r.Layout == "row_slice" {
				probed = apartProbed(r.Op, DTypes[r.DType], n, rows)
			}
			exact := true
			got := allocsDuring(t, func(s *Session) []*Tensor {
				if r.Layout != "row_slice" {
					x, err := s.NewTensor(TensorSpec{Op: "empty", Shape: r.Shape, DType: DTypes[r.DType], Device: cuda0})
					if err != nil {
						t.Fatal(err)
					}
					return []*Tensor{x}
				}
				whole, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{rows, 3, n}, DType: DTypes[r.DType], Device: cuda0})
				if err != nil {
					t.Fatal(err)
				}
				x, err := s.Run(Ops["select"], Args{whole, int64(1), r.K})
				if err != nil {
					t.Fatal(err)
				}
				return []*Tensor{x, whole}
			}, func(s *Session, ts []*Tensor) error {
				var dim any = int64(-1)
				if r.Op == "amax" {
					dim = []int64{-1}
				}
				d := Ops[r.Op]
				a := make(Args, len(d.Params))
				for i, p := range d.Params {
					a[i] = p.DefaultValue()
				}
				a[0], a[slices.IndexFunc(d.Params, func(p Param) bool { return p.Name == "dim" })] = ts[0], dim
				var err error
				if d.Tuple() {
					_, _, err = s.RunTuple(d, a)
				} else {
					_, err = s.Run(d, a)
				}
				exact = s.Tier().Exact()
				return err
			})
			switch {
			case probed && (!slices.Equal(got, r.Allocs) || !exact):
				t.Errorf("%s: %s.%s(dim=-1) of %v %s %d allocated %v (exact %v), PyTorch %v", c.file, r.DType, r.Op, r.Shape, r.Layout, r.K, got, exact, r.Allocs)
			case probed:
				checked++
			case exact:
				t.Errorf("%s: %s.%s(dim=-1) of %v %s %d, outside the probed range: exact, want estimated", c.file, r.DType, r.Op, r.Shape, r.Layout, r.K)
			default:
				outside++
			}
		}
		if checked != c.checked || outside != c.outside {
			t.Errorf("%s: %d recorded reductions in the probed range, %d outside; want %d and %d", c.file, checked, outside, c.checked, c.outside)
		}
	}
}

// TestRowsApart: a view is taken for rows apart (reduced as the strided
// probe recorded) only where its innermost elements are adjacent and its
// other dimensions step as one dimension of rows that do not overlap.
func TestRowsApart(t *testing.T) {
	s, err := NewSession(Options{Preset: Presets["h200"], FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{4, 3, 2, 1100}, DType: DTypes["float32"], Device: cuda0})
	if err != nil {
		t.Fatal(err)
	}
	view := func(x *Tensor, err error) *Tensor {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	row := view(s.SelectDim(whole, 1, 2)) // [4, 2, 1100], rows 1100 apart in pairs 6600 apart
	last := view(s.SelectDim(row, 1, 1))  // [4, 1100], rows 6600 apart
	for _, c := range []struct {
		name string
		x    *Tensor
		want bool
	}{
		{"x[:, 2, 1]", last, true},
		{"x[:, 2]", row, false},
		{"x[:, 2, 1][1:3]", view(s.NarrowDim(last, 0, 1, 2)), true},
		{"x[:, 2, 1][:, :1000]", view(s.NarrowDim(last, 1, 0, 1000)), true},
		{"x[:, 2, 1].t()", s.Transpose(last, 0, 1), false},
		{"x[:1, 2, 1]", view(s.NarrowDim(last, 0, 0, 1)), true},
	} {
		if got := rowsApart(c.x, len(c.x.Shape)-1); got != c.want {
			t.Errorf("%s (shape %v, strides %v): rows apart %v, want %v", c.name, c.x.Shape, c.x.Strides(), got, c.want)
		}
	}
}
