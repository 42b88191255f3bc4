// Package trace reads allocator traces in the format of gpumemrepl's ground
// truth (random alloc/free/empty_cache sequences recorded from real
// PyTorch with memory_stats() after every op), replays them through the
// caching allocator, and compares the result with what PyTorch reported.
package trace

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
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
}

type opKind uint8

const (
	opNoop opKind = iota
	opAlloc
	opFree
	opEmptyCache
)

var opKinds = map[string]opKind{"alloc": opAlloc, "free": opFree, "empty_cache": opEmptyCache, "noop": opNoop}

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
}

// Load reads a trace from a .json or .json.gz file.
func Load(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	var t Trace
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%s: not a trace: %w", path, err)
	}
	t.Path = path
	return &t, t.resolve()
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

// resolve checks the ops and notes their kinds.
func (t *Trace) resolve() error {
	if len(t.Ops) == 0 {
		return fmt.Errorf("%s: %w", t.Path, ErrNoOps)
	}
	for i, op := range t.Ops {
		k, ok := opKinds[op.Op]
		if !ok {
			return fmt.Errorf("%s: op %d: unknown op %q", t.Path, i, op.Op)
		}
		t.Ops[i].kind = k
	}
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
