package engine

import (
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// Recurrent layers on cuDNN (nn.RNN, nn.LSTM, nn.GRU), as memory, as
// PyTorch 2.11's native/cudnn/RNN.cpp runs them through cuDNN 9's v8 API.
//
// Weights: _cudnn_rnn_flatten_weight (flatten_parameters, at a module's
// first move to the GPU and after every .to()) makes one zeroed buffer
// the size of cuDNN's weight space, copies each parameter into its place
// and sets the parameter to a view of it there (set_): each old storage
// goes as its parameter moves, in parameter order. A call whose
// parameters are not views of one such buffer, in its layout, copies
// them into a new one for that call (with PyTorch's UserWarning) and the
// graph keeps it.
//
// Forward (_cudnn_rnn): a dense copy of the input when it is not
// contiguous in [steps, batch, features] (batch_first's transpose), the
// output, h_n, c_n (LSTM), cuDNN's workspace, then, when the module is
// training, the reserve space (whatever grad mode says: under no_grad it
// is made and freed); the workspace, then the input's copy, go before it
// returns, and batch_first's output is the [steps, batch] one transposed
// in place. With dropout between layers, the first training call makes
// the device's dropout state (a CUDA int64 seed, made and freed, then the
// state itself), which stays for the process, made again after
// torch.manual_seed. The node (CudnnRnnBackward0; outputs: output, h_n,
// c_n) saves the input, the weights, h_0, c_0, the dropout state, the
// output, the reserve space and the weight buffer: the reserve lives with
// the graph.
//
// Backward: zeros for each of output, h_n and c_n that got no gradient
// (a copy of the reserve first under retain_graph, which backward
// writes); then the data pass: dense copies of the input and of each
// gradient that is not contiguous, the input's gradient, h_0's and c_0's
// and a workspace, freed with the copies; then, when a weight needs
// one, the weight pass: a zeroed buffer of the weight space and a
// workspace. With biases each weight's gradient is a view of that buffer
// (AccumulateGrad keeps the view, so every .grad holds the one buffer);
// without, each is copied out and the buffer goes. The zeros go last;
// a gradient no input needed goes at once.
//
// cuDNN's sizes (rnn_cudnn.go) are recorded at the configurations of
// testdata/rnn and estimated elsewhere: every such call is labelled so.
// Refused: an RNN outside cuDNN (on the host, in bfloat16, with cuDNN
// disabled), which PyTorch runs with its own kernels.

// rnnStates is the session's cuDNN RNN state: the dropout state each
// device keeps (get_dropout_state's cache), and which must be made again
// after the generator was seeded.
type rnnStates struct {
	dropout map[int]*storage
	reseed  map[int]bool
}

// weightFormatWarning is PyTorch's warning for a call whose weights are
// not views of one buffer in cuDNN's layout.
const weightFormatWarning = "RNN module weights are not part of single contiguous chunk of memory. This means they need to be compacted at every call, possibly greatly increasing memory usage. To compact weights again call flatten_parameters()."

func init() {
	ints := func(names ...string) []Param {
		ps := make([]Param, len(names))
		for i, n := range names {
			ps[i] = Param{Name: n, Kind: IntParam}
		}
		return ps
	}
	flatten := &OpDef{Name: "_cudnn_rnn_flatten_weight", Function: true,
		Params: slices.Concat([]Param{{Name: "weight_arr", Kind: TensorsParam}}, ints("weight_stride0", "input_size", "mode", "hidden_size", "proj_size", "num_layers"),
			[]Param{{Name: "batch_first", Kind: BoolParam}, {Name: "bidirectional", Kind: BoolParam}}),
		Memory: "one zeroed buffer of cuDNN's weight space; each weight set to a view of it, its old storage freed (the layout recorded: testdata/rnn)",
		run: func(s *Session, a Args) (*Tensor, error) {
			return s.flattenRNN(a.TensorList(0), a.Int(1), rnnShape{mode: rnnMode(a.Int(3)), input: a.Int(2), hidden: a.Int(4), proj: a.Int(5), layers: a.Int(6), bidir: a.Bool(8)})
		}}
	declare(flatten, rnnOp("lstm", rnnLSTM), rnnOp("gru", rnnGRU), rnnOp("rnn_tanh", rnnTanh), rnnOp("rnn_relu", rnnRelu))
}

// rnnOp is torch.lstm, gru, rnn_tanh or rnn_relu: the layer on cuDNN.
// The packed overload (data, batch_sizes, hx, ...) is bound to this
// signature with batch_sizes= by the front end.
func rnnOp(name string, mode rnnMode) *OpDef {
	hx := Param{Name: "hx", Kind: TensorParam}
	outs := "output, h_n"
	if mode == rnnLSTM {
		hx.Kind = TensorsParam
		outs = "output, h_n, c_n"
	}
	return &OpDef{Name: name, Function: true,
		Params: []Param{input, hx, {Name: "params", Kind: TensorsParam}, {Name: "has_biases", Kind: BoolParam}, {Name: "num_layers", Kind: IntParam},
			{Name: "dropout", Kind: NumberParam}, {Name: "train", Kind: BoolParam}, {Name: "bidirectional", Kind: BoolParam},
			{Name: "batch_first", Kind: BoolParam, Default: "False"}, {Name: "batch_sizes", Kind: TensorParam, Default: "None", KeywordOnly: true}},
		Usage: "torch." + name + "(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) | torch." + name +
			"(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)",
		Memory: outs + ", cuDNN's workspace (freed) and, training, its reserve space, which the graph keeps; backward makes the gradients, a buffer of the weights' and two workspaces (cuDNN's sizes recorded at testdata/rnn's configurations, backward's for LSTM; estimated elsewhere)",
		runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
			outs, err := s.runRNN("torch."+name, mode, a)
			return outs, true, err
		}}
}

// cudnnDType reports whether cuDNN runs an RNN of dt
// (cudnn_is_acceptable: float16, float32, float64).
func cudnnDType(dt DType) bool {
	switch dt.Name {
	case "float16", "float32", "float64":
		return true
	}
	return false
}

// notCudnn refuses an RNN PyTorch runs with its own kernels.
func (s *Session) notCudnn(op string, t *Tensor) error {
	if !t.Device().CUDA || !cudnnDType(t.DType) || s.cudnnFlags().Disabled {
		return Refusef(NotImplementedError, "%s of a %s tensor on %s (cuDNN disabled: %v) runs PyTorch's own kernels, outside cuDNN: not modelled by gpumemrepl", op, t.DType.Name, t.Device(), s.cudnnFlags().Disabled)
	}
	return nil
}

// paramPlace is where weight j of a layer's weights (stride0 of them)
// lies among the layer's places in cuDNN's weight space: in order,
// except that with a projection and no biases the third is the
// projection.
func paramPlace(j, stride0 int64, proj int64) int64 {
	if proj > 0 && stride0 == 3 && j == 2 {
		return 4
	}
	return j
}

// zeros is a new zeroed tensor.
func (s *Session) zeros(shape []int64, dt DType, dev Device) (*Tensor, error) {
	t := &Tensor{Shape: shape, DType: dt}
	st, err := s.newStorage(dev, t.Bytes(), true)
	if err != nil {
		return nil, err
	}
	t.st = st
	return t, nil
}

// flattenRNN is _cudnn_rnn_flatten_weight: the buffer, each weight set to
// its view of it.
func (s *Session) flattenRNN(ws []*Tensor, stride0 int64, shape rnnShape) (*Tensor, error) {
	if len(ws) == 0 {
		return nil, Errorf(RuntimeError, "_cudnn_rnn_flatten_weight: cannot flatten empty weight list")
	}
	if err := s.notCudnn("torch._cudnn_rnn_flatten_weight", ws[0]); err != nil {
		return nil, err
	}
	shape.dtype = ws[0].DType
	layout, total := shape.layout()
	if stride0 <= 0 || int64(len(ws)) != int64(len(layout))*stride0 {
		return nil, Errorf(RuntimeError, "_cudnn_rnn_flatten_weight: %d weights for %d layers and directions of %d each", len(ws), len(layout), stride0)
	}
	flat, err := s.zeros([]int64{total}, shape.dtype, ws[0].Device())
	if err != nil {
		return nil, err
	}
	for i, w := range ws {
		p := layout[int64(i)/stride0][paramPlace(int64(i)%stride0, stride0, shape.proj)]
		if w.Numel() != numel(p.shape) {
			s.dropTensor(flat)
			return nil, Errorf(RuntimeError, "shape '%s' is invalid for input of size %d", dimList(w.Shape), numel(p.shape))
		}
		v := restrided(flat, w.Shape, denseStrides(w.Shape), uint64(p.offset))
		v.view = false // set_: the weight is no view
		s.SetData(w, v)
		s.dropTensor(v)
	}
	return flat, nil
}

// flat reports whether params are views of one buffer at their places in
// cuDNN's layout (try_get_weight_buf), so a call can use it as it is.
func flat(params []*Tensor, stride0, proj int64, layout [][]rnnParam, total int64) bool {
	st, dt := params[0].st, params[0].DType
	if st.bytes/dt.Size < uint64(total) {
		return false
	}
	for i, p := range params {
		place := layout[int64(i)/stride0][paramPlace(int64(i)%stride0, stride0, proj)]
		if p.st != st || p.DType != dt || p.offset != uint64(place.offset) {
			return false
		}
	}
	return params[len(params)-1].IsContiguous()
}

// runRNN is one call of torch.lstm, gru, rnn_tanh or rnn_relu on cuDNN.
func (s *Session) runRNN(op string, mode rnnMode, a Args) ([]*Tensor, error) {
	x := a.Tensor(0)
	var hx, cx *Tensor
	if mode == rnnLSTM {
		h := a.TensorList(1)
		if len(h) != 2 {
			return nil, Errorf(RuntimeError, "lstm expects two hidden states")
		}
		hx, cx = h[0], h[1]
	} else {
		hx = a.Tensor(1)
	}
	params := a.TensorList(2)
	hasBiases, batchFirst := a.Bool(3), a.Bool(8)
	call := rnnCall{rnnShape: rnnShape{mode: mode, layers: a.Int(4), bidir: a.Bool(7), dtype: x.DType, hidden: hx.Shape[len(hx.Shape)-1]}, train: a.Bool(6), dropout: a.Number(5)}
	if err := s.notCudnn(op, x); err != nil {
		return nil, err
	}
	packed := a.Tensor(9) != nil
	if dims := 3 - btoi(packed); len(x.Shape) != dims || len(hx.Shape) != 3 {
		return nil, Errorf(RuntimeError, "%s: input must have %d dimensions and hidden states 3, got %d and %d", op, dims, len(x.Shape), len(hx.Shape))
	}
	if packed {
		sizes, err := hostInts(op, "batch_sizes", a.Tensor(9))
		if err != nil {
			return nil, err
		}
		if len(sizes) == 0 {
			return nil, Errorf(RuntimeError, "%s: empty batch_sizes", op)
		}
		call.seq, call.batch, call.input, call.tokens, call.sizes = int64(len(sizes)), sizes[0], x.Shape[1], x.Shape[0], sizes
		batchFirst = false
	} else {
		call.seq, call.batch, call.input = x.Shape[0], x.Shape[1], x.Shape[2]
		if batchFirst {
			call.seq, call.batch = call.batch, call.seq
		}
	}
	if cx != nil && cx.Shape[2] != hx.Shape[2] {
		call.hidden, call.proj = cx.Shape[2], hx.Shape[2]
	}
	stride0 := int64(2)
	if hasBiases {
		stride0 = 4
	}
	if call.proj > 0 {
		stride0++
	}
	layout, total := call.layout()
	if int64(len(params)) != int64(len(layout))*stride0 {
		return nil, Errorf(RuntimeError, "%s: %d weights for %d layers and directions of %d each", op, len(params), len(layout), stride0)
	}
	cast, err := s.autocastRNN(call, x, hx, cx, params, layout, total)
	if err != nil {
		return nil, err
	}
	if cast != nil {
		defer cast.drop(s)
		x, hx, cx = cast.x, cast.hx, cast.cx
		call.dtype = x.DType
	}
	if err := s.estimateRNN(x.Device(), op, call); err != nil {
		return nil, err
	}
	var dropState *storage
	if call.train && call.dropout > 0 {
		var err error
		if dropState, err = s.rnnDropoutState(x.Device()); err != nil {
			return nil, err
		}
	}
	f := &rnnForward{call: call, op: op, batchFirst: batchFirst, stride0: stride0, layout: layout, total: total}
	f.xShape, f.yShape = []int64{call.seq, call.batch, call.input}, []int64{call.seq, call.batch, call.out() * call.dirs()}
	if packed {
		f.xShape, f.yShape = []int64{call.tokens, call.input}, []int64{call.tokens, call.out() * call.dirs()}
	}
	weights, isFlat := params, flat(params, stride0, call.proj, layout, total)
	if cast != nil && cast.weights != nil {
		weights, isFlat = cast.weights, true
	}
	outs, err := f.run(s, x, hx, cx, weights, isFlat)
	if err != nil {
		return nil, err
	}
	out, hy, cy, reserve, wbuf := outs[0], outs[1], outs[2], outs[3], outs[4]
	if batchFirst { // output.transpose_(0, 1)
		transposeInPlace(out)
	}
	inputs := slices.Concat([]*Tensor{x}, weights, []*Tensor{hx})
	if cx != nil {
		inputs = append(inputs, cx)
	}
	if needsGraph(s, inputs) {
		var drop *Tensor
		if dropState != nil {
			drop = &Tensor{Shape: []int64{int64(dropState.bytes)}, DType: DTypes["uint8"], st: dropState}
		}
		save := slices.Concat(nonNil(cx, drop, hx, x), weights, []*Tensor{out, reserve, wbuf})
		f.hx, f.cx, f.x, f.out = plain(hx), cx, plain(x), plain(out)
		s.record("CudnnRnnBackward0", out, inputs, save, f.backward)
		s.dropSlot(hy)
		hy.fn, hy.out = out.fn, 1
		cy.fn, cy.out = out.fn, 2
		out.fn.refs += 2
		out.fn.grads = make([]*Tensor, 3)
	}
	s.dropTensor(reserve)
	s.dropTensor(wbuf)
	if mode != rnnLSTM {
		s.dropTensor(cy)
		return []*Tensor{out, hy}, nil
	}
	return []*Tensor{out, hy, cy}, nil
}

// transposeInPlace is t.transpose_(0, 1).
func transposeInPlace(t *Tensor) {
	st := t.Strides()
	t.Shape = slices.Clone(t.Shape)
	t.Shape[0], t.Shape[1] = t.Shape[1], t.Shape[0]
	st[0], st[1] = st[1], st[0]
	t.strides, t.strided = st, !contiguous(t.Shape, st)
}

// rnnCast is what autocast makes for a call (AutocastRNN.cpp's
// _cudnn_rnn_cast_reflatten): the input and hidden states cast to
// float16, and, for weights of another dtype, a float16 buffer of the
// weight space with each weight copied into its view there, a cast
// autograd records (ToCopyBackward0): the layer's node leads to those
// views, and each weight's gradient, a float16 view of the backward's
// buffer, is cast back to the weight's dtype in a node of its own once
// the layer's node is done and its saved tensors gone, the last weight
// first, the buffer freed after the last (rnn_layers.py line 108
// recorded it).
type rnnCast struct {
	x, hx, cx *Tensor
	weights   []*Tensor // views of buf
	buf       *Tensor
}

// drop lets go of the cast's references.
func (c *rnnCast) drop(s *Session) {
	dropAll(s, nonNil(c.x, c.hx, c.cx, c.buf))
	dropAll(s, c.weights)
}

// autocastRNN casts a call under torch.autocast for CUDA: nil when it
// is off.
func (s *Session) autocastRNN(call rnnCall, x, hx, cx *Tensor, params []*Tensor, layout [][]rnnParam, total int64) (*rnnCast, error) {
	if st := s.Autocast(); !st.Enabled {
		return nil, nil
	}
	half := DTypes["float16"]
	c := &rnnCast{}
	if params[0].DType != half {
		buf, err := s.zeros([]int64{total}, half, x.Device())
		if err != nil {
			return nil, err
		}
		c.buf = buf
		stride0 := int64(len(params)) / int64(len(layout))
		for i, w := range params {
			p := layout[int64(i)/stride0][paramPlace(int64(i)%stride0, stride0, call.proj)]
			v := restrided(buf, slices.Clone(w.Shape), denseStrides(w.Shape), uint64(p.offset))
			v.view = false
			s.record("ToCopyBackward0", v, []*Tensor{w}, nil, castBackward(w.DType))
			c.weights = append(c.weights, v)
		}
	}
	// _cudnn_rnn's arguments, evaluated last first (GCC's order): c_0's
	// cast, h_0's, then the input's (rnn_layers.py line 105 recorded it)
	casts, ts := []**Tensor{&c.x, &c.hx, &c.cx}, []*Tensor{x, hx, cx}
	for i := len(ts) - 1; i >= 0; i-- {
		if ts[i] == nil {
			continue
		}
		h, err := s.ToDType(ts[i], half)
		if err != nil {
			c.drop(s)
			return nil, err
		}
		*casts[i] = h
	}
	return c, nil
}

// rnnForward is one call's configuration, which its backward needs.
type rnnForward struct {
	call       rnnCall
	op         string
	batchFirst bool
	stride0    int64
	layout     [][]rnnParam
	total      int64
	// xShape and yShape are the input's and output's shapes as cuDNN
	// takes them: [steps, batch, features], or a packed sequence's
	// [rows, features]
	xShape, yShape []int64
	// what the call's tensors were (for the zeros and the gradients'
	// shapes); cx is nil for a layer without a cell state
	x, hx, out Tensor
	cx         *Tensor
}

// run allocates the call's tensors in PyTorch's order: output, h_n, c_n
// (an empty one but for LSTM), the reserve space (empty in inference)
// and the weight buffer, new references each; the workspace and the
// input's copy are freed before it returns.
func (f *rnnForward) run(s *Session, x, hx, cx *Tensor, params []*Tensor, isFlat bool) ([]*Tensor, error) {
	c := f.call
	var made []*Tensor
	fail := func(err error) ([]*Tensor, error) {
		dropAll(s, made)
		return nil, err
	}
	var xCopy *Tensor
	if f.needsCopy(x) { // x = input.contiguous() of the [steps, batch] view
		t, err := s.alloc(slices.Clone(f.xShape), x.DType, x.Device())
		if err != nil {
			return nil, err
		}
		xCopy = t
	}
	defer func() {
		if xCopy != nil {
			s.dropTensor(xCopy)
		}
	}()
	shapes := []tensorShape{{slices.Clone(f.yShape), x.DType}, {[]int64{c.layers * c.dirs(), c.batch, c.out()}, hx.DType}, {[]int64{0}, hx.DType}}
	if cx != nil {
		shapes[2] = tensorShape{[]int64{c.layers * c.dirs(), c.batch, c.hidden}, cx.DType}
	}
	ts, err := s.allocAll(x.Device(), shapes...)
	if err != nil {
		return nil, err
	}
	made = append(made, ts...)
	var wbuf *Tensor
	if isFlat {
		wbuf = restrided(params[0], []int64{f.total}, []int64{1}, 0)
	} else {
		s.warn(weightFormatWarning)
		if wbuf, err = s.zeros([]int64{f.total}, x.DType, x.Device()); err != nil {
			return fail(err)
		}
	}
	made = append(made, wbuf)
	ws, err := s.alloc([]int64{int64(c.workspace())}, DTypes["uint8"], x.Device())
	if err != nil {
		return fail(err)
	}
	reserve, err := s.alloc([]int64{int64(c.reserve())}, DTypes["uint8"], x.Device())
	s.dropTensor(ws)
	if err != nil {
		return fail(err)
	}
	return []*Tensor{ts[0], ts[1], ts[2], reserve, wbuf}, nil
}

// backward is CudnnRnnBackward0: _cudnn_rnn_backward's passes, the
// gradients for the inputs in the node's order (input, each weight, h_0,
// c_0), those no input needs freed at once.
func (f *rnnForward) backward(s *Session, n *node, _ *Tensor) ([]*Tensor, error) {
	c := f.call
	grads := n.grads
	n.grads = make([]*Tensor, len(grads))
	defer dropAll(s, nonNil(grads...))
	dev := f.x.Device()
	var late []*Tensor // freed once the backward's passes are done, zeros last-made first
	defer func() { dropAll(s, late) }()
	if s.retaining { // retain_variables ? result3.clone() : result3
		clone, err := s.alloc([]int64{int64(c.reserve())}, DTypes["uint8"], dev)
		if err != nil {
			return nil, err
		}
		late = append(late, clone)
	}
	likes := []*Tensor{&f.out, &f.hx, f.cx}
	var zeros []*Tensor
	for i, like := range likes {
		if like == nil || grads[i] != nil {
			continue
		}
		z, err := s.zeros(slices.Clone(like.Shape), like.DType, dev)
		if err != nil {
			dropAll(s, zeros)
			return nil, err
		}
		zeros, grads[i] = append(zeros, z), z
	}
	slices.Reverse(zeros)
	late = append(zeros, late...)
	dx, dhx, dcx, err := f.dataPass(s, grads)
	if err != nil {
		return nil, err
	}
	out := make([]*Tensor, len(n.inputs))
	out[0], out[len(f.layout)*int(f.stride0)+1] = dx, dhx
	if f.cx != nil {
		out[len(out)-1] = dcx
	}
	weights := slices.ContainsFunc(n.inputs[1:len(f.layout)*int(f.stride0)+1], func(e edge) bool { return e.to != nil })
	if weights {
		dws, err := f.weightPass(s, n)
		if err != nil {
			dropAll(s, nonNil(out...))
			return nil, err
		}
		copy(out[1:], dws)
	}
	dropAll(s, late)
	late = nil
	for i, e := range n.inputs { // the tuple's gradients no input needs go as apply returns
		if e.to == nil && out[i] != nil {
			s.dropTensor(out[i])
			out[i] = nil
		}
	}
	return out, nil
}

// dataPass is _cudnn_rnn_backward_input: the input's gradient and h_0's
// and c_0's, with the dense copies and the workspace it frees. A call
// made in eval mode fails once the gradients are made, before the
// workspace (PyTorch's check comes there: rnn_layers.py's eval backward
// recorded it), and they go, last made first.
func (f *rnnForward) dataPass(s *Session, grads []*Tensor) (dx, dhx, dcx *Tensor, err error) {
	dev := f.x.Device()
	var temps []*Tensor // freed at its end, last made first
	defer func() {
		slices.Reverse(temps)
		dropAll(s, temps)
	}()
	copies := []struct {
		need  bool
		shape []int64
		dt    DType
	}{
		{f.needsCopy(&f.x), f.xShape, f.x.DType},
		{f.needsCopy(grads[0]), f.yShape, grads[0].DType},
	}
	for _, cp := range copies {
		if cp.need {
			t, err := s.alloc(slices.Clone(cp.shape), cp.dt, dev)
			if err != nil {
				return nil, nil, nil, err
			}
			temps = append(temps, t)
		}
	}
	if dx, err = s.alloc(slices.Clone(f.xShape), f.x.DType, dev); err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (*Tensor, *Tensor, *Tensor, error) {
		made := nonNil(dx, dhx, dcx)
		slices.Reverse(made)
		dropAll(s, made)
		return nil, nil, nil, err
	}
	for i, g := range grads[1:] {
		if g != nil && !g.IsContiguous() && (i == 0 || f.cx != nil) {
			t, err := s.alloc(slices.Clone(g.Shape), g.DType, dev)
			if err != nil {
				return fail(err)
			}
			temps = append(temps, t)
		}
	}
	if dhx, err = s.alloc(slices.Clone(f.hx.Shape), f.hx.DType, dev); err != nil {
		return fail(err)
	}
	if f.cx != nil {
		if dcx, err = s.alloc(slices.Clone(f.cx.Shape), f.cx.DType, dev); err != nil {
			return fail(err)
		}
	}
	if !f.call.train {
		return fail(Errorf(RuntimeError, "cudnn RNN backward can only be called in training mode"))
	}
	workspace, _, err := f.workspaces(s)
	if err != nil {
		return fail(err)
	}
	ws, err := s.alloc([]int64{int64(workspace)}, DTypes["uint8"], dev)
	if err != nil {
		return fail(err)
	}
	temps = append(temps, ws)
	if f.batchFirst { // dx.transpose_(0, 1)
		transposeInPlace(dx)
	}
	return dx, dhx, dcx, nil
}

// workspaces are cuDNN's workspaces of the data and weight passes, the
// call labelled estimated where they were not recorded.
func (f *rnnForward) workspaces(s *Session) (data, weight uint64, err error) {
	c := f.call
	data, weight, recorded := c.backwardWorkspaces()
	if !recorded {
		err = s.estimate(nil, "CudnnRnnBackward0", "%s: cuDNN's workspaces of the data and weight passes estimated as the training forward's (%s); not recorded on the GPU at this configuration (scripts/probe_rnn.py's backward phase)", c, allocator.FormatSize(data))
	}
	return data, weight, err
}

// needsCopy reports whether t, read in the [steps, batch, ...] order
// cuDNN takes (batch_first's transpose of it), is not contiguous, so
// that .contiguous() copies it: a batch of one, or one step, is
// contiguous either way (PyTorch's contiguity skips dimensions of size
// 1), and is not copied.
func (f *rnnForward) needsCopy(t *Tensor) bool {
	if !f.batchFirst || len(t.Shape) < 2 {
		return !t.IsContiguous()
	}
	shape, strides := slices.Clone(t.Shape), slices.Clone(t.Strides())
	shape[0], shape[1] = shape[1], shape[0]
	strides[0], strides[1] = strides[1], strides[0]
	return !contiguous(shape, strides)
}

// weightPass is _cudnn_rnn_backward_weight: a zeroed buffer of the
// weight space and a workspace; each weight's gradient a view of the
// buffer (with biases) or a copy out of it.
func (f *rnnForward) weightPass(s *Session, n *node) ([]*Tensor, error) {
	c, dev := f.call, f.x.Device()
	_, workspace, _ := c.backwardWorkspaces() // labelled by the data pass
	var xCopy *Tensor
	if f.needsCopy(&f.x) {
		t, err := s.alloc(slices.Clone(f.xShape), f.x.DType, dev)
		if err != nil {
			return nil, err
		}
		xCopy = t
	}
	defer func() {
		if xCopy != nil {
			s.dropTensor(xCopy)
		}
	}()
	dw, err := s.zeros([]int64{f.total}, f.x.DType, dev)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(dw)
	ws, err := s.alloc([]int64{int64(workspace)}, DTypes["uint8"], dev)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(ws)
	views := f.stride0 == 4 || f.stride0 == 5 // get_parameters' stride (with biases) is the weights'
	var out []*Tensor
	for i, e := range n.inputs[1 : len(f.layout)*int(f.stride0)+1] {
		shape := slices.Clone(e.shape)
		if !views {
			g, err := s.alloc(shape, e.dtype, dev)
			if err != nil {
				dropAll(s, out)
				return nil, err
			}
			out = append(out, g)
			continue
		}
		p := f.layout[int64(i)/f.stride0][paramPlace(int64(i)%f.stride0, f.stride0, c.proj)]
		v := restrided(dw, shape, denseStrides(shape), uint64(p.offset))
		v.sole = true
		out = append(out, v)
	}
	return out, nil
}

// rnnDropoutState is the device's cuDNN dropout state, made at the first
// training call with dropout, and again after the generator was seeded:
// a CUDA int64 seed drawn from the generator and read back (made and
// freed), then the state, the old one freed after it.
func (s *Session) rnnDropoutState(dev Device) (*storage, error) {
	old := s.rnn.dropout[dev.Index]
	if old != nil && !s.rnn.reseed[dev.Index] {
		return old, nil
	}
	g, err := s.initGPU(dev.Index)
	if err != nil {
		return nil, err
	}
	sms, threads := g.b.grid()
	size := dropoutStateBytes(sms, threads)
	if !dropoutStateRecorded(sms, threads) {
		if err := s.estimate(nil, "cuDNN's dropout state", "%d multiprocessors of %d threads: %d bytes, estimated as the GH100's 24 bytes per resident thread (recorded on 132 of 2048: testdata/rnn)", sms, threads, size); err != nil {
			return nil, err
		}
	}
	seed, err := s.newStorage(dev, 8, false)
	if err != nil {
		return nil, err
	}
	s.release(seed)
	st, err := s.newStorage(dev, size, false)
	if err != nil {
		return nil, err
	}
	if s.rnn.dropout == nil {
		s.rnn.dropout, s.rnn.reseed = map[int]*storage{}, map[int]bool{}
	}
	s.rnn.dropout[dev.Index], s.rnn.reseed[dev.Index] = st, false
	if old != nil {
		s.release(old)
	}
	return st, nil
}

// SeedCUDA is torch.manual_seed or torch.cuda.manual_seed(_all) reaching
// the CUDA generators: the next training RNN call with dropout makes its
// dropout state again.
func (s *Session) SeedCUDA() {
	for i := range s.rnn.dropout {
		s.rnn.reseed[i] = true
	}
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
