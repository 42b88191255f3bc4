// Package explain says why a history ran out of memory and which change
// avoids it. Every figure comes from a replay through the caching
// allocator: the history is replayed under its own settings to its first
// out-of-memory error (or, when it has none, to its peak reserved
// memory), the cause is read from the allocator's state there, and the
// whole history is replayed again under each candidate change, in order
// of size (see Candidates); the first that avoids the error is the fix.
// Nothing is estimated.
package explain

import (
	"errors"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// GPU is a simulated GPU a history may be replayed on: a preset's name
// and total memory, and what of a replay there is an estimate (empty
// where nothing is).
type GPU struct {
	Name      string `json:"name"`
	Total     uint64 `json:"total_bytes"`
	Estimated string `json:"estimated,omitempty"`
}

// Input is a history to explain and how it ran.
type Input struct {
	Trace *trace.Trace
	// Options are the settings it ran under: its PYTORCH_CUDA_ALLOC_CONF,
	// per-process limit and device size, as for trace.Setup (Device and
	// Progress are not used: each replay gets its own device).
	Options trace.Options
	// NewDevice makes the device of one replay, of total bytes; nil: a
	// simulated device with nothing else on it.
	NewDevice func(total uint64) device.Device
	// GPUs are the presets for the larger-GPU candidate.
	GPUs []GPU
	// StepStart is, for the op explained, the op before which the
	// empty_cache() candidate runs: the first op of the step that ran it
	// (-1: not known); nil or -1: just after the last free before it.
	StepStart func(op int) int
	// Where says where op i is in the program (a source line), for the
	// empty_cache() candidate; nil: nothing.
	Where func(op int) string
	// Interrupted, when set, is asked during every replay whether the
	// user asked to stop (Ctrl-C); Explain then returns ErrInterrupted.
	Interrupted func() bool
	// Label names the holder of the block op i allocated (a variable and
	// a source line, a stack frame); nil: "op N".
	Label func(op int) string
	// Category is what the block op i allocated is for, as far as the
	// history tells (a snapshot's stacks); nil: not told.
	Category func(op int) string
}

// ErrNoOps is a history with nothing to replay.
var ErrNoOps = errors.New("explain: the history has no ops")

// ErrInterrupted is an explain the user stopped.
var ErrInterrupted = errors.New("explain: interrupted")

// Explain replays in's history and says why it ran out of memory, or
// where it peaked, and what each candidate change does.
func Explain(in Input) (*Diagnosis, error) {
	if in.Trace == nil || len(in.Trace.Ops) == 0 {
		return nil, ErrNoOps
	}
	d, err := diagnose(in)
	if err != nil {
		return nil, err
	}
	for _, c := range Candidates(in, d) {
		r, err := try(in, c)
		if err != nil {
			return nil, err
		}
		d.Candidates = append(d.Candidates, r)
	}
	d.choose()
	return d, nil
}
