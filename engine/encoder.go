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
