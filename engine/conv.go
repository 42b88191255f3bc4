package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// Convolutions (F.conv1d, conv2d, conv3d, conv_transpose1d/2d/3d;
// nn.Conv*d's forward) on the GPU, as PyTorch 2.11 runs them with cuDNN
// 9.19 on the H200 (testdata/conv/README.md,
// testdata/pyrules/conv_layers.py): forward makes the output, then
// cuDNN's workspace, freed before it returns (the bias is added in
// place); the node saves the input and the weight. Backward makes, for
// what requires grad, the input's gradient and its workspace, the
// weight's and its workspace (PyTorch's depthwise kernel: the weight's
// first, no workspace), then the bias's, a sum of the incoming
// gradient, which a broadcast gradient takes through a reduction
// buffer; a broadcast gradient is first made dense, once for each of the
// two cuDNN calls, a strided one as its backend does (convgrad.go). The workspaces' sizes follow cuDNN's heuristics, so
// each configuration's allocations are read from the table of recorded
// ones (convtable.go; calibration files add the user's own,
// calibration.go); one not in it is estimated from the nearest recorded
// one (convestimate.go), or under --strict refused with the probe's line
// that records it. A strided input is copied dense first (PyTorch's
// input.contiguous(), estimated).

// The convolutions as table entries, F.conv1d, conv2d and conv3d (and
// torch.convNd), with PyTorch's signatures.
func init() {
	for dims := 1; dims <= 3; dims++ {
		name := fmt.Sprintf("conv%dd", dims)
		d := functional(&OpDef{Name: name,
			Params: []Param{input, {Name: "weight", Kind: TensorParam}, {Name: "bias", Kind: TensorParam, Default: "None"},
				{Name: "stride", Kind: DimsParam, Default: "1"}, {Name: "padding", Kind: PaddingParam, Default: "0"},
				{Name: "dilation", Kind: DimsParam, Default: "1"}, {Name: "groups", Kind: IntParam, Default: "1"}},
			Memory: "cuDNN's, from the table of recorded configurations (others estimated from the nearest recorded one; a calibration file records yours: docs/calibration.md): the output, then its workspace, freed (the bias added in place; input and weight saved); backward the input's gradient and workspace, the weight's and workspace, then the bias's (a sum); a broadcast gradient made dense first, once for each cuDNN call, a strided one as its backend does (cuDNN once where it suggests channels_last, the depthwise kernel once); a strided input copied dense first (estimated)",
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
		tname := fmt.Sprintf("conv_transpose%dd", dims)
		t := functional(&OpDef{Name: tname,
			Params: []Param{input, {Name: "weight", Kind: TensorParam}, {Name: "bias", Kind: TensorParam, Default: "None"},
				{Name: "stride", Kind: DimsParam, Default: "1"}, {Name: "padding", Kind: DimsParam, Default: "0"},
				{Name: "output_padding", Kind: DimsParam, Default: "0"}, {Name: "groups", Kind: IntParam, Default: "1"},
				{Name: "dilation", Kind: DimsParam, Default: "1"}},
			Memory: "cuDNN's (its backward-data call), from the table of recorded configurations as convNd's (none recorded yet: estimated from the nearest recorded one, or calibrated): the output, then its workspace, freed (the bias added in place; input and weight saved); backward the input's gradient and workspace, the weight's and workspace, then the bias's",
			run: func(s *Session, a Args) (*Tensor, error) {
				op := "F." + tname
				p, err := convTransposeArgs(op, dims, a)
				if err != nil {
					return nil, err
				}
				return s.conv(op, dims, a.Tensor(0), a.Tensor(1), a.Tensor(2), p)
			}})
		t.Function = true // torch.conv_transposeNd too
		declare(t)
	}
}

// convTransposeArgs reads F.conv_transposeNd's arguments (input,
// weight, bias, stride, padding, output_padding, groups, dilation).
func convTransposeArgs(op string, dims int, a Args) (convParams, error) {
	p := convParams{groups: a.Int(6), transposed: true}
	var err error
	for _, f := range []struct {
		name string
		arg  any
		to   *[]int64
		min  int64
	}{{"stride", a[3], &p.stride, 1}, {"padding", a[4], &p.padding, 0}, {"output_padding", a[5], &p.outPad, 0}, {"dilation", a[7], &p.dilation, 1}} {
		if *f.to, err = spatialInts(op, f.name, intsArg(f.arg), dims); err != nil {
			return p, err
		}
		for _, n := range *f.to {
			if n < f.min {
				switch f.name {
				case "stride":
					return p, Errorf(RuntimeError, "non-positive stride is not supported")
				case "dilation":
					return p, Errorf(RuntimeError, "dilation should be greater than zero")
				case "padding":
					return p, Errorf(RuntimeError, "negative padding is not supported")
				}
				return p, Errorf(RuntimeError, "negative output_padding is not supported")
			}
		}
	}
	if p.groups <= 0 {
		return p, Errorf(RuntimeError, "non-positive groups is not supported")
	}
	for i := range dims {
		if p.outPad[i] >= p.stride[i] && p.outPad[i] >= p.dilation[i] {
			return p, Errorf(RuntimeError, "output padding must be smaller than either stride or dilation, but got output_padding_height: %d output_padding_width: %d stride_height: %d stride_width: %d dilation_height: %d dilation_width: %d",
				p.outPad[0], p.outPad[min(1, dims-1)], p.stride[0], p.stride[min(1, dims-1)], p.dilation[0], p.dilation[min(1, dims-1)])
		}
	}
	return p, nil
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
// one of each list per spatial dimension; a transposed one's
// output_padding.
type convParams struct {
	stride, padding, dilation, outPad []int64
	groups                            int64
	transposed                        bool
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
	if w.Shape[0]%p.groups != 0 {
		return nil, Errorf(RuntimeError, "Given groups=%d, expected weight to be divisible by %d at dimension 0, but got weight of size %s instead", p.groups, p.groups, dimList(w.Shape))
	}
	if p.transposed {
		k = w.Shape[1] * p.groups
		if x.Shape[1] != w.Shape[0] {
			return nil, Errorf(RuntimeError, "Given transposed=1, weight of size %s, expected input%s to have %d channels, but got %d channels instead", dimList(w.Shape), dimList(x.Shape), w.Shape[0], x.Shape[1])
		}
	} else if x.Shape[1] != w.Shape[1]*p.groups {
		return nil, Errorf(RuntimeError, "Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d channels instead", p.groups, dimList(w.Shape), dimList(x.Shape), w.Shape[1]*p.groups, x.Shape[1])
	}
	if b != nil && (len(b.Shape) != 1 || b.Shape[0] != k) {
		if p.transposed {
			return nil, Errorf(RuntimeError, "Given transposed=1, weight of size %s, expected bias to be 1-dimensional with %d elements, but got bias of size %s instead", dimList(w.Shape), k, dimList(b.Shape))
		}
		return nil, Errorf(RuntimeError, "Given weight of size %s, expected bias to be 1-dimensional with %d elements, but got bias of size %s instead", dimList(w.Shape), k, dimList(b.Shape))
	}
	if x.DType != w.DType || b != nil && b.DType != w.DType {
		return nil, Errorf(RuntimeError, "Input type (%s) and weight type (%s) should be the same", tensorType(x), tensorType(w))
	}
	shape := []int64{x.Shape[0], k}
	padded, kernel := make([]string, dims), make([]string, dims)
	small := false
	for i := range dims {
		span := p.dilation[i]*(w.Shape[i+2]-1) + 1
		if p.transposed {
			shape = append(shape, (x.Shape[i+2]-1)*p.stride[i]-2*p.padding[i]+span+p.outPad[i])
			continue
		}
		in := x.Shape[i+2] + 2*p.padding[i]
		padded[i], kernel[i] = fmt.Sprint(in), fmt.Sprint(span)
		small = small || in < span
		shape = append(shape, (in-span)/p.stride[i]+1)
	}
	if p.transposed && slices.ContainsFunc(shape[2:], func(n int64) bool { return n <= 0 }) {
		return nil, Errorf(RuntimeError, "Given input size per channel: (%s). Calculated output size per channel: (%s). Output size is too small", joinDims(x.Shape[2:], " x "), joinDims(shape[2:], " x "))
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
	case !w.IsContiguous() || x.expanded || len(x.Shape) == 4 && slices.Equal(x.Strides(), channelsLastStrides(x.Shape)):
		return NotModelledError(op + " of a channels_last or broadcast input, or a weight that is not contiguous (channels_last is not modelled; a strided input is, copied)")
	case x.offset != 0 && x.IsContiguous() || w.offset != 0:
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
	cfg := convConfig{x: x.Shape, w: w.Shape, stride: p.stride, padding: p.padding, dilation: p.dilation, groups: p.groups,
		bias: b != nil, dtype: x.DType, format: "contiguous", deterministic: s.cudnnFlags().Deterministic,
		transposed: p.transposed, outPad: p.outPad}
	e, err := s.convLookup(op, dev, &cfg, gradMask(s.gradEnabled, x, w, b))
	if err != nil {
		return nil, err
	}
	if e.yBytes != numel(shape)*x.DType.Size {
		return nil, Refusef(RuntimeError, "internal error: the table's record of %s has other sizes than its configuration", op)
	}
	events := e.forward
	strided := !x.IsContiguous()
	if strided {
		// recorded for conv1d (testdata/pyrules/zoo_paths.py, pointnet's)
		if dims != 1 {
			if err := s.estimate(nil, op, "%s of a strided input: PyTorch copies it dense first (x bytes, freed after the call), a rule from its source not recorded", cfg.brief()); err != nil {
				return nil, err
			}
		}
		events = withInputCopy(events, e.xBytes, dims == 1)
	}
	if cfg.onCuDNN() {
		// before the output: siamese_triplet's 2 MiB came before its
		// first convolution's output made a segment (device.CuDNNHandle)
		s.driverEvent(dev, device.CuDNNHandle)
	}
	outs, err := s.convReplay(dev, events, func(byte) tensorShape { return tensorShape{shape, x.DType} })
	if err != nil {
		return nil, err
	}
	s.record("ConvolutionBackward0", outs[0], []*Tensor{x, w, b}, []*Tensor{x, w}, convBackward(op, e, strided))
	return outs[0], nil
}

// withInputCopy is a phase's events after PyTorch's dense copy of a
// strided input: the copy first, freed once the cuDNN call returns
// (input.contiguous() in its argument list), before the bias's gradient,
// which comes after it; a 1-d convolution's input is made contiguous
// when _convolution and convolution_backward begin, and freed when they
// end (atEnd).
func withInputCopy(events []convEvent, xBytes uint64, atEnd bool) []convEvent {
	id := len(events) + 1 // beyond every id of the phase's
	out := []convEvent{{alloc: true, bytes: xBytes, id: id}}
	freed := false
	for _, e := range events {
		if e.alloc && e.kept && e.role == 'b' && !freed && !atEnd {
			out = append(out, convEvent{bytes: xBytes, id: id})
			freed = true
		}
		out = append(out, e)
	}
	if !freed {
		out = append(out, convEvent{bytes: xBytes, id: id})
	}
	return renumbered(out)
}

// withDenseGradient is a dense incoming gradient's backward events made
// those of one that is not contiguous, as the recorded broadcast
// gradients show PyTorch's cuDNN backward: a dense copy of the gradient
// (y bytes) after the input's gradient and before the weight's, each
// freed when that call's workspace is.
func withDenseGradient(events []convEvent, yBytes uint64) []convEvent {
	id := len(events) + 1 // beyond every id of the phase's
	var out []convEvent
	open := false
	closeCopy := func() {
		if open {
			out = append(out, convEvent{bytes: yBytes, id: id})
			id++
			open = false
		}
	}
	for _, e := range events {
		if e.alloc && e.kept {
			closeCopy()
			if e.role == 'w' {
				out = append(out, convEvent{alloc: true, bytes: yBytes, id: id}, e)
				open = true
				continue
			}
			out = append(out, e)
			if e.role == 'x' {
				out = append(out, convEvent{alloc: true, bytes: yBytes, id: id})
				open = true
			}
			continue
		}
		out = append(out, e)
	}
	closeCopy()
	return renumbered(out)
}

// renumbered is events with each allocation's id its place among the
// phase's allocations, as a recording numbers them.
func renumbered(events []convEvent) []convEvent {
	ids := map[int]int{}
	out := make([]convEvent, len(events))
	for i, e := range events {
		if e.alloc {
			ids[e.id] = len(ids)
		}
		e.id = ids[e.id]
		out[i] = e
	}
	return out
}

// channelsLastStrides are a 4-d shape's strides in channels_last.
func channelsLastStrides(shape []int64) []int64 {
	c, h, w := max(shape[1], 1), max(shape[2], 1), max(shape[3], 1)
	return []int64{c * h * w, 1, w * c, c}
}

// convLookup is cfg's recorded entry, or, where none was recorded, an
// estimated one (its forward the nearest recording's, carried over:
// convestimate.go), an estimate the session records, as is a recording
// made on other cards than dev's GPU; mask is the grads its backward
// will make (the refusal's line records that backward too).
// Under Options.ForceGeneral naming op ("conv2d"; not "all", which is
// the general rule's ops) the built-in recordings are held out: each
// configuration is estimated from the others, to measure the estimate
// against them (a calibration file's stay exact).
func (s *Session) convLookup(op string, dev Device, cfg *convConfig, mask string) (*convEntry, error) {
	table, err := s.convTables()
	if err != nil {
		return nil, err
	}
	key := cfg.canon()
	held := s.convHeldOut(op)
	if e := table[key]; e != nil && (!held || e.calibrated) {
		if err := e.readEvents(); err != nil {
			return nil, Refusef(RuntimeError, "internal error: the conv table's %s: %v", e.source, err)
		}
		if card := s.cardOf(dev); !e.calibrated && !slices.Contains(e.cards, card) {
			if err := s.estimate(cfg.key().onOtherCard(op, "", e.cards, e.source, card), op, "%s: %s", cfg.brief(), otherCard(e.cards, e.source, card)); err != nil {
				return nil, err
			}
		}
		return e, nil
	}
	var skip *convConfig
	if held {
		skip = cfg
	}
	var bwd []convBackwardKey
	if mask != "" {
		bwd = append(bwd, convBackwardKey{mask, "dense"})
	}
	refusal := cfg.key().notRecorded(op, "", bwd...)
	est := s.convEstimated[key]
	if est == nil {
		events, cause, ok := s.convIndex().convEstimate(cfg, nil, skip)
		if !ok {
			return nil, refusal
		}
		est = newConvEntry(cfg, cause)
		est.forward = events
		if skip != nil {
			est.heldOut = &est.cfg
		}
		est.parsed.Do(func() {})
	}
	if err := s.estimate(refusal, op, "%s: %s", cfg.brief(), est.source); err != nil {
		return nil, err
	}
	if s.convEstimated == nil {
		s.convEstimated = map[string]*convEntry{}
	}
	s.convEstimated[key] = est
	return est, nil
}

// convIndex is the session's table as the estimate searches it, made
// at its first estimate (after convTables).
func (s *Session) convIndex() *convIndex {
	if s.convSearch == nil {
		s.convSearch = s.convTable.index()
	}
	return s.convSearch
}

// convHeldOut reports whether Options.ForceGeneral sets op's built-in
// recordings aside.
func (s *Session) convHeldOut(op string) bool {
	return slices.Contains(s.opts.ForceGeneral, strings.TrimPrefix(op, "F."))
}

// brief is c as an estimate names it: "[12, 3, 96, 96] x [64, 3, 7, 7]
// stride [2, 2] float32".
func (c *convConfig) brief() string {
	k := c.key()
	return fmt.Sprintf("%s x %s stride %s %s", k.X, k.W, k.Stride, k.DType)
}

// onCuDNN is whether PyTorch runs c on cuDNN (ConvUtils' backend
// selection): every convolution but a depthwise one (groups = input
// channels, not transposed), which runs on PyTorch's own kernels, or in
// float16 on either by the workload (use_cudnn_depthwise), taken as its
// own.
func (c *convConfig) onCuDNN() bool {
	return c.transposed || c.groups <= 1 || c.groups != c.x[1]
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

// convBackward is ConvolutionBackward0's backward for entry e: its
// recorded run of the gradients asked and the incoming gradient's
// layout, or one estimated from the nearest recording of that run; a
// strided input (strided) is copied dense first.
func convBackward(op string, e *convEntry, strided bool) backward {
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
		strideGrad := false
		switch {
		case g.IsContiguous():
		case g.expanded && g.st.bytes == g.DType.Size:
			bk.grad = "expanded"
		case g.expanded:
			return grads, NotModelledError("the backward of " + op + " with an incoming gradient broadcast from more than a number")
		default:
			strideGrad = true
		}
		events, err := s.convBackwardEvents(op, g.Device(), e, bk)
		if err != nil {
			return grads, err
		}
		if strideGrad {
			if events, err = s.stridedGradient(op, e, g, bk.mask, events); err != nil {
				return grads, err
			}
		}
		if strided {
			if len(e.cfg.x) != 3 { // conv1d's recorded (zoo_paths.py)
				if err := s.estimate(nil, op+" backward", "%s of a strided input: PyTorch copies it dense first again (x bytes), a rule from its source not recorded", e.cfg.brief()); err != nil {
					return grads, err
				}
			}
			events = withInputCopy(events, e.xBytes, len(e.cfg.x) == 3)
		}
		order, err := gradientRoles(op, events, want)
		if err != nil {
			return grads, err
		}
		outs, err := s.convReplay(g.Device(), events, func(role byte) tensorShape {
			return tensorShape{n.inputs[strings.IndexByte("xwb", role)].shape, g.DType}
		})
		if err != nil {
			return grads, err
		}
		if strideGrad && strings.Contains(bk.mask, "b") {
			if err := s.biasGradientTemps(op, e, g); err != nil {
				for _, t := range outs {
					s.dropTensor(t)
				}
				return grads, err
			}
		}
		for j, i := range order {
			grads[i] = outs[j]
		}
		return grads, nil
	}
}

// otherCard is the cause of an estimate that follows a recording made
// on other cards (recorded, from the built-in file source) than the one
// simulated: cuDNN picks its engines, and so its workspaces, per GPU.
// Between the H100 and the H200 (both GH100, 132 multiprocessors) it
// chose the same in all but one of the configurations recorded on both
// (testdata/conv/README.md).
func otherCard(recorded []string, source, simulated string) string {
	cause := "cuDNN's workspace recorded on " + strings.Join(recorded, " and ") + " (" + source + "), not on the simulated " + simulated
	if gh100(simulated) && slices.ContainsFunc(recorded, gh100) {
		return cause + ": of 146 phases recorded on both the H100 and the H200 145 agree, one backward's workspace differs"
	}
	return cause + ": cuDNN picks its engines per GPU"
}

// gh100 is whether a card is an H100 or an H200 (one GH100 die).
func gh100(card string) bool {
	return strings.Contains(card, "H100") || strings.Contains(card, "H200")
}

// convBackwardEvents is e's backward bk on dev's GPU: recorded (an
// estimate where on other cards), or estimated from the nearest
// recording of that run (an estimate the session records).
func (s *Session) convBackwardEvents(op string, dev Device, e *convEntry, bk convBackwardKey) ([]convEvent, error) {
	if ev, ok := e.backward[bk]; ok && e.hasPhase(&bk) {
		if cards, card := e.runOn(bk), s.cardOf(dev); !e.calibrated && !slices.Contains(cards, card) {
			refusal := e.cfg.key().onOtherCard(op, fmt.Sprintf(" (its backward for %s, a %s incoming gradient)", bk.mask, bk.grad), cards, e.source, card)
			if err := s.estimate(refusal, op+" backward", "%s, grads of %s, the incoming gradient %s: %s", e.cfg.brief(), bk.mask, bk.grad, otherCard(cards, e.source, card)); err != nil {
				return nil, err
			}
		}
		return ev, nil
	}
	if _, err := s.convTables(); err != nil {
		return nil, err
	}
	refusal := e.cfg.key().notRecorded(op, fmt.Sprintf(" (its backward for %s, a %s incoming gradient)", bk.mask, bk.grad), bk)
	events, cause, ok := s.convIndex().convEstimate(&e.cfg, &bk, e.heldOut)
	if !ok {
		return nil, refusal
	}
	if err := s.estimate(refusal, op+" backward", "%s, grads of %s, the incoming gradient %s: %s", e.cfg.brief(), bk.mask, bk.grad, cause); err != nil {
		return nil, err
	}
	return events, nil
}

// gradientRoles says which gradient each kept allocation of a
// backward's events is, in order: indices into want's inputs (input,
// weight, bias), which it must make each once.
func gradientRoles(op string, events []convEvent, want []int) ([]int, error) {
	var order []int
	for _, e := range events {
		if !e.alloc || !e.kept {
			continue
		}
		if e.role == 0 {
			return nil, NotModelledError("the backward of " + op + " whose gradients are of equal sizes (the table does not say which is which)")
		}
		i := strings.IndexByte("xwb", e.role)
		if !slices.Contains(want, i) || slices.Contains(order, i) {
			return nil, Refusef(RuntimeError, "internal error: the table's backward of %s makes the gradient of %c, which was not asked", op, e.role)
		}
		order = append(order, i)
	}
	if len(order) != len(want) {
		return nil, Refusef(RuntimeError, "internal error: the table's backward of %s makes %d gradients, not %d", op, len(order), len(want))
	}
	return order, nil
}

// gradientOrder says which gradient each kept allocation of a backward
// recorded in the older form is (sizes, in order): the one input among
// want (indices of input, weight, bias) of its size (bytes); -1 where
// two are of its size.
func gradientOrder(sizes []uint64, want []int, bytes func(int) uint64) ([]int, error) {
	var order []int
	for _, size := range sizes {
		match := -1
		for _, i := range want {
			if !slices.Contains(order, i) && bytes(i) == size {
				if match >= 0 {
					match = -2
					break
				}
				match = i
			}
		}
		if match == -1 {
			return nil, fmt.Errorf("a tensor of %d bytes, no gradient's size", size)
		}
		order = append(order, max(match, -1))
	}
	if len(order) != len(want) {
		return nil, fmt.Errorf("%d gradients kept, not %d", len(order), len(want))
	}
	return order, nil
}

// convReplay makes a phase's allocations on dev in order: each kept one
// a tensor of the shape its role has (shape), the others temporaries
// freed where the recording frees them. A temporary that does not fit is
// an error that says cuDNN would try another engine (not modelled).
func (s *Session) convReplay(dev Device, events []convEvent, shape func(role byte) tensorShape) ([]*Tensor, error) {
	var made []*Tensor
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
			out := shape(ev.role)
			t, err := s.alloc(out.shape, out.dtype, dev)
			if err != nil {
				return fail(err)
			}
			made = append(made, t)
		case ev.alloc:
			st, err := s.newStorage(dev, ev.bytes, false)
			if err != nil {
				return fail(Refusef(NotImplementedError, "a convolution's workspace of %d bytes does not fit in what the device has left; cuDNN then tries its next engine, which is not modelled by gpumemrepl", ev.bytes))
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
