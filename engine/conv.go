package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Convolutions (F.conv1d, conv2d, conv3d; nn.Conv1d/2d/3d's forward) on
// the GPU, as PyTorch 2.11 runs them with cuDNN 9.19 on the H200
// (testdata/conv/README.md, testdata/pyrules/conv_layers.py): forward
// makes the output, then cuDNN's workspace, freed before it returns
// (the bias is added in place); the node saves the input and the
// weight. Backward makes, for what requires grad, the input's gradient
// and its workspace, the weight's and its workspace (PyTorch's
// depthwise kernel: the weight's first, no workspace), then the bias's,
// a sum of the incoming gradient, which a broadcast gradient takes
// through a reduction buffer; a broadcast gradient is first made dense,
// once for each of the two cuDNN calls. The workspaces' sizes follow
// cuDNN's heuristics, so each configuration's allocations are read from
// the table of recorded ones (convtable.go); one not in it is refused,
// with the probe's line that records it.

// The convolutions as table entries, F.conv1d, conv2d and conv3d (and
// torch.convNd), with PyTorch's signatures.
func init() {
	for dims := 1; dims <= 3; dims++ {
		name := fmt.Sprintf("conv%dd", dims)
		d := functional(&OpDef{Name: name,
			Params: []Param{input, {Name: "weight", Kind: TensorParam}, {Name: "bias", Kind: TensorParam, Default: "None"},
				{Name: "stride", Kind: DimsParam, Default: "1"}, {Name: "padding", Kind: PaddingParam, Default: "0"},
				{Name: "dilation", Kind: DimsParam, Default: "1"}, {Name: "groups", Kind: IntParam, Default: "1"}},
			Memory: "cuDNN's, from the table of recorded configurations (others refused, with the line that records them): the output, then its workspace, freed (the bias added in place; input and weight saved); backward the input's gradient and workspace, the weight's and workspace, then the bias's (a sum); a broadcast gradient made dense first",
			run: func(s *Session, a Args) (*Tensor, error) {
				op := "F." + name
				p, err := convArgs(op, dims, a)
				if err != nil {
					return nil, err
				}
				return s.conv(op, dims, a.Tensor(0), a.Tensor(1), a.Tensor(2), p)
			}})
		d.Function = true // torch.convNd too
		declare(d)
	}
}

// CudnnFlags are the torch.backends.cudnn settings a convolution reads
// (Disabled: enabled = False).
type CudnnFlags struct{ Benchmark, Deterministic, Disabled bool }

// SetCudnnFlags tells the session where torch.backends.cudnn's flags
// are read (the front end's module); unset, PyTorch's defaults (off).
func (s *Session) SetCudnnFlags(f func() CudnnFlags) { s.cudnn = f }

// cudnnFlags is torch.backends.cudnn's settings now.
func (s *Session) cudnnFlags() CudnnFlags {
	if s.cudnn == nil {
		return CudnnFlags{}
	}
	return s.cudnn()
}

// convParams are a convolution's stride, padding, dilation and groups,
// one of each list per spatial dimension.
type convParams struct {
	stride, padding, dilation []int64
	groups                    int64
}

// convArgs reads F.convNd's arguments (input, weight, bias, stride,
// padding, dilation, groups) for dims spatial dimensions.
func convArgs(op string, dims int, a Args) (convParams, error) {
	p := convParams{groups: a.Int(6)}
	var err error
	if p.stride, err = spatialInts(op, "stride", intsArg(a[3]), dims); err != nil {
		return p, err
	}
	if p.dilation, err = spatialInts(op, "dilation", intsArg(a[5]), dims); err != nil {
		return p, err
	}
	for i := range dims {
		if p.stride[i] <= 0 {
			return p, Errorf(RuntimeError, "non-positive stride is not supported")
		}
		if p.dilation[i] <= 0 {
			return p, Errorf(RuntimeError, "dilation should be greater than zero")
		}
	}
	if p.groups <= 0 {
		return p, Errorf(RuntimeError, "non-positive groups is not supported")
	}
	w := a.Tensor(1)
	switch pad := a[4].(type) {
	case string:
		p.padding = make([]int64, dims)
		switch pad {
		case "valid":
		case "same":
			if slices.ContainsFunc(p.stride, func(s int64) bool { return s != 1 }) {
				return p, Errorf(RuntimeError, "padding='same' is not supported for strided convolutions")
			}
			for i := range dims {
				if len(w.Shape) != dims+2 {
					break
				}
				total := p.dilation[i] * (w.Shape[i+2] - 1)
				if total%2 != 0 {
					return p, NotModelledError(op + "(padding='same') of an even kernel (PyTorch pads the input on one side first)")
				}
				p.padding[i] = total / 2
			}
		default:
			return p, Errorf(RuntimeError, "Invalid padding string: '%s'", pad)
		}
	default:
		if p.padding, err = spatialInts(op, "padding", intsArg(pad), dims); err != nil {
			return p, err
		}
		if slices.ContainsFunc(p.padding, func(n int64) bool { return n < 0 }) {
			return p, Errorf(RuntimeError, "negative padding is not supported")
		}
	}
	return p, nil
}

// intsArg is an ints argument given as its default (one int) or as
// ints.
func intsArg(v any) []int64 {
	if n, ok := v.(int64); ok {
		return []int64{n}
	}
	ints, _ := v.([]int64)
	return ints
}

// spatialInts is one int per spatial dimension: v itself, or its one
// value repeated.
func spatialInts(op, name string, v []int64, dims int) ([]int64, error) {
	switch len(v) {
	case dims:
		return v, nil
	case 1:
		return slices.Repeat(v, dims), nil
	}
	return nil, Errorf(RuntimeError, "expected %s to be a single integer value or a list of %d values to match the convolution dimensions, but got %s=%s", name, dims, name, dimList(v))
}

// convShape checks a convolution's tensors as PyTorch does and returns
// its output's shape.
func convShape(op string, dims int, x, w, b *Tensor, p convParams) ([]int64, error) {
	if len(x.Shape) == dims+1 {
		return nil, NotModelledError(op + " of an unbatched input")
	}
	if len(x.Shape) != dims+2 {
		return nil, Errorf(RuntimeError, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s", dims+1, dims+2, op[2:], dimList(x.Shape))
	}
	if len(w.Shape) != dims+2 {
		return nil, Errorf(RuntimeError, "Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s instead", len(w.Shape), len(w.Shape), dimList(w.Shape), len(x.Shape), dimList(x.Shape))
	}
	k := w.Shape[0]
	if k%p.groups != 0 {
		return nil, Errorf(RuntimeError, "Given groups=%d, expected weight to be divisible by %d at dimension 0, but got weight of size %s instead", p.groups, p.groups, dimList(w.Shape))
	}
	if x.Shape[1] != w.Shape[1]*p.groups {
		return nil, Errorf(RuntimeError, "Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d channels instead", p.groups, dimList(w.Shape), dimList(x.Shape), w.Shape[1]*p.groups, x.Shape[1])
	}
	if b != nil && (len(b.Shape) != 1 || b.Shape[0] != k) {
		return nil, Errorf(RuntimeError, "Given weight of size %s, expected bias to be 1-dimensional with %d elements, but got bias of size %s instead", dimList(w.Shape), k, dimList(b.Shape))
	}
	if x.DType != w.DType || b != nil && b.DType != w.DType {
		return nil, Errorf(RuntimeError, "Input type (%s) and weight type (%s) should be the same", tensorType(x), tensorType(w))
	}
	shape := []int64{x.Shape[0], k}
	padded, kernel := make([]string, dims), make([]string, dims)
	small := false
	for i := range dims {
		in := x.Shape[i+2] + 2*p.padding[i]
		span := p.dilation[i]*(w.Shape[i+2]-1) + 1
		padded[i], kernel[i] = fmt.Sprint(in), fmt.Sprint(span)
		small = small || in < span
		shape = append(shape, (in-span)/p.stride[i]+1)
	}
	if small {
		return nil, Errorf(RuntimeError, "Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel size can't be greater than actual input size", strings.Join(padded, " x "), strings.Join(kernel, " x "))
	}
	return shape, nil
}

// convModelled refuses what the table cannot hold.
func (s *Session) convModelled(op string, x, w *Tensor, dev Device) error {
	switch {
	case !dev.CUDA:
		return NotModelledError(op + " on the host")
	case x.DType != Float32 && x.DType.Name != "float16" && x.DType.Name != "bfloat16":
		return NotModelledError(op + " of a " + x.DType.Name + " input")
	case !x.IsContiguous() || !w.IsContiguous():
		return NotModelledError(op + " of a tensor that is not contiguous (channels_last and strided inputs are not in the table of recorded convolutions)")
	case x.offset != 0 || w.offset != 0:
		// cuDNN's engines depend on the data's alignment; the table's start their storage
		return NotModelledError(op + " of a view that does not start at its storage's start")
	case s.cudnnFlags().Benchmark:
		return NotModelledError(op + " under torch.backends.cudnn.benchmark=True (cuDNN's timed search for the fastest algorithm)")
	case s.cudnnFlags().Disabled:
		return NotModelledError(op + " under torch.backends.cudnn.enabled=False (PyTorch's own convolution kernels)")
	}
	return nil
}

// conv is op (F.conv1d, conv2d or conv3d: dims spatial dimensions) of
// input x, weight w and bias b (nil for none).
func (s *Session) conv(op string, dims int, x, w, b *Tensor, p convParams) (*Tensor, error) {
	dev, err := sameDevice(x, w, b)
	if err != nil {
		return nil, err
	}
	shape, err := convShape(op, dims, x, w, b, p)
	if err == nil {
		err = s.convModelled(op, x, w, dev)
	}
	if err != nil {
		return nil, err
	}
	key := convKey{X: dimList(x.Shape), W: dimList(w.Shape), Stride: dimList(p.stride), Padding: dimList(p.padding),
		Dilation: dimList(p.dilation), Groups: p.groups, Bias: b != nil, DType: x.DType.Name, Format: "contiguous",
		Deterministic: s.cudnnFlags().Deterministic}
	table, err := s.convTables()
	if err != nil {
		return nil, err
	}
	e := table[key]
	if e == nil {
		var bwd []convBackwardKey
		if mask := gradMask(s.gradEnabled, x, w, b); mask != "" {
			bwd = append(bwd, convBackwardKey{mask, "dense"})
		}
		return nil, key.notRecorded(op, "", bwd...)
	}
	out := tensorShape{shape, x.DType}
	if e.xBytes != x.Bytes() || e.wBytes != w.Bytes() || e.yBytes != numel(shape)*x.DType.Size {
		return nil, fmt.Errorf("internal error: the table's record of %s has other sizes than its configuration", op)
	}
	outs, err := s.convReplay(dev, e.forward, []tensorShape{out})
	if err != nil {
		return nil, err
	}
	s.record("ConvolutionBackward0", outs[0], []*Tensor{x, w, b}, []*Tensor{x, w}, convBackward(op, key, e))
	return outs[0], nil
}

// gradMask is which of x, w and b autograd would ask gradients of
// ("xwb", "wb", ...; "" for none).
func gradMask(enabled bool, x, w, b *Tensor) string {
	mask := ""
	for i, t := range []*Tensor{x, w, b} {
		if enabled && t != nil && t.requiresGrad() {
			mask += string("xwb"[i])
		}
	}
	return mask
}

// convBackward is ConvolutionBackward0's backward for configuration k,
// recorded in e: the recorded run of the gradients asked and the
// incoming gradient's layout.
func convBackward(op string, k convKey, e *convEntry) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		grads := make([]*Tensor, len(n.inputs))
		bk := convBackwardKey{grad: "dense"}
		var want []int // the inputs whose gradient backward makes
		for i, in := range n.inputs {
			if in.to != nil {
				bk.mask += string("xwb"[i])
				want = append(want, i)
			}
		}
		switch {
		case g.IsContiguous():
		case g.expanded && g.st.bytes == g.DType.Size:
			bk.grad = "expanded"
		default:
			return grads, NotModelledError("the backward of " + op + " with an incoming gradient that is neither dense nor a broadcast number")
		}
		events, ok := e.backward[bk]
		if !ok {
			return grads, k.notRecorded(op, fmt.Sprintf(" (its backward for %s, a %s incoming gradient)", bk.mask, bk.grad), bk)
		}
		order, err := gradientOrder(op, kept(events), want, func(i int) uint64 { return numel(n.inputs[i].shape) * g.DType.Size })
		if err != nil {
			return grads, err
		}
		shapes := make([]tensorShape, len(order))
		for j, i := range order {
			shapes[j] = tensorShape{n.inputs[i].shape, g.DType}
		}
		outs, err := s.convReplay(g.Device(), events, shapes)
		if err != nil {
			return grads, err
		}
		for j, i := range order {
			grads[i] = outs[j]
		}
		return grads, nil
	}
}

// gradientOrder says which gradient each kept allocation of a recorded
// backward is (sizes, in order): the one input among want (indices of
// input, weight, bias) of its size (bytes).
func gradientOrder(op string, sizes []uint64, want []int, bytes func(int) uint64) ([]int, error) {
	var order []int
	for _, size := range sizes {
		match := -1
		for _, i := range want {
			if !slices.Contains(order, i) && bytes(i) == size {
				if match >= 0 {
					return nil, NotModelledError("the backward of " + op + " whose gradients are of equal sizes (the table does not say which is which)")
				}
				match = i
			}
		}
		if match < 0 {
			return nil, fmt.Errorf("internal error: the table's backward of %s makes a tensor of %d bytes, no gradient's size", op, size)
		}
		order = append(order, match)
	}
	if len(order) != len(want) {
		return nil, fmt.Errorf("internal error: the table's backward of %s makes %d gradients, not %d", op, len(order), len(want))
	}
	return order, nil
}

// convReplay makes a recorded phase's allocations on dev in order: each
// kept one the next tensor of outs, the others temporaries freed where
// the recording frees them. A temporary that does not fit is an error
// that says cuDNN would try another engine (not modelled).
func (s *Session) convReplay(dev Device, events []convEvent, outs []tensorShape) ([]*Tensor, error) {
	made := make([]*Tensor, 0, len(outs))
	temps := map[int]*storage{}
	fail := func(err error) ([]*Tensor, error) {
		for _, st := range temps {
			s.release(st)
		}
		for _, t := range made {
			s.dropTensor(t)
		}
		return nil, err
	}
	for _, ev := range events {
		switch {
		case ev.alloc && ev.kept:
			t, err := s.alloc(outs[len(made)].shape, outs[len(made)].dtype, dev)
			if err != nil {
				return fail(err)
			}
			made = append(made, t)
		case ev.alloc:
			st, err := s.newStorage(dev, ev.bytes, false)
			if err != nil {
				return fail(Errorf(NotImplementedError, "a convolution's workspace of %d bytes does not fit in what the device has left; cuDNN then tries its next engine, which is not modelled by gpumemrepl", ev.bytes))
			}
			st.role = roleWorkspace
			temps[ev.id] = st
		default:
			s.release(temps[ev.id])
			delete(temps, ev.id)
		}
	}
	return made, nil
}
