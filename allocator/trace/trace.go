// Package trace reads allocator traces in the format of gpumemrepl's ground
// truth (random alloc/free/empty_cache sequences recorded from real
// PyTorch with memory_stats() after every op), replays them through the
// caching allocator, and compares the result with what PyTorch reported.
package trace

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// Op is one trace operation.
type Op struct {
	Op   string `json:"op"` // "alloc", "free", "empty_cache" or "noop"
	ID   int    `json:"id"`
	Size uint64 `json:"size"`
	// Stream is the CUDA stream of an allocation (0, the default, when
	// absent), and of the free of its block.
	Stream uint64 `json:"stream,omitempty"`
	OOM    bool   `json:"oom"` // PyTorch raised out-of-memory here
	kind   opKind
	slot   uint32 // the ID's dense number, where the replay keeps its address
}

type opKind uint8

const (
	opNoop opKind = iota
	opAlloc
	opFree
	opEmptyCache
)

// kindOf is the kind of an op's name; false for a name the format does
// not have.
func kindOf(name string) (opKind, bool) {
	switch name {
	case "alloc":
		return opAlloc, true
	case "free":
		return opFree, true
	case "empty_cache":
		return opEmptyCache, true
	case "noop":
		return opNoop, true
	}
	return opNoop, false
}

// Segment is one segment of a recorded layout: memory_snapshot() with
// addresses made relative to the segment.
type Segment struct {
	Pool          string  `json:"pool"`
	TotalSize     uint64  `json:"total_size"`
	AllocatedSize uint64  `json:"allocated_size"`
	RequestedSize uint64  `json:"requested_size"`
	Blocks        [][]any `json:"blocks"` // [offset, size, state, requested_size]
}

// Trace is a recorded trace file.
type Trace struct {
	Name           string               `json:"name"`
	AllocConf      string               `json:"alloc_conf"`
	MemoryFraction *float64             `json:"memory_fraction"`
	LimitBytes     *uint64              `json:"limit_bytes"`
	TotalMemory    uint64               `json:"total_memory"`
	Ops            []Op                 `json:"ops"`
	Expect         []map[string]any     `json:"expect"`
	Layouts        map[string][]Segment `json:"layouts"`
	Path           string               `json:"-"`
	// Device is the CUDA index the trace was recorded on (a snapshot's
	// history of cuda:N); it names the GPU in out-of-memory messages.
	Device int `json:"-"`
	// Start is the index of the first op of the recorded program: the
	// ops before it rebuild the state a late snapshot history starts from.
	Start int `json:"-"`
	// Problems are the trace's contradictions (the first MaxProblems);
	// NumProblems counts them all. Each one's op is a noop in Ops.
	Problems    []Problem `json:"-"`
	NumProblems int       `json:"-"`
	slots       int       // distinct ids
}

// Load reads a trace from a JSON file, gzipped or not, within
// DefaultLimits.
func Load(path string) (*Trace, error) { return LoadWithin(path, DefaultLimits) }

// LoadWithin reads a trace within l. Its ops are read one at a time
// into Ops; a malformed file is an error naming the byte or op where it
// goes wrong; contradictions (a double free, say) are Problems.
func LoadWithin(path string, l Limits) (*Trace, error) {
	src, err := openSource(path, l)
	if err != nil {
		return nil, &fileio.InFile{Path: path, Err: err}
	}
	defer src.Close()
	t := &Trace{Path: path}
	if err := t.decode(src); err != nil {
		return nil, &fileio.InFile{Path: path, Err: err}
	}
	return t, t.resolve()
}

// decode reads the trace's fields from src.
func (t *Trace) decode(src *source) error {
	d := &decoder{r: src.json}
	if c, err := d.peek(); err != nil || c != '{' {
		if err != nil && err != io.EOF {
			return err
		}
		return fmt.Errorf("not a trace: %w", ErrNotJSON)
	}
	err := d.object(func(key string) error {
		switch key {
		case "ops":
			t.Ops = t.Ops[:0]
			return d.ops(t.addOp)
		case "name":
			return d.value(&t.Name)
		case "alloc_conf":
			return d.value(&t.AllocConf)
		case "memory_fraction":
			return d.value(&t.MemoryFraction)
		case "limit_bytes":
			return d.value(&t.LimitBytes)
		case "total_memory":
			// the device's total_memory as PyTorch gives it: a GPU with
			// none would have no room for its own CUDA context
			d.peek() //nolint:errcheck // past white space, to say where the value is; value sees the error
			at := d.off
			if err := d.value(&t.TotalMemory); err != nil || t.TotalMemory > 0 {
				return err
			}
			return &syntaxError{at, "total_memory is 0: a device PyTorch records has memory (leave the key out for an H200's)"}
		case "expect":
			return d.value(&t.Expect)
		case "layouts":
			return d.value(&t.Layouts)
		}
		return d.skip()
	})
	if err != nil {
		return err
	}
	trailing, err := d.rest()
	if err != nil {
		return err
	}
	if trailing || src.trailing() {
		t.problem(-1, TrailingData, "bytes follow the trace's JSON object")
	}
	return nil
}

// addOp checks the ops array's element i and appends it.
func (t *Trace) addOp(i int, o rawOp) error {
	if !o.hasOp {
		return &OpError{i, `no "op"`}
	}
	op := Op{Op: o.op, Stream: o.stream, OOM: o.oom}
	if k, _ := kindOf(o.op); k == opAlloc || k == opFree {
		if !o.hasID {
			return &OpError{i, fmt.Sprintf("%s without an id", o.op)}
		}
		if o.id < 0 {
			return &OpError{i, fmt.Sprintf("id %d is negative", o.id)}
		}
		op.ID = int(o.id)
	}
	switch {
	case o.size < 0 && op.Op == "alloc":
		t.problem(i, NegativeSize, fmt.Sprintf("alloc of id %d has size %d", op.ID, o.size))
		op = Op{Op: "noop"}
	default:
		op.Size = uint64(o.size)
	}
	t.Ops = append(t.Ops, op)
	return nil
}

// ErrNoOps is a trace file without ops (a memory snapshot's JSON
// flattening, say).
var ErrNoOps = errors.New("not a trace: no ops")

// New makes a trace from ops, as another recording (a memory snapshot)
// gives them.
func New(path, allocConf string, ops []Op) (*Trace, error) {
	t := &Trace{Path: path, AllocConf: allocConf, Ops: ops}
	return t, t.resolve()
}

// resolve notes the ops' kinds, numbers their ids densely, and skips
// (as noops, each a Problem) the ops that contradict what came before:
// a free of an id never allocated or already freed, an allocation of an
// id that is live, an op the format does not have.
func (t *Trace) resolve() error {
	if len(t.Ops) == 0 {
		return &fileio.InFile{Path: t.Path, Err: ErrNoOps}
	}
	ids := newIDTable(len(t.Ops))
	var live []bool // by slot
	for i := range t.Ops {
		op := &t.Ops[i]
		k, known := kindOf(op.Op)
		op.kind = k
		if !known {
			t.skip(i, UnknownOp, fmt.Sprintf("unknown op %s", excerpt([]byte(op.Op))))
			continue
		}
		switch k {
		case opAlloc:
			slot, seen := ids.slot(op.ID, true)
			if !seen {
				live = append(live, false)
			}
			if live[slot] {
				t.skip(i, AllocLive, fmt.Sprintf("alloc of id %d, which is live", op.ID))
				continue
			}
			live[slot] = true
			op.slot = slot
		case opFree:
			slot, seen := ids.slot(op.ID, false)
			switch {
			case !seen:
				t.skip(i, FreeUnknown, fmt.Sprintf("free of id %d, which was never allocated", op.ID))
				continue
			case !live[slot]:
				t.skip(i, DoubleFree, fmt.Sprintf("free of id %d, which is already freed", op.ID))
				continue
			}
			live[slot] = false
			op.slot = slot
		}
	}
	t.slots = len(live)
	// The loader's problems come first; the list reads in file order.
	slices.SortStableFunc(t.Problems, func(x, y Problem) int { return cmp.Compare(x.Op, y.Op) })
	return nil
}

// DropEmptyCache removes the trace's empty_cache ops, so that a replay
// keeps its cache warm throughout (timing the allocator, not the
// driver's cudaMalloc and cudaFree); its expect and layouts no longer
// apply and are dropped too.
func (t *Trace) DropEmptyCache() {
	t.Ops = slices.DeleteFunc(t.Ops, func(op Op) bool { return op.kind == opEmptyCache })
	t.Expect, t.Layouts = nil, nil
}
