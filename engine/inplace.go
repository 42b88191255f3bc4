package engine

import (
	"errors"
	"fmt"
)

// In-place ops (add_, t += 1, relu_()) write their tensor's own storage
// and allocate nothing, when the other operand broadcasts to the
// tensor's shape. Under autograd, one on a leaf that requires grad is an
// error; add_ and sub_ record their node over the tensor's old one (the
// tensor's graph then holds both); the others the tool does not model
// there, and says so.

// errLeafInPlace is PyTorch's error for an in-place op on a leaf that
// requires grad.
var errLeafInPlace = errors.New("RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.")

// inPlaceArith is the in-place variant of the binary op name.
func inPlaceArith(name string) func(s *Session, a Args) error {
	return func(s *Session, a Args) error {
		t, o := a.Tensor(0), a.Tensor(1)
		if !o.number && !broadcastsTo(o.Shape, t.Shape) {
			return fmt.Errorf("RuntimeError: output with shape %s doesn't match the broadcast shape", dimList(t.Shape))
		}
		recorded := s.gradEnabled && (t.requiresGrad() || o.requiresGrad())
		if recorded && t.slot != nil && t.fn == nil {
			return errLeafInPlace
		}
		t.st.version++
		switch {
		case recorded && (name == "add" || name == "sub"): // testdata/pyrules/autograd.py: total += loss
			old := t.fn
			bw := passGrad
			if name == "sub" {
				bw = subBackward
			}
			s.record(map[string]string{"add": "AddBackward0", "sub": "SubBackward0"}[name], t, []*Tensor{t, tensorOrNil(o)}, nil, bw)
			s.replaced(t, old)
		case recorded:
			return fmt.Errorf("NotImplementedError: Tensor.%s_ that autograd records is not modelled by gpumemrepl", name)
		}
		return nil
	}
}

// broadcastsTo reports whether shape src broadcasts to dst without
// growing it.
func broadcastsTo(src, dst []int64) bool {
	if len(src) > len(dst) {
		return false
	}
	for i := 1; i <= len(src); i++ {
		s, d := src[len(src)-i], dst[len(dst)-i]
		if s != d && s != 1 {
			return false
		}
	}
	return true
}

// inPlaceUnary is the in-place variant of a one-input op (relu_,
// sigmoid_): under autograd it records node over the tensor's old one,
// saving the tensor itself (its new version) where the out-of-place op
// saves its result; one that saves its input (which PyTorch would
// clone first) is not modelled.
func inPlaceUnary(node string, saves, temps int) func(s *Session, a Args) error {
	return func(s *Session, a Args) error {
		t := a.Tensor(0)
		recorded := s.gradEnabled && t.requiresGrad()
		if recorded && t.fn == nil {
			return errLeafInPlace
		}
		if recorded && saves == saveInput {
			return fmt.Errorf("NotImplementedError: an in-place op that saves its input for backward (%s) is not modelled by gpumemrepl", node)
		}
		t.st.version++
		if recorded {
			old := t.fn
			s.record(node, t, []*Tensor{t}, [][]*Tensor{nil, nil, {t}}[saves], likeInput(temps))
			s.replaced(t, old)
		}
		return nil
	}
}

// replaced lets go of t's old node once an in-place op has recorded
// its new one (which reaches the old through its input).
func (s *Session) replaced(t *Tensor, old *node) {
	if t.fn != old && old != nil {
		s.unref(old)
	}
}

// writeUntracked is an in-place op (name) whose graph the tool does not
// model: without autograd it writes t, allocating nothing; recorded, it
// says it is not modelled.
func (s *Session) writeUntracked(name string, t *Tensor) error {
	if s.gradEnabled && t.requiresGrad() {
		if t.fn == nil {
			return errLeafInPlace
		}
		return NotModelledError("Tensor." + name + " that autograd records")
	}
	t.st.version++
	return nil
}
