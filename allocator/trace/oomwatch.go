package trace

// OOM is an allocation of a replay that raised out-of-memory.
type OOM struct {
	Op int `json:"op"` // its index among the trace's ops
	// Allocation is its ordinal among the recorded program's allocations
	// (those from Trace.Start on, failed ones included), from 0; -1 for
	// an op that rebuilds a late history's start state.
	Allocation int `json:"allocation"`
	// RequestedBytes is the size asked for (of an allocation a snapshot's
	// recording saw fail, the size PyTorch recorded: its rounded one).
	RequestedBytes uint64 `json:"requested_bytes"`
	Message        string `json:"message"` // the allocator's error text, PyTorch's
}

// OOMWatch watches a replay for its first out-of-memory error, and for
// an allocation before it that raised out-of-memory in the recording but
// succeeds in the replay: past that one, the replay runs what the
// program did after its own OOM, which it need not have done had the
// allocation succeeded (a history that ends at its OOM simply ends).
type OOMWatch struct {
	First *OOM
	// PastRecorded is the ordinal of that allocation; nil when none.
	PastRecorded *int
	t            *Trace
	allocs       int // the program's allocations so far
}

// NewOOMWatch returns a watch for a replay of t.
func NewOOMWatch(t *Trace) *OOMWatch { return &OOMWatch{t: t} }

// Op is the watch's callback for Replayer.Run: it hears op i and its
// out-of-memory error.
func (w *OOMWatch) Op(i int, oom error) error {
	op := &w.t.Ops[i]
	if op.kind != opAlloc {
		return nil
	}
	ordinal := -1
	if i >= w.t.Start {
		ordinal = w.allocs
		w.allocs++
	}
	if oom != nil && w.First == nil {
		w.First = &OOM{Op: i, Allocation: ordinal, RequestedBytes: op.Size, Message: oom.Error()}
	}
	if oom == nil && op.OOM && w.PastRecorded == nil && w.First == nil {
		w.PastRecorded = &ordinal
	}
	return nil
}
