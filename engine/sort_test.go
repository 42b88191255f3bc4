package engine

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// probeShape reads "(2, 8192)" or "(1000,)" as a shape.
func probeShape(t *testing.T, s string) []int64 {
	t.Helper()
	var shape []int64
	for _, f := range strings.Split(strings.Trim(s, "()"), ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			shape = append(shape, n)
		}
	}
	return shape
}

// eventsOf runs op on a fresh simulated H200 over a new tensor of shape
// and dtype, and returns the allocator's events of op alone, as
// eventsSince writes them.
func eventsOf(t *testing.T, shape []int64, dt DType, op func(s *Session, x *Tensor) error) string {
	t.Helper()
	return eventsOfSpec(t, TensorSpec{Op: "rand", Shape: shape, DType: dt, Device: cuda0}, op)
}

// eventsOfSpec is eventsOf over a tensor made as spec says.
func eventsOfSpec(t *testing.T, spec TensorSpec, op func(s *Session, x *Tensor) error) string {
	t.Helper()
	s := newTestSession(t, 1)
	x := mustTensor(t, s, spec)
	seen := len(s.History(0))
	if err := op(s, x); err != nil {
		t.Fatal(err)
	}
	return eventsSince(s, seen)
}

// asEventsSince writes sort_probe.txt's events (a4096, F4096) as
// eventsSince does.
func asEventsSince(evs []string) string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = map[byte]string{'a': "aa", 'F': "fc"}[e[0]] + e[1:]
	}
	return strings.Join(out, " ")
}

// TestSortAndTopkTable: sort of one segment over 11 lengths (100 to 10^7)
// and 7 dtypes, of 14 shapes along either dimension (in place up to
// 4096; one radix sort of all pairs under 128 segments; CUB's segmented
// sort; a segment of a million or more alone), and topk of 20 shapes, k
// and dimensions (one block a slice, or the multi-block search) make on
// the simulated H200 every allocation and free PyTorch's made, in order
// (scripts/probe_sort.py's table, testdata/pyrules/sort_probe.txt).
func TestSortAndTopkTable(t *testing.T) {
	sortOne := regexp.MustCompile(`^sort of (\d+) float32$`)
	sortType := regexp.MustCompile(`^sort of 2\^20 (\w+)$`)
	sortDim := regexp.MustCompile(`^sort of (\(.*\)) along (\d)$`)
	topk := regexp.MustCompile(`^topk (\d+) of (\(.*\)) along (\d)$`)
	checked := 0
	for label, want := range probeEvents(t) {
		var shape []int64
		dt, dim, k := Float32, int64(-1), int64(0)
		if m := sortOne.FindStringSubmatch(label); m != nil {
			shape = probeShape(t, m[1])
		} else if m := sortType.FindStringSubmatch(label); m != nil {
			shape, dt = []int64{1 << 20}, DTypes[m[1]]
		} else if m := sortDim.FindStringSubmatch(label); m != nil {
			shape, dim = probeShape(t, m[1]), int64(m[2][0]-'0')
		} else if m := topk.FindStringSubmatch(label); m != nil {
			k, _ = strconv.ParseInt(m[1], 10, 64)
			shape, dim = probeShape(t, m[2]), int64(m[3][0]-'0')
		} else {
			continue
		}
		got := eventsOf(t, shape, dt, func(s *Session, x *Tensor) error {
			var err error
			if k > 0 {
				_, err = s.Topk(x, k, dim, true, true)
			} else {
				_, err = s.Sort(x, dim, false)
			}
			return err
		})
		if w := asEventsSince(want); got != w {
			t.Errorf("%s:\n got  %s\n want %s", label, got, w)
		}
		checked++
	}
	if checked != 52 {
		t.Errorf("%d probes checked, want 52", checked)
	}
}
