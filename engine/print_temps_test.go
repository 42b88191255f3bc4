package engine

import (
	"fmt"
	"strings"
	"testing"
)

// eventsDuring runs f on s and returns cuda:0's allocations and frees
// meanwhile, as eventsSince writes them.
func eventsDuring(t *testing.T, s *Session, f func() error) string {
	t.Helper()
	before := len(s.History(0))
	if err := f(); err != nil {
		t.Fatal(err)
	}
	return eventsSince(s, before)
}

// cubScratch is scripts/probe_cub.py's recording; cubScanDTypes its
// --scan-dtypes one.
const (
	cubScratch    = "../testdata/cub_scratch.jsonl.gz"
	cubScanDTypes = "../testdata/cub_scan_dtypes.jsonl.gz"
)

// cubRow is one op of cubScratch: its events during the op, then the
// next row's setup.
type cubRow struct {
	Op     string   `json:"op"`
	DType  string   `json:"dtype"`
	N      uint64   `json:"n"`
	K      uint64   `json:"k"`
	Events [][2]any `json:"events"`
}

// events are r's allocations and frees as eventsSince writes them.
func (r cubRow) events() string {
	var out []string
	for _, e := range r.Events {
		switch e[0] {
		case "alloc":
			out = append(out, fmt.Sprint("aa", uint64(e[1].(float64))))
		case "free_completed":
			out = append(out, fmt.Sprint("fc", uint64(e[1].(float64))))
		}
	}
	return strings.Join(out, " ")
}

// replayCub sets op up for each of file's rows of op, on a fresh
// session, runs what setup returns and checks that it allocates and
// frees what PyTorch did, in order, and that its figures are exact; it
// returns how many rows it checked.
func replayCub(t *testing.T, file, op string, setup func(s *Session, r cubRow) func() error) int {
	t.Helper()
	checked := 0
	for _, r := range readRows[cubRow](t, file) {
		if r.Op != op {
			continue
		}
		s := newTestSession(t, 1)
		got := eventsDuring(t, s, setup(s, r))
		if want := r.events(); !strings.HasPrefix(want+" ", got+" ") {
			t.Fatalf("%s %s of %d (%d picked): %s, PyTorch's %s", r.DType, op, r.N, r.K, got, want)
		}
		if !s.Tier().Exact() {
			t.Fatalf("%s %s of %d (%d picked): estimated, want exact", r.DType, op, r.N, r.K)
		}
		checked++
	}
	return checked
}

// TestCumsumScanScratch replays probe_cub's 1-d cumsums on the H200:
// torch.cumsum of each recorded count of float32 (every one from 1 to
// 4096, some to 10^7) and int64 makes its output, then CUB's scratch;
// and --scan-dtypes' on the H100: cumsum and cumprod of float16,
// bfloat16, float64 and int64, and float32's cumprod, every count to
// 4096 and some to 10^7, make theirs, exact.
func TestCumsumScanScratch(t *testing.T) {
	scan := func(op string) func(s *Session, r cubRow) func() error {
		return func(s *Session, r cubRow) func() error {
			x, err := s.alloc([]int64{int64(r.N)}, DTypes[r.DType], cuda0)
			if err != nil {
				t.Fatal(err)
			}
			return func() error {
				y, err := s.Run(Ops[op], Args{x, int64(0)})
				if err == nil {
					s.dropTensor(y)
				}
				return err
			}
		}
	}
	if n := replayCub(t, cubScratch, "cumsum", scan("cumsum")); n < 4096 {
		t.Errorf("%d cumsum rows checked", n)
	}
	sums, prods := replayCub(t, cubScanDTypes, "cumsum", scan("cumsum")), replayCub(t, cubScanDTypes, "cumprod", scan("cumprod"))
	if sums != 4*4110 || prods != 5*4110 {
		t.Errorf("--scan-dtypes: %d cumsum and %d cumprod rows checked, want %d and %d", sums, prods, 4*4110, 5*4110)
	}
}

// TestMaskedSelectScratch replays scripts/probe_cub.py's recording of
// torch.masked_select on the H200 (testdata/cub_scratch.jsonl.gz): for
// every element count from 1 to 4096 and some to 10^7, with every count
// of picked elements recorded and in every float dtype, the formatter's
// masked_select allocates and frees what PyTorch's did, in order (the
// recording then frees the result, as the test does).
func TestMaskedSelectScratch(t *testing.T) {
	n := replayCub(t, cubScratch, "masked_select", func(s *Session, r cubRow) func() error {
		return func() error {
			p := &printAllocs{s: s, dev: cuda0, size: DTypes[r.DType].Size}
			p.free(p.maskedSelect(r.N, r.K))
			return p.err
		}
	})
	if n < 2*4096 {
		t.Errorf("%d masked_select rows checked", n)
	}
}

// TestPrintUnknownValues: printing a CUDA tensor of a floating dtype
// whose values the tool does not know, where some values could raise
// the peak, is an estimate that takes the temporaries of the values that
// take the most (under Options.Strict: refused, before anything is
// allocated), and takes nothing where no values could, an estimate of
// the memory history only (under Options.Strict: exact, its figures
// PyTorch's whatever the values); an integer one's
// temporaries follow from its layout (a transposed one: reshape's copy,
// then each row's copy for tolist).
func TestPrintUnknownValues(t *testing.T) {
	strict, err := NewSession(Options{Preset: Presets["h200"], FakeHost: true, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	y, err := strict.alloc([]int64{3, 4}, Float32, cuda0)
	if err != nil {
		t.Fatal(err)
	}
	before := len(strict.History(0))
	_, err = strict.Repr(y)
	wantErr(t, "print(torch.empty(3, 4))", err, "NotImplementedError: printing a CUDA float32 tensor of unknown values where PyTorch's formatter, which allocates by the values (up to 3.00 KiB at once), could raise the peak or take a new segment is not modelled by gpumemrepl")
	if after := len(strict.History(0)); after != before || !strict.Tier().Exact() {
		t.Errorf("a refused print made %d allocator events, or an estimate", after-before)
	}
	s := newTestSession(t, 1)
	x, err := s.alloc([]int64{3, 4}, Float32, cuda0)
	if err != nil {
		t.Fatal(err)
	}
	if got := eventsDuring(t, s, func() error { _, err := s.Repr(x); return err }); got == "" || s.Tier().Exact() || !strings.HasPrefix(s.Tier().First.String(), "print of [3, 4] float32: its values are unknown") {
		t.Errorf("an estimated print made allocator events %q, tier %+v", got, s.Tier())
	}
	// under a peak 1 MiB higher, and with the small pool's segment
	// mostly free, no values could change a figure: the print takes
	// nothing, and its estimate says the history leaves them out
	for _, s := range []*Session{s, strict} {
		big, err := s.alloc([]int64{1 << 20}, DTypes["uint8"], cuda0)
		if err != nil {
			t.Fatal(err)
		}
		s.dropTensor(big)
	}
	estimates := s.Tier().Estimates
	got := eventsDuring(t, s, func() error {
		_, err := s.Repr(x)
		return err
	})
	if got != "" || s.Tier().Estimates != estimates+1 || !strings.HasSuffix(s.tiers.step[len(s.tiers.step)-1].Cause, "the memory history and the allocation counts leave those temporaries out") {
		t.Errorf("a print that cannot change a figure made allocator events %s, estimates %v", got, s.tiers.step)
	}
	if _, err := strict.Repr(y); err != nil || !strict.Tier().Exact() {
		t.Errorf("under --strict, a print that cannot change a figure: %v, tier %+v", err, strict.Tier())
	}
	i, err := s.alloc([]int64{3, 4}, DTypes["int64"], cuda0)
	if err != nil {
		t.Fatal(err)
	}
	var r string
	got = eventsDuring(t, s, func() error {
		r, err = s.Repr(s.Transpose(i, 0, 1))
		return err
	})
	if want := "aa96 fc96 aa24 fc24 aa24 fc24 aa24 fc24 aa24 fc24"; got != want {
		t.Errorf("print(i.t()): %s, want %s", got, want)
	}
	if !strings.Contains(r, "values not computed") {
		t.Errorf("print(i.t()) = %s", r)
	}
}
