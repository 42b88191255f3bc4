package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// Mismatch is the first difference between a replay and the recording.
type Mismatch struct {
	Op        int
	Key       string
	Want, Got string
}

func (m *Mismatch) String() string {
	return fmt.Sprintf("op %d: %s: want %s, got %s", m.Op, m.Key, m.Want, m.Got)
}

// Result is a checked replay.
type Result struct {
	Ops      int       // ops replayed
	Compared int       // values compared
	First    *Mismatch // nil when everything matched
}

var keyIndex = func() map[string]int {
	m := make(map[string]int, len(allocator.StatKeys))
	for i, k := range allocator.StatKeys {
		m[k] = i
	}
	return m
}()

// The OOM text names other processes that shared the GPU, and the device's
// free memory depends on them: neither says anything about the allocator.
var (
	procSentence = regexp.MustCompile(`(Process \d+|Including non-PyTorch memory, this process) has [0-9.]+ [KMG]?i?B(ytes)? memory in use\. `)
	freeFigure   = regexp.MustCompile(`of which [0-9.]+ (bytes|KiB|MiB|GiB) is free`)
)

// NormalizeOOM drops what an OOM message says about other processes.
func NormalizeOOM(s string) string {
	s = procSentence.ReplaceAllString(s, "")
	return freeFigure.ReplaceAllString(s, "of which * is free")
}

// Compare says what Check compares besides the OOM errors.
type Compare struct {
	Layouts bool     // the recorded layouts
	Keys    []string // the memory_stats() keys with one of these prefixes; every key when empty
	// Progress, when set, is the replay's progress hook.
	Progress func(done, total int)
}

// All compares everything recorded.
var All = Compare{Layouts: true}

// Check replays t through a and compares what c asks for with what was
// recorded.
func Check(t *Trace, a *allocator.Allocator, c Compare) (Result, error) {
	var res Result
	var stats [allocator.NumStatKeys]int64
	expect := expectByOp(t)
	found := errors.New("mismatch found")
	r := NewReplayer(t, a)
	r.Progress = c.Progress
	err := r.Run(func(i int, oom error) error {
		res.Ops++
		if want := expect[i]; want != nil {
			st := a.Stats()
			st.Values(&stats)
			if res.First = c.compareRow(i, want, &stats, oom, &res.Compared); res.First != nil {
				return found
			}
		}
		if want, ok := t.Layouts[strconv.Itoa(i)]; ok && c.Layouts {
			res.Compared++
			if res.First = CompareLayout(i, want, Layout(a)); res.First != nil {
				return found
			}
		}
		return nil
	})
	if errors.Is(err, found) {
		err = nil
	}
	return res, err
}

func (c Compare) wants(key string) bool {
	if len(c.Keys) == 0 {
		return true
	}
	for _, p := range c.Keys {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// expectByOp indexes a trace's expected rows by their "i" (a long trace
// records only some ops).
func expectByOp(t *Trace) []map[string]any {
	byOp := make([]map[string]any, len(t.Ops))
	for k, row := range t.Expect {
		i := k
		if n, ok := row["i"].(json.Number); ok {
			if v, err := n.Int64(); err == nil {
				i = int(v)
			}
		}
		if i >= 0 && i < len(byOp) {
			byOp[i] = row
		}
	}
	return byOp
}

func (c Compare) compareRow(i int, want map[string]any, got *[allocator.NumStatKeys]int64, oom error, n *int) *Mismatch {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := want[k]
		switch k {
		case "i":
			continue
		case "error":
			*n++
			w, _ := v.(string)
			g := ""
			if oom != nil {
				g = oom.Error()
			}
			if NormalizeOOM(w) != NormalizeOOM(g) {
				return &Mismatch{Op: i, Key: "error", Want: strconv.Quote(w), Got: strconv.Quote(g)}
			}
			continue
		}
		idx, ok := keyIndex[k]
		if !ok || !c.wants(k) {
			continue // a key of a later PyTorch, or one not asked for
		}
		*n++
		num, _ := v.(json.Number)
		w, err := num.Int64()
		if err != nil || w != got[idx] {
			return &Mismatch{Op: i, Key: k, Want: fmt.Sprint(v), Got: strconv.FormatInt(got[idx], 10)}
		}
	}
	if _, ok := want["error"]; !ok && oom != nil {
		return &Mismatch{Op: i, Key: "error", Want: "no error", Got: strconv.Quote(oom.Error())}
	}
	return nil
}

// Layout is a's snapshot in the recorded form: block offsets relative to
// their segment, segments sorted by pool, size and block sizes (real
// addresses differ from run to run).
func Layout(a *allocator.Allocator) []Segment {
	var out []Segment
	for _, s := range a.Snapshot() {
		seg := Segment{Pool: "large", TotalSize: s.TotalSize, AllocatedSize: s.AllocatedSize, RequestedSize: s.RequestedSize}
		if s.Small {
			seg.Pool = "small"
		}
		for _, b := range s.Blocks {
			seg.Blocks = append(seg.Blocks, []any{b.Address - s.Address, b.Size, b.State, b.RequestedSize})
		}
		out = append(out, seg)
	}
	return SortLayout(out)
}

// SortLayout sorts segments as recorded layouts are: by pool, size and
// block sizes.
func SortLayout(out []Segment) []Segment {
	slices.SortStableFunc(out, func(x, y Segment) int {
		if c := strings.Compare(x.Pool, y.Pool); c != 0 {
			return c
		}
		if x.TotalSize != y.TotalSize {
			return cmpU(x.TotalSize, y.TotalSize)
		}
		for k := 0; k < len(x.Blocks) && k < len(y.Blocks); k++ {
			if c := cmpU(blockSize(x.Blocks[k]), blockSize(y.Blocks[k])); c != 0 {
				return c
			}
		}
		return len(x.Blocks) - len(y.Blocks)
	})
	return out
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func blockSize(b []any) uint64 {
	switch v := b[1].(type) {
	case uint64:
		return v
	case json.Number:
		n, _ := strconv.ParseUint(v.String(), 10, 64)
		return n
	}
	return 0
}

// CompareLayout compares two layouts after op i; nil when they match.
func CompareLayout(i int, want, got []Segment) *Mismatch {
	w, _ := json.Marshal(want)
	g, _ := json.Marshal(got)
	if string(w) == string(g) {
		return nil
	}
	for k := 0; k < len(want) || k < len(got); k++ {
		var ws, gs []byte
		if k < len(want) {
			ws, _ = json.Marshal(want[k])
		}
		if k < len(got) {
			gs, _ = json.Marshal(got[k])
		}
		if string(ws) != string(gs) {
			return &Mismatch{Op: i, Key: fmt.Sprintf("layout segment %d", k), Want: string(ws), Got: string(gs)}
		}
	}
	return &Mismatch{Op: i, Key: "layout", Want: string(w), Got: string(g)}
}
