package engine

import (
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// torch.autocast on CUDA, as PyTorch 2.11 dispatches it
// (aten/src/ATen/autocast_mode.h and .cpp, recorded in
// testdata/pyrules/amp_*.py): while a region is on, an op of the lists
// below first casts its floating CUDA arguments, each a new tensor that
// autograd records (ToCopyBackward0, which saves nothing; its backward
// converts the gradient back, a new tensor). Arguments are cast last to
// first (the wrapper's pack expansion, as GCC evaluates it), and the ops
// an autocast op runs inside it are not cast again; ops on no list run
// as they would without autocast. A cast of a float32 leaf that
// requires grad to the region's dtype is kept in the cast cache and
// reused until the outermost region exits.

// castPolicy is what autocast does to an op's arguments.
type castPolicy int

// The policies of autocast_mode.h.
const (
	castNone     castPolicy = iota // run as without autocast
	castLower                      // lower_precision_fp: every floating argument to the region's dtype
	castFloat32                    // fp32: every floating argument to float32
	castOptDType                   // fp32_set_opt_dtype: dtype=float32 unless given (no cast of the input)
	castPromote                    // promote: every floating argument to the widest among them
)

// autocastPolicies are PyTorch 2.11's CUDA lists (AT_FORALL_LOWER_PRECISION_FP,
// AT_FORALL_FP32, AT_FORALL_FP32_SET_OPT_DTYPE and AT_FORALL_PROMOTE),
// by the op table's names; norm (Tensor.norm is linalg_vector_norm's,
// with the dtype) is with the set_opt_dtype ones; cat and stack are on
// none (they promote by themselves). square is pow(x, 2) in PyTorch,
// so it runs in float32 too (amp_probe.txt).
var autocastPolicies = map[string]castPolicy{}

func init() {
	for p, names := range map[castPolicy][]string{
		castLower: {"_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
			"conv_transpose3d", "convolution", "prelu", "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv",
			"linalg_vecdot", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot", "lstm_cell",
			"gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "scaled_dot_product_attention", "cudnn_convolution",
			"cudnn_convolution_transpose"},
		castFloat32: {"acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal",
			"rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "native_layer_norm", "group_norm", "frobenius_norm",
			"nuclear_norm", "cosine_similarity", "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
			"hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss",
			"margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss",
			"multi_margin_loss", "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp",
			"square"},
		castOptDType: {"prod", "softmax", "log_softmax", "cumprod", "cumsum", "linalg_vector_norm",
			"linalg_matrix_norm", "sum", "norm"},
		castPromote: {"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sampler", "index_put",
			"tensordot", "scatter_add"},
	} {
		for _, n := range names {
			autocastPolicies[n] = p
		}
	}
}

// AutocastState is CUDA's autocast setting, as torch.autocast sets it.
type AutocastState struct {
	Enabled bool
	// DType is the lower precision ops of castLower run in
	// (torch.get_autocast_dtype('cuda'); float16 by default).
	DType DType
	// CacheEnabled is torch.is_autocast_cache_enabled().
	CacheEnabled bool
}

// autocast is a session's autocast: its setting, the regions open, the
// cast cache (by the leaf's storage) and whether an autocast op runs now.
type autocast struct {
	state   AutocastState
	set     bool // state was set (else the default)
	nesting int
	cache   map[*storage]*Tensor
	cached  []*storage // the cache's keys in the order they came (it frees in that order)
	inOp    bool
	// logProbs marks cross_entropy of a lower-precision input running:
	// its log_softmax hands nll_loss the float32 cast (crossEntropyRun).
	logProbs bool
	// smoothing marks cross_entropy with label_smoothing of a
	// lower-precision input running (labelSmoothing's autocast forms).
	smoothing bool
}

// defaultAutocast is PyTorch's setting before any region: off,
// float16, the cache on.
var defaultAutocast = AutocastState{DType: DTypes["float16"], CacheEnabled: true}

// Autocast is the session's autocast setting now.
func (s *Session) Autocast() AutocastState {
	if !s.amp.set {
		return defaultAutocast
	}
	return s.amp.state
}

// EnterAutocast sets st as a region's __enter__ does (one more region
// open) and returns the setting before, for ExitAutocast.
func (s *Session) EnterAutocast(st AutocastState) AutocastState {
	prev := s.Autocast()
	s.amp.state, s.amp.set = st, true
	s.amp.nesting++
	return prev
}

// ExitAutocast closes a region: when it was the outermost, the cast
// cache lets go of its copies (those autograd saved stay); then the
// setting before the region is back.
func (s *Session) ExitAutocast(prev AutocastState) {
	if s.amp.nesting > 0 {
		s.amp.nesting--
	}
	if s.amp.nesting == 0 {
		s.ClearAutocastCache()
	}
	s.amp.state, s.amp.set = prev, true
}

// ClearAutocastCache is torch.clear_autocast_cache().
func (s *Session) ClearAutocastCache() {
	cache, keys := s.amp.cache, s.amp.cached
	s.amp.cache, s.amp.cached = nil, nil
	for _, k := range keys {
		s.dropTensor(cache[k])
	}
}

// autocastRun runs op name under autocast's policy: with its arguments
// cast (the casts dropped once it returns, those saved or cached kept)
// and the ops it runs inside not cast again: run gets args, or a copy
// with the casts in place of the tensors cast, and returns the op's
// outputs. A castOptDType op of a lower-precision input runs as its
// dtype=torch.float32 form (optDTypeInput, halfToFloat), refused where
// not modelled.
func (s *Session) autocastRun(name string, args Args, run func(Args) ([]*Tensor, error)) ([]*Tensor, error) {
	p := autocastPolicies[name]
	st := s.Autocast()
	switch {
	case !st.Enabled || s.amp.inOp:
		return run(args)
	case name == "cross_entropy":
		return s.crossEntropyRun(args, run)
	case name == "log_softmax" && s.amp.logProbs:
		s.amp.logProbs = false
		return s.logProbsForNLL(args, run)
	case p == castNone:
		return run(args)
	}
	args = slices.Clone(args)
	var made []*Tensor
	defer func() {
		for _, t := range made {
			s.dropTensor(t)
		}
	}()
	s.amp.inOp = true
	defer func() { s.amp.inOp = false }()
	target := Float32
	switch p {
	case castOptDType:
		t := args.Tensor(0)
		if t == nil || !lowerPrecision(t) {
			return run(args)
		}
		if node := halfToFloatNodes[name]; node != "" && t.DType.Name == "float16" {
			return s.halfToFloat(node, t, args, run)
		}
		f, err := s.optDTypeInput(name, t)
		if err != nil {
			return nil, err
		}
		args[0] = f
		made = append(made, f)
		return run(args)
	case castLower:
		target = st.DType
	case castPromote:
		target = promoteType(st.DType, args)
	}
	for i := len(args) - 1; i >= 0; i-- {
		var err error
		switch v := args[i].(type) {
		case *Tensor:
			args[i], err = s.autocastArg(v, target, &made)
		case []*Tensor:
			list := slices.Clone(v)
			for j, t := range list {
				if list[j], err = s.autocastArg(t, target, &made); err != nil {
					break
				}
			}
			args[i] = list
		}
		if err != nil {
			return nil, err
		}
	}
	return run(args)
}

// lowerPrecision reports whether t is a float16 or bfloat16 CUDA tensor.
func lowerPrecision(t *Tensor) bool {
	return !t.number && t.Device().CUDA && (t.DType.Name == "float16" || t.DType.Name == "bfloat16")
}

// eligible reports whether autocast casts t: a floating CUDA tensor,
// not float64 (is_eligible).
func eligible(t *Tensor) bool {
	return t != nil && !t.number && t.Device().CUDA && isFloat(t.DType) && t.DType.Name != "float64"
}

// promoteType is the widest floating dtype among args (promote_type):
// float32 when any eligible one is, else the region's.
func promoteType(low DType, args Args) DType {
	for _, v := range args {
		ts, _ := v.([]*Tensor)
		if t, ok := v.(*Tensor); ok {
			ts = []*Tensor{t}
		}
		for _, t := range ts {
			if eligible(t) && t.DType.Name == "float32" {
				return Float32
			}
		}
	}
	return low
}

// autocastArg is cached_cast: t itself when autocast leaves it, else
// its cast to dt, from the cache for a float32 leaf that requires grad
// going to the region's dtype; made collects the references the op
// holds.
func (s *Session) autocastArg(t *Tensor, dt DType, made *[]*Tensor) (*Tensor, error) {
	if !eligible(t) || t.DType.Name == dt.Name {
		return t, nil
	}
	st := s.Autocast()
	cacheable := dt.Name == st.DType.Name && t.DType.Name == "float32" && t.slot != nil && t.fn == nil &&
		t.offset == 0 && t.strides == nil && !t.expanded && st.CacheEnabled
	ckpt := s.ckpt.forward
	if c, ok := s.amp.cache[t.st]; ok && cacheable {
		if ckpt != nil {
			ckpt.autocastCast(t.st, c, false)
		}
		c = share(c)
		*made = append(*made, c)
		return c, nil
	}
	c, err := s.ToDType(t, dt)
	if err != nil {
		return nil, err
	}
	s.driverEvent(c.Device(), device.Kernel) // the cast
	if ckpt != nil && cacheable {
		ckpt.autocastCast(t.st, c, true)
	}
	if cacheable {
		if s.amp.cache == nil {
			s.amp.cache = map[*storage]*Tensor{}
		}
		s.amp.cache[t.st] = share(c)
		s.amp.cached = append(s.amp.cached, t.st)
	}
	*made = append(*made, c)
	return c, nil
}

// castBackward is ToCopyBackward0's: the gradient converted back to
// the input's dtype, a new tensor of its shape.
func castBackward(dt DType) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		t, err := s.alloc(n.inputs[0].shape, dt, g.Device())
		if err != nil {
			return []*Tensor{nil}, err
		}
		return []*Tensor{t}, nil
	}
}

// optDTypeInput is what sum, softmax and log_softmax read of a
// bfloat16 or float16 input t when autocast gives them dtype=
// torch.float32 (amp_ops.jsonl): sum reads t as it is, into a float32
// result; softmax and log_softmax cast a bfloat16 t to float32 first (a
// cast autograd records). Other ops of castOptDType are refused.
func (s *Session) optDTypeInput(name string, t *Tensor) (*Tensor, error) {
	switch name {
	case "sum":
		return s.readAsFloat32(t), nil
	case "softmax", "log_softmax":
		return s.ToDType(t, Float32)
	}
	return nil, NotModelledError("torch." + name + " of a " + t.DType.Name + " tensor under autocast (its dtype=torch.float32 form)")
}

// halfToFloatNodes are the ops of castOptDType that read a float16
// input with no cast autograd records, by the node autograd records for
// them.
var halfToFloatNodes = map[string]string{"softmax": "SoftmaxBackward0", "log_softmax": "LogSoftmaxBackward0",
	"cumsum": "CumsumBackward0", "norm": "LinalgVectorNormBackward0"}

// halfToFloat runs softmax, log_softmax, cumsum or norm of a float16 t
// into float32 as PyTorch's kernels do it (amp_ops.jsonl,
// amp_reductions.jsonl): the float32 output (and norm's reduction
// temporaries); cumsum then copies t to float32 for its kernel (freed at
// once). Their backward makes t's gradient in t's dtype: softmax's and
// log_softmax's then a float32 temporary of its shape (saving the
// output); cumsum's converts the gradient to t's dtype and makes three
// more of its size, the last the gradient. norm's node saves t and its
// result; its backward is not recorded: running it is refused.
func (s *Session) halfToFloat(name string, t *Tensor, args Args, run func(Args) ([]*Tensor, error)) ([]*Tensor, error) {
	was := s.SetGradEnabled(false)
	v := s.readAsFloat32(t)
	args[0] = v
	outs, err := run(args)
	s.dropTensor(v)
	s.SetGradEnabled(was)
	if err != nil {
		return nil, err
	}
	out := outs[0]
	shape, dt := slices.Clone(t.Shape), t.DType
	temps := []tensorShape{{shape, dt}, {shape, Float32}}
	save := []*Tensor{out}
	if name == "CumsumBackward0" {
		c, err := s.alloc(shape, Float32, t.Device())
		if err != nil {
			s.dropTensor(out)
			return nil, err
		}
		s.dropTensor(c)
		temps, save = []tensorShape{{shape, dt}, {shape, dt}, {shape, dt}, {shape, dt}}, nil
	}
	if name == "LinalgVectorNormBackward0" {
		s.record(name, out, []*Tensor{t}, []*Tensor{t, out}, func(*Session, *node, *Tensor) ([]*Tensor, error) {
			return []*Tensor{nil}, NotModelledError("the backward of torch.norm of a float16 tensor under autocast")
		})
		return outs, nil
	}
	s.record(name, out, []*Tensor{t}, save, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		ts, err := s.allocAll(g.Device(), temps...)
		if err != nil {
			return []*Tensor{nil}, err
		}
		grad := ts[0]
		if name == "CumsumBackward0" {
			grad, ts = ts[3], ts[:3]
		} else {
			ts = ts[1:]
		}
		for _, x := range ts {
			s.dropTensor(x)
		}
		return []*Tensor{grad}, nil
	})
	return outs, nil
}

// readAsFloat32 is t as an op with dtype=torch.float32 reads it (sum):
// the same storage, no copy, seen as float32, so the op's output is
// float32; in the graph it stands for the conversion autograd's engine
// makes of the float32 gradient to t's dtype (validate_outputs), a new
// dense tensor of t's shape.
func (s *Session) readAsFloat32(t *Tensor) *Tensor {
	v := &Tensor{Shape: t.Shape, DType: Float32, st: t.st, offset: t.offset, strides: t.strides, strided: t.strided, expanded: t.expanded}
	t.st.refs++
	s.record("ToCopyBackward0", v, []*Tensor{t}, nil, castBackward(t.DType))
	return v
}

// crossEntropyRun is F.cross_entropy under autocast. PyTorch's composite
// calls log_softmax with the input's own dtype (which autocast leaves)
// and then nll_loss, a float32 op, which casts the log-probabilities of
// a lower-precision input to float32 (amp_reductions.jsonl: the bfloat16
// log-probabilities, their float32 cast, the loss and total_weight).
// The engine's cross_entropy runs its log_softmax through the op table
// and its nll_loss directly, so that log_softmax runs as it is and
// hands nll_loss the cast (logProbsForNLL). Label smoothing's composite
// runs its log_softmax as it is, nll_loss's cast and the smoothing sum
// in float32 (labelSmoothing; amp_ce_smoothing.py: float16 and bfloat16,
// each reduction, forward and backward). Probabilities take another
// path, not recorded: refused.
func (s *Session) crossEntropyRun(args Args, run func(Args) ([]*Tensor, error)) ([]*Tensor, error) {
	x, t := args.Tensor(0), args.Tensor(1)
	if x == nil || t == nil || !lowerPrecision(x) {
		return run(args)
	}
	if slices.Equal(x.Shape, t.Shape) {
		return nil, NotModelledError("F.cross_entropy of probabilities of a " + x.DType.Name + " input under autocast")
	}
	if args.Number(7) != 0 {
		s.amp.smoothing = true
		defer func() { s.amp.smoothing = false }()
		return run(args)
	}
	s.amp.logProbs = true
	defer func() { s.amp.logProbs = false }()
	return run(args)
}

// smoothingLogProbs is label smoothing's log_softmax of x and what its
// nll_loss reads: the same tensor, or under autocast (amp.smoothing)
// the log-probabilities in x's own dtype (PyTorch's composite passes
// it as dtype=, so autocast leaves it) and nll_loss's float32 cast of
// them (a new reference each; the caller drops both).
func (s *Session) smoothingLogProbs(x *Tensor) (lsm, forNLL *Tensor, err error) {
	amp, inOp := s.amp.smoothing, s.amp.inOp
	if amp {
		s.amp.inOp = true
	}
	lsm, err = s.Run(Ops["log_softmax"], Args{x, classDim(x)})
	s.amp.inOp = inOp
	if err != nil || !amp {
		return lsm, share(lsm), err
	}
	forNLL, err = s.ToDType(lsm, Float32)
	if err != nil {
		s.dropTensor(lsm)
		return nil, nil, err
	}
	return lsm, forNLL, nil
}

// logProbsForNLL runs cross_entropy's log_softmax as it is (its node
// saves its output) and returns nll_loss's float32 cast of it.
func (s *Session) logProbsForNLL(args Args, run func(Args) ([]*Tensor, error)) ([]*Tensor, error) {
	outs, err := run(args)
	if err != nil {
		return nil, err
	}
	c, err := s.ToDType(outs[0], Float32)
	s.dropTensor(outs[0])
	if err != nil {
		return nil, err
	}
	return []*Tensor{c}, nil
}
