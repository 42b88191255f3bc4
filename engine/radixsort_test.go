package engine

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRadixSortScratchTable: radixSortScratch gives, for every row of
// scripts/probe_radix_sort.py's table (testdata/pyrules/
// radix_sort_probe.txt: index_put_'s sort of n indices into numel
// elements of slice elements each, on the H200), the scratch CUB asked
// for, and indexSortScratch the same for a tensor of numel elements
// indexed before its last dimension of slice.
func TestRadixSortScratchTable(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "pyrules", "radix_sort_probe.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fields := strings.Fields(sc.Text())
		var v [4]uint64
		for i := range v {
			if v[i], err = strconv.ParseUint(fields[i], 10, 64); err != nil {
				t.Fatalf("row %q: %v", sc.Text(), err)
			}
		}
		numel, slice, n, want := v[0], v[1], v[2], v[3]
		if got := radixSortScratch(n, (numel-1)/slice); got != want {
			t.Errorf("%s: scratch %d, CUB's %d", sc.Text()[:strings.Index(sc.Text(), " | ")], got, want)
		}
		shape := []int64{int64(numel / slice), int64(slice)}
		if got, err := indexSortScratch(n, shape, 1); got != want || err != nil {
			t.Errorf("indexSortScratch(%d, %v, 1) = %d, %v; CUB's %d", n, shape, got, err, want)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 200 {
		t.Errorf("%d rows read, the table has more than 200", rows)
	}
}

// TestIndexSortRefusals: sorts past what the table measured (more than
// 2^24 indices, keys of more than 32 bits), and past one tile into an
// empty tensor, are refused; one tile into one is 1 byte.
func TestIndexSortRefusals(t *testing.T) {
	for _, c := range []struct {
		n     uint64
		shape []int64
	}{
		{maxSortProbed + 1, []int64{1024}},
		{maxSortProbed, []int64{1 << 33}},
		{maxOneTileSort + 1, []int64{0, 4}},
	} {
		if _, err := indexSortScratch(c.n, c.shape, 1); err == nil || !strings.Contains(err.Error(), "is not modelled by gpumemrepl") {
			t.Errorf("indexSortScratch(%d, %v): %v, want a refusal", c.n, c.shape, err)
		}
	}
	if got, err := indexSortScratch(maxSortProbed, []int64{1 << 32, 1}, 1); err != nil || got != radixSortScratch(maxSortProbed, 1<<32-1) {
		t.Errorf("32-bit keys: %d, %v", got, err)
	}
	if got, err := indexSortScratch(maxOneTileSort, []int64{0, 4}, 1); got != 1 || err != nil {
		t.Errorf("one tile into no elements: %d, %v; want 1 byte", got, err)
	}
}
