package engine

import "fmt"

// The table's transformer entries: embedding, layer_norm, rms_norm,
// dropout and scaled_dot_product_attention, torch.nn.functional
// functions whose rules are in embedding.go, norm_layer.go, dropout.go
// and attention.go, and tril and triu, which make attention masks
// (testdata/pyrules/tfm_*.py).

var (
	weightOpt = Param{Name: "weight", Kind: TensorParam, Default: "None"}
	biasOpt   = Param{Name: "bias", Kind: TensorParam, Default: "None"}
	// normalizedShape is layer_norm's and rms_norm's normalized_shape.
	normalizedShape = Param{Name: "normalized_shape", Kind: DimsParam}
)

func init() {
	for _, name := range []string{"tril", "triu"} {
		declare(&OpDef{Name: name, Function: true, Method: true, Params: []Param{input, {Name: "diagonal", Kind: IntParam, Default: "0"}},
			Memory: "new tensor of the input's shape and dtype (a causal mask's); under autograd not modelled",
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				if len(x.Shape) < 2 {
					return nil, fmt.Errorf("RuntimeError: %s: input tensor must have at least 2 dimensions", name)
				}
				if s.gradEnabled && x.requiresGrad() {
					return nil, NotModelledError("Tensor." + name + " of a tensor that requires grad")
				}
				return s.alloc(x.Shape, x.DType, x.Device())
			}})
	}
	declare(
		functional(&OpDef{Name: "embedding",
			Params: []Param{input, {Name: "weight", Kind: TensorParam}, {Name: "padding_idx", Kind: IntParam, Default: "None"},
				{Name: "max_norm", Kind: NumberParam, Default: "None"}, {Name: "norm_type", Kind: NumberParam, Default: "2.0"},
				{Name: "scale_grad_by_freq", Kind: BoolParam, Default: "False"}, {Name: "sparse", Kind: BoolParam, Default: "False"}},
			Memory: "new tensor (the indices' shape + [dim]); saves the indices; backward makes the weight's gradient (zeros of its shape) after a dense copy of a strided gradient",
			run: func(s *Session, a Args) (*Tensor, error) {
				switch {
				case a[3] != nil:
					return nil, NotModelledError("F.embedding with max_norm (it renormalizes the weight in place)")
				case a.Bool(5) || a.Bool(6):
					return nil, NotModelledError("F.embedding with scale_grad_by_freq or sparse")
				}
				return s.Embedding(a.Tensor(0), a.Tensor(1))
			}}),
		functional(&OpDef{Name: "layer_norm",
			Params: []Param{input, normalizedShape, weightOpt, biasOpt, {Name: "eps", Kind: NumberParam, Default: "1e-05"}},
			Memory: "new tensor, then mean and rstd (float32, one per row); saves input, mean and rstd; backward makes the input's, weight's and bias's gradients in that order",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.LayerNorm(a.Tensor(0), a.Ints(1), a.Tensor(2), a.Tensor(3))
			}}),
		functional(&OpDef{Name: "rms_norm",
			Params: []Param{input, normalizedShape, weightOpt, {Name: "eps", Kind: NumberParam, Default: "None"}},
			Memory: "new tensor, then rstd (float32, one per row); saves input and rstd; backward makes the input's and weight's gradients",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.RMSNorm(a.Tensor(0), a.Ints(1), a.Tensor(2))
			}}),
		functional(&OpDef{Name: "dropout",
			Params: []Param{input, {Name: "p", Kind: NumberParam, Default: "0.5"}, {Name: "training", Kind: BoolParam, Default: "True"},
				{Name: "inplace", Kind: BoolParam, Default: "False"}},
			Memory: "training: a bool mask (saved), then the output; backward makes the gradient; p=0 or training=False: the input itself; inplace: a noise tensor of the input's size multiplied in (saved)",
			run: func(s *Session, a Args) (*Tensor, error) {
				if a.Bool(3) {
					if err := s.DropoutInPlace(a.Tensor(0), a.Number(1), a.Bool(2)); err != nil {
						return nil, err
					}
					return share(a.Tensor(0)), nil
				}
				return s.Dropout(a.Tensor(0), a.Number(1), a.Bool(2))
			}}),
		functional(&OpDef{Name: "scaled_dot_product_attention",
			Params: []Param{{Name: "query", Kind: TensorParam}, {Name: "key", Kind: TensorParam}, {Name: "value", Kind: TensorParam},
				{Name: "attn_mask", Kind: TensorParam, Default: "None"}, {Name: "dropout_p", Kind: NumberParam, Default: "0.0"},
				{Name: "is_causal", Kind: BoolParam, Default: "False"}, {Name: "scale", Kind: NumberParam, Default: "None", KeywordOnly: true},
				{Name: "enable_gqa", Kind: BoolParam, Default: "False", KeywordOnly: true}},
			Memory: "the backend PyTorch picks on the H200 (cuDNN for float16/bfloat16, memory-efficient for float32): the output, the float32 logsumexp (saved with q, k, v), cuDNN's seed and offset; backward makes dq, dk, dv and the kernel's temporaries and workspace; 3-d inputs, float64 and a strided last dimension take the math backend: q and k scaled, the scores, their softmax (saved), the product",
			run: func(s *Session, a Args) (*Tensor, error) {
				if a.Bool(7) {
					return nil, NotModelledError("F.scaled_dot_product_attention with enable_gqa=True")
				}
				scale := 0.0
				if a[6] != nil {
					scale = a.Number(6)
				}
				return s.Attention(a.Tensor(0), a.Tensor(1), a.Tensor(2), a.Tensor(3), a.Number(4), a.Bool(5), scale)
			}}),
		&OpDef{Name: "baddbmm", Function: true, Method: true,
			Params: []Param{input, {Name: "batch1", Kind: TensorParam}, {Name: "batch2", Kind: TensorParam},
				{Name: "beta", Kind: NumberParam, Default: "1", KeywordOnly: true}, alpha},
			Memory: "new tensor, input broadcast to the product's shape; as bmm: the cuBLAS workspace on first use, saves each batch the other's gradient needs, backward makes batch2's gradient, then batch1's",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.baddbmm(a.Tensor(0), a.Tensor(1), a.Tensor(2))
			}},
		&OpDef{Name: "_native_multi_head_attention", Function: true,
			Params: []Param{{Name: "query", Kind: TensorParam}, {Name: "key", Kind: TensorParam}, {Name: "value", Kind: TensorParam},
				{Name: "embed_dim", Kind: IntParam}, {Name: "num_head", Kind: IntParam},
				{Name: "qkv_weight", Kind: TensorParam}, {Name: "qkv_bias", Kind: TensorParam},
				{Name: "proj_weight", Kind: TensorParam}, {Name: "proj_bias", Kind: TensorParam},
				{Name: "mask", Kind: TensorParam, Default: "None"}, {Name: "need_weights", Kind: BoolParam, Default: "True"},
				{Name: "average_attn_weights", Kind: BoolParam, Default: "True"}, {Name: "mask_type", Kind: IntParam, Default: "None"}},
			Memory: "nn.MultiheadAttention's fast path (eval, no autograd): without weights or a mask, linear, scaled_dot_product_attention, linear; else the projection, q, k and v ([3, N, heads, L, head dim]), the scores (a bool copy of a mask and the masked softmax's output), the context reordered, the out-projection, the weights averaged",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				outs, err := s.NativeMHA(a.Tensor(0), a.Tensor(1), a.Tensor(2), a.Int(3), a.Int(4), a.Tensor(5), a.Tensor(6), a.Tensor(7), a.Tensor(8), a.Tensor(9), a.Bool(10), a.Bool(11))
				return outs, true, err
			}},
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

// baddbmm is torch.baddbmm(input, batch1, batch2): bmm's output, into
// which input (broadcast) is added; an input that requires grad is not
// modelled.
func (s *Session) baddbmm(input, b1, b2 *Tensor) (*Tensor, error) {
	if s.gradEnabled && input.requiresGrad() {
		return nil, NotModelledError("torch.baddbmm of an input that requires grad")
	}
	if len(b1.Shape) != 3 || len(b2.Shape) != 3 {
		return nil, fmt.Errorf("RuntimeError: batch1 must be a 3D tensor")
	}
	if out := []int64{b1.Shape[0], b1.Shape[1], b2.Shape[2]}; !broadcastsTo(input.Shape, out) {
		return nil, fmt.Errorf("RuntimeError: baddbmm: the input %s does not broadcast to the product's shape %s", dimList(input.Shape), dimList(out))
	}
	if _, err := sameDevice(input, b1, b2); err != nil {
		return nil, err
	}
	return s.matmul(b1, b2, "BaddbmmBackward0")
}
