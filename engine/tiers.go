package engine

import (
	"fmt"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// Two tiers of figures. A figure is exact when every op on its path
// followed a rule recorded with PyTorch on the GPU and compared in tests
// (testdata/pyrules, the convolution table, the probed scratch ranges);
// it is estimated when some op followed a general rule instead: a
// formula from PyTorch's source or declarations not yet recorded, the
// nearest recorded configuration of a kernel's scratch, a guess at
// values the tool does not know, a rule that reads the card run on a
// card other than the one it was recorded on (cards.go).
//
// Where an op has no recorded rule it calls Session.estimate, which
// records an Estimate (the op, its shapes, why and from what) and lets
// the op go on by its general rule; under Options.Strict the same call
// returns the op's refusal instead, as the tool behaved before it could
// estimate (golden tests and CI run so). An estimate is sticky: the
// allocator's state is the whole history, so every figure measured
// after the first estimate rests on it (Figures.Estimated), and the
// session names that first one (Tier).

// Estimate is one op's departure from the recorded rules: the op
// followed a general rule.
type Estimate struct {
	// Op is the op as the program calls it ("torch.sin", "F.conv2d",
	// "print").
	Op string
	// Cause is the op's shapes and why its figures are estimated, and
	// from what: "[12, 3, 96, 96] x [64, 3, 7, 7] stride 2: cuDNN
	// workspace of an unrecorded configuration, taken from ...".
	Cause string
	// Where is the program's statement running it (FILE:LINE, its
	// innermost frame outside torch); empty when the front end gives no
	// frames.
	Where string
}

// String is the op and its cause, as a step report prints it.
func (e Estimate) String() string { return e.Op + " " + e.Cause }

// Tier is where a session's figures stand.
type Tier struct {
	// Estimates counts the estimates made (an op each time it followed
	// a general rule), Steps the steps in which some op did.
	Estimates, Steps int
	// First is the session's first estimate, on which every later
	// figure rests; nil while every figure is exact.
	First *Estimate
}

// Exact reports whether every figure so far followed recorded rules.
func (t Tier) Exact() bool { return t.First == nil }

// EstimateCollection records that CPython's collector, run by itself
// as the tool models when (python/eval/gcgen.go), freed bytes of
// tensors held in reference cycles: CPython starts a collection when
// its count of container objects passes a threshold, and that count
// includes what CPython and PyTorch allocate inside, which the tool
// models and has not recorded. Under --strict it is the error to raise.
func (s *Session) EstimateCollection(gen int, bytes uint64) error {
	return s.estimate(nil, "gc (automatic)", "generation %d freed %s in reference cycles: when CPython starts a collection depends on what it and PyTorch allocate inside, modelled, not recorded", gen, allocator.FormatSize(bytes))
}

// EstimateComposite records that op, a layer or function the front end
// composes of the table's ops as PyTorch's source composes it (nn's
// layers written in Python), ran on ts by a composition not yet
// recorded on the GPU; why says so and where its rule script waits.
// Under --strict it is the error to raise.
func (s *Session) EstimateComposite(op, why string, ts ...*Tensor) error {
	a := make(Args, len(ts))
	for i, t := range ts {
		a[i] = t
	}
	return s.estimate(nil, op, "%s: %s", argShapes(a), why)
}

// EstimateRefused records that a statement raised msg (which says
// where), gpumemrepl's refusal of what PyTorch runs or an internal
// error: the figures from it on leave out what the statement would have
// done. Under --strict it records nothing (the refusal stands).
func (s *Session) EstimateRefused(msg string) {
	s.estimate(nil, "refused", "%s; the figures from here on leave out what PyTorch did there", msg) //nolint:errcheck // under --strict the refusal is the statement's error already
}

// tiers is a session's record of its estimates.
type tiers struct {
	step     []Estimate // this step's, in order (BeginStep clears them)
	total    Tier
	stepSeen bool // this step has counted in total.Steps
}

// Tier is where the session's figures stand: exact, or resting on its
// first estimate.
func (s *Session) Tier() Tier { return s.tiers.total }

// StepEstimatesSince are the estimates made since BeginStep, in order,
// but the first i (those a report after each statement has shown).
func (s *Session) StepEstimatesSince(i int) []Estimate {
	return slices.Clone(s.tiers.step[min(i, len(s.tiers.step)):])
}

// estimate is called by an op that goes on by a general rule where no
// recorded rule covers it: op as the program calls it, the cause
// (shapes, then why and from what) formatted as fmt does. It records the
// estimate and returns nil; under Options.Strict it records nothing and
// returns refusal, the error the op gave before it could estimate (an
// op that never refused passes nil, and gets a NotImplementedError
// naming the estimate).
func (s *Session) estimate(refusal error, op, cause string, args ...any) error {
	e := Estimate{Op: op, Cause: fmt.Sprintf(cause, args...)}
	if s.opts.Strict {
		if refusal == nil {
			refusal = Refusef(NotImplementedError, "%s: its figures would be estimated, and --strict refuses estimates", e)
		}
		return refusal
	}
	if s.frames != nil {
		if f, ok := snapshot.ProgramFrame(s.frames(nil)); ok {
			e.Where = fmt.Sprintf("%s:%d", f.Filename, f.Line)
		}
	}
	s.tiers.step = append(s.tiers.step, e)
	t := &s.tiers.total
	t.Estimates++
	if !s.tiers.stepSeen {
		s.tiers.stepSeen = true
		t.Steps++
	}
	if t.First == nil {
		t.First = &e
	}
	return nil
}

// beginStep starts a step's record of estimates.
func (t *tiers) beginStep() {
	t.step = t.step[:0]
	t.stepSeen = false
}

// recording says where a rule modelled from PyTorch's source stands
// against the GPU, in an estimate's cause: rec is the rule script of
// testdata/pyrules that recorded the op, whose statements the rule is
// not yet held to (TestRecordedStatements lists those that differ),
// or "" where no recording covers the op yet.
func recording(rec string) string {
	if rec == "" {
		return "not yet recorded on the GPU"
	}
	return "recorded on the GPU in testdata/pyrules/" + rec + " but not yet held to it"
}

// estimateOp is estimate (no refusal of its own) for an op that may
// record a node: made, called with the op's outputs once it has,
// carries the estimate to that node's backward (estimateBackwards).
func (s *Session) estimateOp(op, cause string, args ...any) (made func(outs ...*Tensor), err error) {
	c, seq := fmt.Sprintf(cause, args...), s.seq
	if err := s.estimate(nil, op, "%s", c); err != nil {
		return nil, err
	}
	return func(outs ...*Tensor) { estimateBackwards(seq, op, c, outs) }, nil
}

// estimateBackwards carries the estimate of op (its cause) to the
// backward of each node it recorded for outs, those made after node
// seq: that backward follows the op's general rule too, so the step
// that runs it is estimated, naming the op, wherever the estimate of
// the forward came before (ops_census_more.py's var_mean backward and
// rnn_packed.py's backward through pad_packed_sequence differed from
// their recordings, labelled exact).
func estimateBackwards(seq int, op, cause string, outs []*Tensor) {
	for _, t := range outs {
		if t == nil || t.fn == nil || t.fn.seq <= seq || t.fn.bw == nil {
			continue
		}
		n, bw := t.fn, t.fn.bw
		n.bw = func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
			if err := s.estimate(nil, op+" backward", "%s", cause); err != nil {
				return nil, err
			}
			return bw(s, n, g)
		}
		seq = n.seq // a node of several outputs once
	}
}

// argShapes are an op's tensor arguments as shape and dtype, "x" between
// them ("[64, 3, 32, 32] float32 x [64] float32"); a number among them
// is left out.
func argShapes(a Args) string {
	var b []byte
	add := func(t *Tensor) {
		if t == nil || t.number {
			return
		}
		if len(b) > 0 {
			b = append(b, " x "...)
		}
		b = append(b, dimList(t.Shape)+" "+t.DType.Name...)
	}
	for i := range a {
		add(a.Tensor(i))
		for _, t := range a.TensorList(i) {
			add(t)
		}
	}
	return string(b)
}
