package engine

import (
	"slices"
	"strings"
)

// In-place ops (add_, t += 1, relu_()) write their tensor's own storage
// and allocate nothing, when the other operand broadcasts to the
// tensor's shape; copy_ from the host or another dtype too
// (testdata/pyrules/ops_inplace.py). Under autograd, one on a leaf that
// requires grad is an error; on another tensor, add_, sub_, and mul_
// and div_ by a number record their node over the tensor's old one (the
// tensor's graph then holds both); the others the tool does not model
// there, and says so.

// errLeafInPlace is PyTorch's error for an in-place op on a leaf that
// requires grad.
var errLeafInPlace = Errorf(RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.")

// inPlaceArith is the in-place variant of the binary op name.
func inPlaceArith(name string) func(s *Session, a Args) error {
	return func(s *Session, a Args) error {
		t, o := a.Tensor(0), a.Tensor(1)
		if !o.number && !broadcastsTo(o.Shape, t.Shape) {
			return Errorf(RuntimeError, "output with shape %s doesn't match the broadcast shape", dimList(t.Shape))
		}
		if rt := promoted(t, o); name != "div" && !canCast(rt, t.DType) {
			return Errorf(RuntimeError, "result type %s can't be cast to the desired output type %s", LegacyBase(rt), LegacyBase(t.DType))
		}
		recorded := s.gradEnabled && (t.requiresGrad() || o.requiresGrad())
		if recorded && t.slot != nil && t.fn == nil {
			return errLeafInPlace
		}
		if recorded && !o.number && (name == "mul" || name == "div") {
			return s.inPlaceByTensor(name, t, o)
		}
		s.written(t)
		if recorded { // testdata/pyrules/ops_inplace.py: as the op, over t's old node
			old := t.fn
			s.record(inPlaceNodes[name], t, []*Tensor{t, tensorOrNil(o)}, nil, inPlaceBackward[name])
			s.replaced(t, old)
		}
		return nil
	}
}

// inPlaceByTensor is t.mul_(o) or t.div_(o) of a tensor o that autograd
// records. Other's gradient reads self's old value, so PyTorch's
// generated code clones t first where o needs a gradient
// (original_self, saved); the node saves what the op's saves: the old
// self for other's gradient, other (for div always, for mul where t
// needs a gradient). moe_train.py's routing_weights /= its sum,
// recorded in testdata/models/zoo.
func (s *Session) inPlaceByTensor(name string, t, o *Tensor) error {
	var save []*Tensor
	if o.requiresGrad() {
		orig, err := s.alloc(t.Shape, t.DType, t.Device())
		if err != nil {
			return err
		}
		layOut(orig, t)
		defer s.dropTensor(orig) // kept by the node alone
		save = append(save, orig)
	}
	if name == "div" || t.requiresGrad() {
		save = append(save, o)
	}
	bw := divBackward
	if name == "mul" {
		bw = mulGrads(t, o)
	}
	s.written(t)
	old := t.fn
	s.record(inPlaceNodes[name], t, []*Tensor{t, o}, save, bw)
	s.replaced(t, old)
	return nil
}

// inPlaceNodes and inPlaceBackward are the nodes the in-place forms of
// add, sub, mul and div record (mul and div by a number), and their
// backward: the gradient passed on, or one new tensor.
var (
	inPlaceNodes    = map[string]string{"add": "AddBackward0", "sub": "SubBackward0", "mul": "MulBackward0", "div": "DivBackward0"}
	inPlaceBackward = map[string]backward{"add": passGrad, "sub": subBackward, "mul": mulBackward, "div": mulBackward}
)

// WriteInto is an in-place write of t from the front end (t[key] =
// value, into the view t[key]).
func (s *Session) WriteInto(t *Tensor) { s.written(t) }

// written is an in-place write of t: its storage's version moves on
// (backward checks it), and its values are no longer known.
func (s *Session) written(t *Tensor) {
	t.st.version++
	overwritten(t)
}

// overwritten is t written by a kernel autograd does not see write it:
// its values are no longer known, its version counter stays (batch
// norm's running stats, which PyTorch's batch_norm updates in place
// without bumping their version: pytorch/pytorch#13402, so a backward of
// an earlier forward still reads them, as BYOL's two views do).
func overwritten(t *Tensor) { t.st.vals, t.st.share, t.st.zeros = nil, 0, nil }

// onView labels an in-place op of the program's (op, writing
// a.Tensor(0)) estimated where autograd records it on a view: PyTorch
// then records CopySlices over the view's base (its backward clones the
// base's gradient, then the slice's, and runs the op's backward on the
// clone), where the tool records the op's own node on the view as if it
// were a tensor of its own. The ops' own in-place writes into views they
// make (a linear's bias added into its product) are no program's and
// are not labelled.
func (s *Session) onView(op string, a Args) error {
	t := a.Tensor(0)
	if t == nil || !t.view || !s.gradEnabled {
		return nil
	}
	for i := range a {
		if x := a.Tensor(i); x != nil && x.requiresGrad() {
			return s.estimate(nil, op, "in place on a view under autograd: PyTorch records CopySlices over the view's base, whose backward clones the base's gradient and the slice's; modelled as if the view were a tensor of its own")
		}
	}
	return nil
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
// saves its result; one that saves its input (sin_) clones it first,
// as inPlaceSavingInput.
func inPlaceUnary(node string, saves, temps int) func(s *Session, a Args) error {
	if saves == saveInput {
		return inPlaceSavingInput(node, temps)
	}
	return func(s *Session, a Args) error {
		t := a.Tensor(0)
		recorded := s.gradEnabled && t.requiresGrad()
		if recorded && t.fn == nil {
			return errLeafInPlace
		}
		s.written(t)
		if recorded {
			old := t.fn
			s.record(node, t, []*Tensor{t}, [][]*Tensor{nil, nil, {t}}[saves], likeInput(temps))
			s.replaced(t, old)
		}
		return nil
	}
}

// inPlaceSavingInput is the in-place variant of a one-input op whose
// backward formula reads its input (hardtanh_, which derivatives.yaml
// gives no formula of its own, takes hardtanh's): under autograd
// PyTorch's generated code clones the input before writing it
// (original_self), so a tensor of its size and layout is taken first
// and lives in the node, saved, until backward; node's backward makes
// temps tensors of its size.
func inPlaceSavingInput(node string, temps int) func(s *Session, a Args) error {
	return func(s *Session, a Args) error {
		t := a.Tensor(0)
		if !s.gradEnabled || !t.requiresGrad() {
			s.written(t)
			return nil
		}
		if t.fn == nil {
			return errLeafInPlace
		}
		orig, err := s.alloc(t.Shape, t.DType, t.Device())
		if err != nil {
			return err
		}
		layOut(orig, t)
		s.written(t)
		old := t.fn
		s.record(node, t, []*Tensor{t}, []*Tensor{orig}, likeInput(temps))
		s.replaced(t, old)
		s.dropTensor(orig) // kept by the node alone
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
	s.written(t)
	return nil
}

func init() {
	declare(
		&OpDef{Name: "zero", InPlace: "zero_", Params: []Param{input}, Memory: "writes zeros in place: no memory",
			inPlace: func(s *Session, a Args) error { return s.fill(a.Tensor(0), 0, "zero_") }},
		&OpDef{Name: "fill", InPlace: "fill_", Params: []Param{input, {Name: "value", Kind: NumberParam}}, Memory: "writes the value in place: no memory",
			inPlace: func(s *Session, a Args) error { return s.fill(a.Tensor(0), a.Number(1), "fill_") }},
		&OpDef{Name: "copy", InPlace: "copy_", Params: []Param{input, {Name: "src", Kind: TensorParam}, {Name: "non_blocking", Kind: BoolParam, Default: "False"}},
			Memory: "copies src in, from either device and any dtype: no memory",
			inPlace: func(s *Session, a Args) error {
				t, src := a.Tensor(0), a.Tensor(1)
				if !broadcastsTo(src.Shape, t.Shape) {
					return Errorf(RuntimeError, "output with shape %s doesn't match the broadcast shape", dimList(t.Shape))
				}
				if s.gradEnabled && src.requiresGrad() {
					return NotModelledError("Tensor.copy_ of a tensor that requires grad")
				}
				if err := s.writeUntracked("copy_", t); err != nil {
					return err
				}
				if err := s.copyInTemporaries(t, src, a.Bool(2)); err != nil {
					return err
				}
				if a.Bool(2) && t.Device() != src.Device() { // a pinned side waits for the copy
					gpu := t.Device()
					if !gpu.CUDA {
						gpu = src.Device()
					}
					s.CopiedAsync(src, gpu)
					s.CopiedAsync(t, gpu)
				}
				if slices.Equal(src.Shape, t.Shape) && src.DType == t.DType && t.IsContiguous() && t.Bytes() == t.st.bytes {
					t.st.vals = elementValues(src)
				}
				return nil
			}},
	)
}

// copyInTemporaries makes and frees what PyTorch's copy_ of src into
// dst between the host and the GPU makes on the GPU when it is not one
// memcpy (copy_requires_temporaries: another dtype, or layouts that are
// not one dense run alike): a blocking copy converts on the host, so to
// the host the GPU source is first made dense in the destination's
// shape (src.expand_as(dst).contiguous(): a transposed weight packed by
// save_on_cpu(pin_memory=True), train_custom_fn.py), and to the GPU a
// destination that is not contiguous is written through a dense GPU
// tensor of its own; under non_blocking the conversion is on the GPU:
// to the host, the source converted (a copy in the destination's dtype)
// then made dense, to the GPU a dense tensor of the source's dtype
// unless the destination is one of it already. A copy between two GPUs
// makes nothing (peer access).
func (s *Session) copyInTemporaries(dst, src *Tensor, nonBlocking bool) error {
	from, to := src.Device(), dst.Device()
	if from == to || from.CUDA && to.CUDA {
		return nil
	}
	sameDType := src.DType.Name == dst.DType.Name
	if sameDType && slices.Equal(src.Shape, dst.Shape) && denseTensor(src) && sameLayout(src, dst) {
		return nil
	}
	var made []*Tensor
	defer func() { dropAll(s, made) }()
	gpuTemp := func(shape []int64, dt DType, dev Device) error {
		if nonBlocking || to.CUDA {
			// only a blocking copy to the host is recorded (train_custom_fn.py)
			if err := s.estimate(nil, "Tensor.copy_", "%s %s on %s into %s %s on %s, non_blocking=%s: the GPU temporaries of a copy that is not one memcpy, from PyTorch's copy_kernel_cuda, not yet recorded on the GPU", dimList(src.Shape), src.DType.Name, from, dimList(dst.Shape), dst.DType.Name, to, pyBool(nonBlocking)); err != nil {
				return err
			}
		}
		t, err := s.alloc(slices.Clone(shape), dt, dev)
		if err == nil {
			made = append(made, t)
		}
		return err
	}
	switch {
	case from.CUDA && nonBlocking:
		converted := !sameDType
		if converted {
			if err := gpuTemp(src.Shape, dst.DType, from); err != nil {
				return err
			}
		}
		// the conversion keeps a dense source's layout (a transposed one
		// stays transposed) and makes any other contiguous
		if !slices.Equal(src.Shape, dst.Shape) || !src.IsContiguous() && (!converted || denseTensor(src)) {
			return gpuTemp(dst.Shape, dst.DType, from)
		}
	case from.CUDA:
		if !slices.Equal(src.Shape, dst.Shape) || !src.IsContiguous() {
			return gpuTemp(dst.Shape, src.DType, from)
		}
	case nonBlocking:
		if !dst.IsContiguous() || !sameDType {
			return gpuTemp(dst.Shape, src.DType, to)
		}
	case !dst.IsContiguous():
		return gpuTemp(dst.Shape, dst.DType, to)
	}
	return nil
}

// fill writes v into every element of t (zero_, fill_): its values are
// then known when t is its whole storage.
func (s *Session) fill(t *Tensor, v float64, name string) error {
	if err := s.writeUntracked(name, t); err != nil {
		return err
	}
	if t.IsContiguous() && t.Bytes() == t.st.bytes {
		t.st.vals = knownValues{v}
	}
	return nil
}

// The census's in-place writes (testdata/pyrules/
// ops_census_misc.py, under no_grad, held statement by statement):
// lerp_, fill_diagonal_ and erfinv_ write their tensor
// where it is, allocating nothing; under autograd they are not
// modelled.
func init() {
	write := func(name string, params ...Param) *OpDef {
		return &OpDef{Name: strings.TrimSuffix(name, "_"), InPlace: name, Params: append([]Param{input}, params...),
			Memory:  "writes the tensor in place: no memory",
			inPlace: func(s *Session, a Args) error { return s.writeUntracked(name, a.Tensor(0)) }}
	}
	declare(
		write("lerp_", Param{Name: "end", Kind: TensorParam}, Param{Name: "weight", Kind: OperandParam}),
		write("fill_diagonal_", numberParam("fill_value", ""), boolParam("wrap", "False")),
		write("erfinv_"),
	)
}
