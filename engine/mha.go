package engine

import (
	"slices"
)

// torch._native_multi_head_attention, nn.MultiheadAttention's fast path
// (batch_first self-attention in eval without autograd), as memory on
// CUDA (testdata/pyrules/mha_fast.py, recorded on the H200).
//
// Without need_weights or a mask, and a head dim that is a multiple of
// 8: F.linear of the input by the packed weight and bias, its three
// chunks as heads, scaled_dot_product_attention (the backend PyTorch
// picks), its output reshaped (a view) into the out-projection; then
// the attention's output goes, then the projection's.
//
// Otherwise: the projection without the bias (a matmul: [N, L, 3E]);
// q, k and v with the bias added and q scaled, one new tensor
// [3, N, heads, L, head dim], after which the projection goes; q @ k^T
// ([N, heads, L, L]); softmax in place, or with a mask: the mask made
// bool (a dense copy of its shape), the masked softmax's output, then
// the scores and the bool mask go; the context written over q; the
// scores go unless need_weights; the context reordered to [N, L, E] (a
// new tensor, but a view where L or the heads are 1) for the
// out-projection, freed once it exists; with
// need_weights and average_attn_weights, the scores summed over heads
// ([N, L, L], divided in place), which frees them; then q, k and v go.

// torch._native_multi_head_attention as a table entry.
func init() {
	declare(
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
	)
}

// NativeMHA is torch._native_multi_head_attention(query, key, value,
// embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, proj_bias,
// mask, need_weights, average_attn_weights) on CUDA for self-attention
// (query, key and value one tensor [N, L, E]). It returns the output and
// the weights (nil without need_weights).
func (s *Session) NativeMHA(x, key, value *Tensor, embedDim, heads int64, inW, inB, outW, outB, mask *Tensor, needWeights, average bool) ([]*Tensor, error) {
	if key != x || value != x {
		return nil, NotModelledError("torch._native_multi_head_attention of other than self-attention (one tensor as query, key and value)")
	}
	if len(x.Shape) != 3 || x.Shape[2] != embedDim || heads <= 0 || embedDim%heads != 0 {
		return nil, Errorf(RuntimeError, "_native_multi_head_attention: query %s does not match embed_dim %d and num_head %d", dimList(x.Shape), embedDim, heads)
	}
	dev, err := sameDevice(x, inW, inB, outW, outB, mask)
	if err != nil {
		return nil, err
	}
	if !dev.CUDA {
		return nil, NotModelledError("torch._native_multi_head_attention on the host")
	}
	if s.gradEnabled {
		for _, t := range []*Tensor{x, inW, inB, outW, outB} {
			if t.requiresGrad() {
				return nil, NotModelledError("torch._native_multi_head_attention under autograd (PyTorch has no backward for it)")
			}
		}
	}
	headDim := embedDim / heads
	if !needWeights && mask == nil && headDim%8 == 0 {
		out, err := s.nativeMHAFlash(x, heads, headDim, inW, inB, outW, outB)
		return []*Tensor{out, nil}, err
	}
	// a length that is not a multiple of 8 makes the same tensors
	// (transform_bias_rescale_qkv pads nested tensors only; zoo_paths.py
	// and zoo_layers.py record lengths 1 to 12 and 20), and
	// _masked_softmax keeps its fused kernel up to 1024 float32
	// elements a row
	if x.DType != Float32 || x.Shape[1] > 1024 {
		return nil, NotModelledError("the fast path of nn.MultiheadAttention with need_weights or a mask other than in float32 up to a sequence length of 1024")
	}
	return s.nativeMHAMath(x, heads, headDim, inW, inB, outW, outB, mask, needWeights, average)
}

// nativeMHAFlash is the fast path's scaled_dot_product_attention branch.
func (s *Session) nativeMHAFlash(x *Tensor, heads, headDim int64, inW, inB, outW, outB *Tensor) (*Tensor, error) {
	n, l, e := x.Shape[0], x.Shape[1], x.Shape[2]
	qkv, err := s.Linear(x, inW, inB)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(qkv)
	chunks, err := s.Chunk(qkv, 3, 2)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, c := range chunks {
			s.dropTensor(c)
		}
	}()
	var qs []*Tensor
	for _, c := range chunks {
		v, err := s.View(c, []int64{n, l, heads, headDim})
		if err != nil {
			return nil, err
		}
		qs = append(qs, s.Transpose(v, 1, 2))
		s.dropTensor(v)
	}
	y, err := s.Attention(qs[0], qs[1], qs[2], nil, 0, false, 0)
	for _, q := range qs {
		s.dropTensor(q)
	}
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(y)
	yt := s.Transpose(y, 1, 2)
	defer s.dropTensor(yt)
	joined, err := s.Reshape(yt, []int64{n, l, e})
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(joined)
	return s.Linear(joined, outW, outB)
}

// nativeMHAMath is the fast path's own attention: the scores made
// explicitly (see the rule above).
func (s *Session) nativeMHAMath(x *Tensor, heads, headDim int64, inW, inB, outW, outB, mask *Tensor, needWeights, average bool) ([]*Tensor, error) {
	n, l, e := x.Shape[0], x.Shape[1], x.Shape[2]
	dev := x.Device()
	wt := s.Transpose(inW, 0, 1)
	qkv, err := s.matmul(x, wt, "")
	s.dropTensor(wt)
	if err != nil {
		return nil, err
	}
	qkvHeads, err := s.alloc([]int64{3, n, heads, l, headDim}, x.DType, dev)
	s.dropTensor(qkv)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(qkvHeads)
	scores, err := s.alloc([]int64{n, heads, l, l}, x.DType, dev)
	if err != nil {
		return nil, err
	}
	if mask != nil {
		if scores, err = s.maskedSoftmax(scores, mask); err != nil {
			return nil, err
		}
	}
	if !needWeights {
		s.dropTensor(scores)
		scores = nil
	}
	// transform_0213: the context, written over q, permuted to [N, L, E]
	// and made contiguous, which copies it unless a length or the heads
	// are 1
	ctx := qkvHeads
	if !contiguous([]int64{n, l, heads, headDim}, []int64{heads * l * headDim, headDim, l * headDim, 1}) {
		if ctx, err = s.alloc([]int64{n, l, e}, x.DType, dev); err != nil {
			s.dropTensor(scores)
			return nil, err
		}
	}
	flat := share(ctx)
	flat.Shape = []int64{n * l, e}
	out, err := s.Linear(flat, outW, outB)
	s.dropTensor(flat)
	if ctx != qkvHeads {
		s.dropTensor(ctx)
	}
	if err != nil {
		s.dropTensor(scores)
		return nil, err
	}
	out.Shape = []int64{n, l, outW.Shape[0]}
	if needWeights && average {
		avg, err := s.alloc([]int64{n, l, l}, x.DType, dev)
		s.dropTensor(scores)
		if err != nil {
			s.dropTensor(out)
			return nil, err
		}
		scores = avg
	}
	return []*Tensor{out, scores}, nil
}

// maskedSoftmax is the fast path's softmax of scores under a mask: the
// mask made bool (a dense tensor of its shape), the output; then scores
// and the bool mask go.
func (s *Session) maskedSoftmax(scores, mask *Tensor) (*Tensor, error) {
	shape := slices.Clone(mask.Shape)
	ts, err := s.allocAll(scores.Device(), tensorShape{shape, boolDType}, tensorShape{scores.Shape, scores.DType})
	if err != nil {
		s.dropTensor(scores)
		return nil, err
	}
	s.dropTensor(scores)
	s.dropTensor(ts[0])
	return ts[1], nil
}
