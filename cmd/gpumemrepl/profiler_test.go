package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// What PyTorch's memory profiler says of a training program at its peak,
// from a scripts/record_profiler.py recording (testdata/models/README.md).

// profBlock is a block live at the peak: its size and the category
// PyTorch's profiler gives it ("(no tensor)" for an allocation it ties to
// no tensor, a library workspace; "(no category)" for a tensor it sorts
// into none).
type profBlock struct {
	Bytes    uint64
	Category string
}

// profilerPeak reads a record_profiler.py recording: cuda:0's peak of
// allocated bytes (the first allocation event that reached it), what the
// profiler's memory timeline puts in each category then, and the blocks
// live then by which allocation made them (counted from 0).
func profilerPeak(t *testing.T, path string) (uint64, map[string]uint64, map[int]profBlock) {
	t.Helper()
	var rec struct {
		Allocations [][5]*int64        `json:"allocations"` // time_ns, allocation_id, size, total_allocated, ptr
		Timeline    [][6]any           `json:"timeline"`    // time_ns, action, allocation_id, tensor_id, version, bytes
		Categories  map[string]*string `json:"categories"`  // "tensor_id:version"
	}
	decodeGzipJSON(t, path, &rec)
	// The peak, and the blocks then.
	peakAt, total := -1, int64(0)
	var peak int64
	for i, a := range rec.Allocations {
		if total += *a[2]; total != *a[3] {
			t.Fatalf("%s: allocation %d: total_allocated %d, the sizes add up to %d", path, i, *a[3], total)
		}
		if total > peak {
			peak, peakAt = total, i
		}
	}
	type live struct {
		ordinal int
		size    int64
		id      *int64
	}
	byPtr := map[int64]live{}
	n := 0
	for _, a := range rec.Allocations[:peakAt+1] {
		if *a[2] > 0 {
			byPtr[*a[4]] = live{n, *a[2], a[1]}
			n++
		} else {
			delete(byPtr, *a[4])
		}
	}
	// The timeline to the peak: each category's bytes, and each
	// allocation's tensor version.
	tPeak := float64(*rec.Allocations[peakAt][0])
	category := func(tid, version float64) string {
		c, ok := rec.Categories[fmt.Sprintf("%d:%d", int64(tid), int64(version))]
		if !ok || c == nil {
			return "(no category)"
		}
		return *c
	}
	cats := map[string]uint64{}
	version := map[int64][2]float64{}
	for _, e := range rec.Timeline {
		if e[0].(float64) > tPeak {
			break
		}
		action, nbytes := e[1].(string), uint64(e[5].(float64))
		c := "(no tensor)"
		var id int64
		if e[2] != nil {
			id = int64(e[2].(float64))
			c = category(e[3].(float64), e[4].(float64))
		}
		switch action {
		case "CREATE", "PREEXISTING":
			cats[c] += nbytes
			if e[2] != nil {
				version[id] = [2]float64{e[3].(float64), e[4].(float64)}
			}
		case "INCREMENT_VERSION":
			if e[2] != nil {
				cats[c] -= nbytes
				cats[category(e[3].(float64), e[4].(float64)+1)] += nbytes
				version[id] = [2]float64{e[3].(float64), e[4].(float64) + 1}
			}
		case "DESTROY":
			cats[c] -= nbytes
			delete(version, id)
		}
	}
	blocks := map[int]profBlock{}
	for _, l := range byPtr {
		c := "(no tensor)"
		if l.id != nil {
			v, ok := version[*l.id]
			if !ok {
				t.Fatalf("%s: allocation %d is live at the peak but not on the timeline", path, l.ordinal)
			}
			c = category(v[0], v[1])
		}
		blocks[l.ordinal] = profBlock{uint64(l.size), c}
	}
	return uint64(peak), cats, blocks
}

// sameCategory is, for each of gpumemrepl's categories, PyTorch's that
// means the same.
var sameCategory = map[string]string{
	"parameters":                     "PARAMETER",
	"gradients":                      "GRADIENT",
	"optimizer state":                "OPTIMIZER_STATE",
	"activations saved for backward": "ACTIVATION",
	"inputs":                         "INPUT",
	"temporaries":                    "TEMPORARY",
	"kernel workspaces":              "(no tensor)",
}

// peakBlock is a block of run --peak --json's breakdown.
type peakBlock struct {
	Alloc    int    `json:"alloc"`
	Bytes    uint64 `json:"bytes"`
	Category string `json:"category"`
	Name     string `json:"name"`
}

// compareWithProfiler holds the blocks of run --peak --json at the peak
// of program name to PyTorch's profiler's: the same allocations with the
// same sizes, categories that mean the same where PyTorch's are no
// heuristic (a workspace is what ties to no tensor, and the other way
// round; a parameter, a gradient or an optimizer's state is one there),
// and every pair of categories, with its bytes and blocks, a row of the
// manual's table.
func compareWithProfiler(t *testing.T, name string, allocated uint64, got []peakBlock, manual string) {
	peak, cats, want := profilerPeak(t, "../../testdata/models/"+name+".profile.json.gz")
	var sum uint64
	for _, b := range cats {
		sum += b
	}
	if allocated != peak || sum != peak {
		t.Errorf("peak allocated %d; PyTorch's profiler: peak %d, its categories add up to %d", allocated, peak, sum)
	}
	type pair struct{ ours, theirs string }
	bytes, blocks := map[pair]uint64{}, map[pair]int{}
	seen := map[int]bool{}
	for _, b := range got {
		w, ok := want[b.Alloc]
		if !ok || w.Bytes != b.Bytes {
			t.Errorf("allocation %d (%s, %d bytes) is live at the peak; PyTorch's: %v", b.Alloc, b.Name, b.Bytes, w)
			continue
		}
		seen[b.Alloc] = true
		// where PyTorch's flood of categories gives a block none, it
		// claims nothing; a module's buffer that no gradient reaches
		// (nanoGPT's causal mask) is an INPUT there and the module's
		// state with its parameters here
		claimed := w.Category != "(no category)" && (b.Category != "parameters" || w.Category != "INPUT")
		strict := b.Category == "kernel workspaces" || w.Category == "(no tensor)" || claimed && (b.Category == "parameters" || b.Category == "gradients") || b.Category == "optimizer state" || w.Category == "OPTIMIZER_STATE"
		if strict && sameCategory[b.Category] != w.Category {
			t.Errorf("allocation %d (%s, %d bytes): %s here, %s in PyTorch's profiler", b.Alloc, b.Name, b.Bytes, b.Category, w.Category)
		}
		p := pair{b.Category, w.Category}
		bytes[p] += b.Bytes
		blocks[p]++
	}
	for a, w := range want {
		if !seen[a] {
			t.Errorf("allocation %d (%d bytes, %s) is live at PyTorch's peak, not here", a, w.Bytes, w.Category)
		}
	}
	// The manual's table: a row for each pair, none for another.
	var rows []string
	for p := range bytes {
		rows = append(rows, fmt.Sprintf("| %s.py | %s | %s | %s | %d |", name, p.ours, p.theirs, thousands(bytes[p]), blocks[p]))
	}
	slices.Sort(rows)
	var have []string
	for _, l := range strings.Split(manual, "\n") {
		if strings.HasPrefix(l, "| "+name+".py | ") {
			cells := strings.SplitAfterN(l, "|", 7)
			have = append(have, strings.Join(cells[:6], ""))
		}
	}
	slices.Sort(have)
	if !slices.Equal(rows, have) {
		t.Errorf("docs/manual.md's rows for %s.py (program | here | PyTorch's profiler | bytes | blocks | why):\n%s\nwant:\n%s", name, strings.Join(have, "\n"), strings.Join(rows, "\n"))
	}
}

// decodeGzipJSON decodes the gzipped JSON file at path into v, or
// stops the test.
func decodeGzipJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(readGzip(t, path), v); err != nil {
		t.Fatal(err)
	}
}

// readGzip is the gunzipped content of the file at path, or stops the
// test.
func readGzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// thousands is n with commas.
func thousands(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
