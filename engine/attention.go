package engine

import (
	"fmt"
	"slices"
)

// scaled_dot_product_attention, as memory (testdata/pyrules/tfm_sdpa.py,
// tfm_sdpa_bf16.py and tfm_block.py, recorded on the H200, and
// tfm_probe.py's backend choices). PyTorch picks one kernel per call;
// each lays its output out as [B, T, H, D] and returns it transposed to
// [B, H, T, D] (so the usual a.transpose(1, 2).contiguous() copies
// nothing).
//
// The memory-efficient kernel (float32): the output, then, when autograd
// records the call, the logsumexp (float32 [B, H, T rounded up to 32]).
// Autograd saves query, key, value, the output and the logsumexp, and
// releases them in the order of their names (key, query, value,
// log_sumexp, output). Backward: a contiguous copy of a gradient that is
// not laid out as the output; dq, dk and dv ([B, T, H, D] each); the
// delta, (grad * out).sum(-1) transposed and made contiguous (three
// float32 temporaries, the first two freed once it exists); the kernel's
// float32 workspace; then the delta, the workspace and the copy go.

// sdpaShape is the geometry of one attention call.
type sdpaShape struct {
	b, h, m, n, d, dv int64 // batch, heads, queries, keys, head dims
}

// Attention is F.scaled_dot_product_attention(q, k, v, attn_mask,
// dropout_p, is_causal) of 4-d inputs [B, H, T, D].
func (s *Session) Attention(q, k, v, mask *Tensor, dropout float64, causal bool) (*Tensor, error) {
	for _, t := range []*Tensor{q, k, v} {
		if len(t.Shape) != 4 {
			return nil, NotModelledError("F.scaled_dot_product_attention of other than 4-d query, key and value")
		}
	}
	g := sdpaShape{q.Shape[0], q.Shape[1], q.Shape[2], k.Shape[2], q.Shape[3], v.Shape[3]}
	if !slices.Equal(k.Shape[:2], q.Shape[:2]) || !slices.Equal(v.Shape[:3], k.Shape[:3]) || k.Shape[3] != g.d {
		return nil, fmt.Errorf("RuntimeError: scaled_dot_product_attention: query %s, key %s and value %s do not match", dimList(q.Shape), dimList(k.Shape), dimList(v.Shape))
	}
	if q.DType != k.DType || q.DType != v.DType {
		return nil, fmt.Errorf("RuntimeError: Expected query, key, and value to have the same dtype, but got query.dtype: %s key.dtype: %s and value.dtype: %s instead.", q.DType.Name, k.DType.Name, v.DType.Name)
	}
	dev, err := sameDevice(q, k, v, mask)
	if err != nil {
		return nil, err
	}
	if !dev.CUDA {
		return nil, NotModelledError("F.scaled_dot_product_attention on the host")
	}
	if mask != nil || dropout != 0 || q.DType != Float32 {
		return nil, NotModelledError("F.scaled_dot_product_attention with a mask, dropout or other than float32")
	}
	grad := s.gradEnabled && (q.requiresGrad() || k.requiresGrad() || v.requiresGrad())
	ws, ok := efficientWorkspace(g)
	if grad && !ok {
		return nil, NotModelledError(fmt.Sprintf("the backward of the memory-efficient attention kernel for %d queries of head dim %d", g.m, g.d))
	}
	return s.efficientAttention(q, k, v, g, grad, ws)
}

// efficientAttention is _scaled_dot_product_efficient_attention's
// forward.
func (s *Session) efficientAttention(q, k, v *Tensor, g sdpaShape, grad bool, ws uint64) (*Tensor, error) {
	specs := []tensorShape{{[]int64{g.b, g.m, g.h, g.dv}, q.DType}}
	if grad {
		specs = append(specs, tensorShape{[]int64{g.b, g.h, ceilDivInt(g.m, 32) * 32}, Float32})
	}
	ts, err := s.allocAll(q.Device(), specs...)
	if err != nil {
		return nil, err
	}
	out := s.Transpose(ts[0], 1, 2)
	s.dropTensor(ts[0])
	if !grad {
		return out, nil
	}
	lse := ts[1]
	s.record("ScaledDotProductEfficientAttentionBackward0", out, []*Tensor{q, k, v}, []*Tensor{k, q, v, lse, out}, efficientBackward(g, ws))
	s.dropTensor(lse)
	return out, nil
}

// efficientWorkspace is the float32 workspace of the memory-efficient
// backward kernel, where it was measured: for head dims up to 64, one
// 64x64 float32 tile of dq and its 16-byte lock per 64 queries, per batch
// and head; ok false elsewhere.
func efficientWorkspace(g sdpaShape) (bytes uint64, ok bool) {
	if g.d != 64 || g.dv != 64 || g.m != 128 {
		return 0, false
	}
	perBH := uint64(ceilDivInt(g.m, 64)) * (64*64 + 4)
	return uint64(g.b*g.h) * perBH * 4, true
}

// efficientBackward is _efficient_attention_backward's, for float32.
func efficientBackward(g sdpaShape, ws uint64) backward {
	return func(s *Session, n *node, grad *Tensor) ([]*Tensor, error) {
		dev := grad.Device()
		bthd := []int64{g.b, g.m, g.h, g.dv}
		specs := []tensorShape{}
		// the gradient, transposed to [B, T, H, D], must be contiguous:
		// it is when it came back through the output's own layout
		copied := grad.expanded || !grad.strided
		if copied {
			specs = append(specs, tensorShape{bthd, grad.DType})
		}
		for _, e := range n.inputs {
			specs = append(specs, tensorShape{[]int64{g.b, e.shape[2], g.h, e.shape[3]}, n.dtype})
		}
		specs = append(specs, tensorShape{bthd, Float32}, tensorShape{[]int64{g.b, g.m, g.h}, Float32}, tensorShape{[]int64{g.b, g.h, g.m}, Float32})
		ts, err := s.allocAll(dev, specs...)
		if err != nil {
			return make([]*Tensor, 3), err
		}
		var tmp *Tensor
		if copied {
			tmp, ts = ts[0], ts[1:]
		}
		grads, delta := ts[:3], ts[5]
		s.dropTensor(ts[4]) // the sum, then the product
		s.dropTensor(ts[3])
		work, err := s.allocAll(dev, tensorShape{[]int64{int64(ws)}, DTypes["uint8"]})
		s.dropTensor(delta)
		if err == nil {
			s.dropTensor(work[0])
		}
		if tmp != nil {
			s.dropTensor(tmp)
		}
		out := make([]*Tensor, 3)
		for i, t := range grads {
			if n.inputs[i].to == nil || err != nil {
				s.dropTensor(t)
				continue
			}
			out[i] = s.Transpose(t, 1, 2)
			s.dropTensor(t)
		}
		return out, err
	}
}
