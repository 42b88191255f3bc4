package engine

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestInt64ScanScratchTable replays scripts/probe_mask_scan.py's
// recording on the H200 (testdata/pyrules/mask_scan_probe.txt): at every
// element count it measured, from 1 to 2^22 (the first counts at which
// the scratch grows and the one before each among them),
// masked_scatter_'s temporaries of an all-true mask (the int64 offsets,
// then CUB's scan scratch) and a 1-d int64 cumsum (its output, then the
// same scratch) allocate what PyTorch's did, in order.
func TestInt64ScanScratchTable(t *testing.T) {
	f, err := os.Open("../testdata/pyrules/mask_scan_probe.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checked := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			t.Fatalf("bad row %q", sc.Text())
		}
		op := fields[0]
		n, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, f := range fields[2:] {
			want = append(want, "aa"+f)
		}
		s := newTestSession(t, 1)
		var run func() error
		switch op {
		case "masked_scatter_":
			src, err := s.alloc([]int64{int64(n)}, Float32, cuda0)
			if err != nil {
				t.Fatal(err)
			}
			run = func() error { return s.maskedScatterTemps(src, n, false) }
		case "cumsum_int64":
			x, err := s.alloc([]int64{int64(n)}, DTypes["int64"], cuda0)
			if err != nil {
				t.Fatal(err)
			}
			run = func() error {
				_, err := s.Run(Ops["cumsum"], Args{x, int64(0)})
				return err
			}
		default:
			t.Fatalf("unknown probe %q", op)
		}
		var got []string
		for _, e := range strings.Fields(eventsDuring(t, s, run)) {
			if strings.HasPrefix(e, "aa") {
				got = append(got, e)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s of %d: allocated %v, PyTorch %v", op, n, got, want)
		}
		checked[op]++
	}
	if checked["masked_scatter_"] < 50 || checked["cumsum_int64"] < 50 {
		t.Errorf("rows checked: %v", checked)
	}
}

// TestMaskedSelectBackwardRefusals: masked_select's backward past the
// scan sizes measured, of a tensor that is not contiguous, or of an
// empty one, and a bool mask's backward on the host or of more than
// 2^24 true elements (radix_sort_probe.txt measured up to there), are
// refused plainly, before anything is allocated.
func TestMaskedSelectBackwardRefusals(t *testing.T) {
	s := newTestSession(t, 1)
	g, err := s.alloc([]int64{8}, Float32, cuda0)
	if err != nil {
		t.Fatal(err)
	}
	nd := &node{inputs: []edge{{shape: []int64{8}}}}
	for _, c := range []struct {
		bw   backward
		grad *Tensor
		want string
	}{
		{maskedSelectBackward([]int64{1<<22 + 1}, true, false), g, "the backward of torch.masked_select over more than 4194304 elements (CUB's scan, measured up to there)"},
		{maskedSelectBackward([]int64{4, 4}, false, false), g, "the backward of torch.masked_select of a tensor that is not contiguous"},
		{maskedSelectBackward([]int64{0, 4}, true, false), g, "the backward of torch.masked_select of an empty tensor"},
		{maskIndexBackward([]int64{8}, make([]float64, 8), maxSortProbed+1), g, "the backward of indexing by 16777217 indices into 8 elements (CUB's radix sort was measured up to 16777216 indices and 32-bit keys)"},
		{maskIndexBackward([]int64{8}, make([]float64, 8), 1), &Tensor{Shape: []int64{8}, DType: Float32, st: &storage{}}, "the backward of indexing by a bool mask on the host"},
	} {
		before := len(s.History(0))
		_, err := c.bw(s, nd, c.grad)
		wantErr(t, c.want, err, pyText(NotModelledError(c.want)))
		if after := len(s.History(0)); after != before {
			t.Errorf("%s: %d allocator events before the refusal", c.want, after-before)
		}
	}
}
