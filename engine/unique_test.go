package engine

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// uniqueProbeRow is one row of testdata/pyrules/unique_probe.txt: what
// ran, over how many elements, and the allocator's events of the call.
type uniqueProbeRow struct {
	what   string
	n      int64
	events []string
}

func uniqueProbe(t *testing.T) []uniqueProbeRow {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "pyrules", "unique_probe.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []uniqueProbeRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), " | ")
		if len(parts) != 3 {
			continue
		}
		n, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, uniqueProbeRow{parts[0], n, strings.Fields(parts[2])})
	}
	return rows
}

// TestUniqueProbeTable: unique and unique_consecutive (with and without
// the inverse and the counts, int64, float32 and int32), randperm and
// the indices of repeat_interleave by int64 and int32 counts, from 1 to
// 2^22 elements around the tiles of CUB's kernels, and multinomial of a
// 1-d input, of one row with replacement and of rows too short for
// topk's multi-block kernel, make on the
// simulated H200 every allocation and free PyTorch's made, in order
// (scripts/probe_unique.py's table, testdata/pyrules/unique_probe.txt,
// recorded on the H100 lent for the H200).
func TestUniqueProbeTable(t *testing.T) {
	checked := 0
	for _, r := range uniqueProbe(t) {
		fields := strings.Fields(r.what)
		var op func(s *Session, x *Tensor) error
		dt := DTypes["int64"]
		switch fields[0] {
		case "unique", "unique_consecutive":
			dt = DTypes[strings.TrimPrefix(fields[len(fields)-1], "torch.")]
			inverse, counts := strings.Contains(r.what, "inverse"), strings.Contains(r.what, "counts")
			op = func(s *Session, x *Tensor) error {
				_, _, err := s.unique(fields[0], x, fields[0] == "unique_consecutive", inverse, counts, nil)
				return err
			}
		case "randperm":
			op = func(s *Session, _ *Tensor) error {
				out, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{r.n}, DType: dt, Device: cuda0})
				if err == nil {
					err = s.randpermTemps(out)
				}
				return err
			}
		case "repeat_interleave":
			if fields[len(fields)-1] == "int32" {
				dt = DTypes["int32"]
			}
			op = func(s *Session, counts *Tensor) error {
				_, err := s.interleaveIndices(counts, r.n, nil)
				return err
			}
		case "multinomial": // multinomial [ROWS, COLS] K replacement=BOOL
			shape := probeShape(t, strings.NewReplacer("[", "(", "]", ")").Replace(strings.Join(fields[1:len(fields)-2], " ")))
			k, _ := strconv.ParseInt(fields[len(fields)-2], 10, 64)
			repl := fields[len(fields)-1] == "replacement=True"
			got := eventsOfSpec(t, TensorSpec{Op: "rand", Shape: shape, DType: Float32, Device: cuda0}, func(s *Session, p *Tensor) error {
				_, err := s.multinomial(p, k, repl, nil)
				return err
			})
			if w := asEventsSince(r.events); got != w {
				t.Errorf("%s:\n got  %s\n want %s", r.what, got, w)
			}
			checked++
			continue
		default:
			continue
		}
		spec := TensorSpec{Op: "rand", Shape: []int64{r.n}, DType: dt, Device: cuda0}
		if fields[0] != "unique" && fields[0] != "unique_consecutive" {
			spec.Op = "ones" // repeat_interleave's counts: their sum is known
		}
		got := eventsOfSpec(t, spec, op)
		if w := asEventsSince(r.events); got != w {
			t.Errorf("%s of %d:\n got  %s\n want %s", r.what, r.n, got, w)
		}
		checked++
	}
	if checked != 642 {
		t.Errorf("%d probes checked, want 642", checked)
	}
}
