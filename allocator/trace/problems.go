package trace

import (
	"fmt"
	"io"
)

// A Problem is a contradiction in a trace: something that cannot have
// happened as the file says. The replay skips the op (it is a noop in
// Trace.Ops); a --check of the trace refuses it.
type Problem struct {
	Op   int    // the op's index; -1 for the file as a whole
	Kind string // one of the names below
	Msg  string
}

// The kinds of Problem.
const (
	FreeUnknown  = "free-unknown"  // free of an id never allocated
	DoubleFree   = "double-free"   // free of an id already freed
	AllocLive    = "alloc-live"    // allocation of an id that is live
	NegativeSize = "negative-size" // allocation of fewer than 0 bytes
	UnknownOp    = "unknown-op"    // an op the format does not have
	TrailingData = "trailing-data" // bytes after the JSON, or after the gzip stream
)

// MaxProblems is how many Problems a trace keeps; more are only counted.
const MaxProblems = 100

func (p Problem) String() string {
	if p.Op < 0 {
		return fmt.Sprintf("%s: %s", p.Kind, p.Msg)
	}
	return fmt.Sprintf("op %d: %s: %s", p.Op, p.Kind, p.Msg)
}

// problem records a contradiction at op i.
func (t *Trace) problem(i int, kind, msg string) {
	if t.NumProblems < MaxProblems {
		t.Problems = append(t.Problems, Problem{Op: i, Kind: kind, Msg: msg})
	}
	t.NumProblems++
}

// skip records a contradiction at op i and makes the op a noop.
func (t *Trace) skip(i int, kind, msg string) {
	t.problem(i, kind, msg)
	t.Ops[i] = Op{Op: "noop"}
}

// ContradictionError is a trace with Problems, refused. Its text does
// not name the file, which the caller does.
type ContradictionError struct {
	First Problem
	More  int // how many others
}

func (e *ContradictionError) Error() string {
	s := e.First.String()
	if e.More > 0 {
		s += fmt.Sprintf(" (and %d more contradictions)", e.More)
	}
	return s
}

// Contradictions is the trace's first Problem as an error, nil when it
// has none.
func (t *Trace) Contradictions() error {
	if t.NumProblems == 0 {
		return nil
	}
	return &ContradictionError{First: t.Problems[0], More: t.NumProblems - 1}
}

// WriteWarnings writes a line for each kept Problem, and one saying how
// many more there were.
func (t *Trace) WriteWarnings(w io.Writer) {
	for _, p := range t.Problems {
		fmt.Fprintf(w, "%s: warning: %s (skipped)\n", t.Path, p)
	}
	if more := t.NumProblems - len(t.Problems); more > 0 {
		fmt.Fprintf(w, "%s: warning: %d more contradictions skipped\n", t.Path, more)
	}
}

// idTable numbers a trace's ids densely, in order of first use: a table
// for the ids a trace of n ops usually has (below n), a map for others,
// so that no id, however large, costs more than one entry.
type idTable struct {
	near []uint32 // by id: slot+1; 0 when unseen
	far  map[int]uint32
	n    uint32
}

func newIDTable(nOps int) *idTable { return &idTable{near: make([]uint32, nOps+1)} }

// slot is id's dense number and whether id was seen before; an unseen
// id gets the next number when add is set.
func (t *idTable) slot(id int, add bool) (uint32, bool) {
	if id < len(t.near) {
		if s := t.near[id]; s != 0 {
			return s - 1, true
		}
		if add {
			t.near[id] = t.n + 1
		}
	} else {
		if s, ok := t.far[id]; ok {
			return s, true
		}
		if add {
			if t.far == nil {
				t.far = map[int]uint32{}
			}
			t.far[id] = t.n
		}
	}
	if !add {
		return 0, false
	}
	t.n++
	return t.n - 1, false
}
