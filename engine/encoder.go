package engine

// torch._transformer_encoder_layer_fwd, nn.TransformerEncoderLayer's
// fast path (batch_first self-attention in eval without autograd), as
// memory on CUDA (testdata/pyrules/tfm_encoder.py, recorded on the
// H200): with norm_first, layer_norm first; the fast multi-head
// attention without weights (NativeMHA); the input added into its
// output in place; layer_norm (after the block, or with norm_first
// before the next); the feed-forward block, a linear, the activation in
// place and a linear (the first linear's output freed once the second's
// exists); the block's input added in place; without norm_first,
// layer_norm. Each layer_norm's mean and rstd go at once, each tensor
// replaced goes once its successor exists, and the feed-forward block's
// input goes last.

// torch._transformer_encoder_layer_fwd as a table entry.
func init() {
	declare(
		&OpDef{Name: "_transformer_encoder_layer_fwd", Function: true,
			Params: append([]Param{{Name: "src", Kind: TensorParam}, {Name: "embed_dim", Kind: IntParam}, {Name: "num_heads", Kind: IntParam},
				{Name: "qkv_weight", Kind: TensorParam}, {Name: "qkv_bias", Kind: TensorParam},
				{Name: "proj_weight", Kind: TensorParam}, {Name: "proj_bias", Kind: TensorParam},
				{Name: "use_gelu", Kind: BoolParam}, {Name: "norm_first", Kind: BoolParam}, {Name: "eps", Kind: NumberParam}},
				append(tensorParams("norm_weight_1", "norm_bias_1", "norm_weight_2", "norm_bias_2", "ffn_weight_1", "ffn_bias_1", "ffn_weight_2", "ffn_bias_2"),
					Param{Name: "mask", Kind: TensorParam, Default: "None"}, Param{Name: "mask_type", Kind: IntParam, Default: "None"})...),
			Memory: "nn.TransformerEncoderLayer's fast path (eval, no autograd): layer norms (their statistics freed at once), the fast multi-head attention, the residuals added in place, linear, the activation in place, linear",
			run: func(s *Session, a Args) (*Tensor, error) {
				w := EncoderLayerWeights{InW: a.Tensor(3), InB: a.Tensor(4), OutW: a.Tensor(5), OutB: a.Tensor(6),
					Norm1W: a.Tensor(10), Norm1B: a.Tensor(11), Norm2W: a.Tensor(12), Norm2B: a.Tensor(13),
					W1: a.Tensor(14), B1: a.Tensor(15), W2: a.Tensor(16), B2: a.Tensor(17)}
				return s.EncoderLayerFast(a.Tensor(0), a.Int(1), a.Int(2), w, a.Bool(8), a.Tensor(18))
			}},
	)
}

// tensorParams are required tensor parameters of these names.
func tensorParams(names ...string) []Param {
	ps := make([]Param, len(names))
	for i, n := range names {
		ps[i] = Param{Name: n, Kind: TensorParam}
	}
	return ps
}

// EncoderLayerWeights are an encoder layer's tensors, as
// torch._transformer_encoder_layer_fwd takes them.
type EncoderLayerWeights struct {
	InW, InB, OutW, OutB           *Tensor // the attention's projections
	Norm1W, Norm1B, Norm2W, Norm2B *Tensor // the two layer norms
	W1, B1, W2, B2                 *Tensor // the feed-forward block's linears
}

// EncoderLayerFast is torch._transformer_encoder_layer_fwd(src,
// embed_dim, num_heads, ..., norm_first, ..., mask) on CUDA.
func (s *Session) EncoderLayerFast(src *Tensor, embedDim, heads int64, w EncoderLayerWeights, normFirst bool, mask *Tensor) (*Tensor, error) {
	e := &encoderRun{s: s, x: share(src), dim: embedDim}
	if normFirst {
		e.norm(w.Norm1W, w.Norm1B)
	}
	if e.err == nil {
		outs, err := s.NativeMHA(e.x, e.x, e.x, embedDim, heads, w.InW, w.InB, w.OutW, w.OutB, mask, false, true)
		if err == nil {
			e.step(outs[0], nil)
		} else {
			e.err = err
		}
	}
	if !normFirst {
		e.norm(w.Norm1W, w.Norm1B)
	}
	block := share(e.x)
	defer s.dropTensor(block)
	if normFirst {
		e.norm(w.Norm2W, w.Norm2B)
	}
	if e.err == nil {
		h, err := s.Linear(e.x, w.W1, w.B1)
		if err == nil {
			y, err := s.Linear(h, w.W2, w.B2)
			s.dropTensor(h)
			e.step(y, err)
		} else {
			e.err = err
		}
	}
	if !normFirst {
		e.norm(w.Norm2W, w.Norm2B)
	}
	if e.err != nil {
		s.dropTensor(e.x)
		return nil, e.err
	}
	return e.x, nil
}

// encoderRun is an encoder layer's forward under way: its current
// tensor, and the first error, after which its steps do nothing.
type encoderRun struct {
	s   *Session
	x   *Tensor
	dim int64
	err error
}

// step makes next the current tensor, freeing the one it replaces.
func (e *encoderRun) step(next *Tensor, err error) {
	switch {
	case e.err != nil:
	case err != nil:
		e.err = err
	default:
		e.s.dropTensor(e.x)
		e.x = next
	}
}

// norm is layer_norm of the current tensor over its last dimension.
func (e *encoderRun) norm(w, b *Tensor) {
	if e.err == nil {
		e.step(e.s.LayerNorm(e.x, []int64{e.dim}, w, b))
	}
}
