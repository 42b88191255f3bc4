package engine

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// scaled_dot_product_attention, as memory (testdata/pyrules/tfm_sdpa.py,
// tfm_sdpa_bf16.py and tfm_block.py, recorded on the H200, and
// tfm_probe.py's backend choices: with every backend enabled, as by
// default, PyTorch 2.11 picks cuDNN for float16 and bfloat16 up to head
// dim 256, with or without a mask or dropout, the memory-efficient
// kernel for float32 and larger head dims, math for float64).
//
// A bool mask is first made a float one of the query's dtype (where:
// two 0-d scalars, the mask, the scalars freed); a float mask of the
// query's dtype is used as it is; either is saved.
//
// The memory-efficient kernel lays its output out as [B, T, H, D] and
// returns it transposed (so a.transpose(1, 2).contiguous() copies
// nothing); when autograd records the call, the logsumexp follows
// (float32 [B, H, T rounded up to 32]). Autograd saves the mask, query,
// key, value, the logsumexp and the output, and releases them in the
// order of their names (attn_bias, key, query, value, log_sumexp,
// output). Backward: a contiguous copy of a gradient not laid out as the
// output; dq, dk and dv ([B, T, H, D] each); the delta, (grad *
// out).sum(-1) transposed and made contiguous (three float32
// temporaries, the first two freed once it exists); the kernel's
// workspace; then the delta, the workspace and the copy go. Dropout
// changes nothing: its seed and offset are host tensors.
//
// cuDNN: the philox seed and offset (two 0-d int64 tensors on the
// device, even without dropout), the output, laid out in the query's
// order of dimensions, the logsumexp (float32 [B, H, T]) when autograd
// records the call, and a 256-byte workspace, freed at once. Backward:
// dq, dk, dv, a copy of a gradient not laid out as the output, the
// workspace (a float32 dq accumulator and one float per row, plus 256
// bytes), freed at once, then the copy.

// F.scaled_dot_product_attention as a table entry.
func init() {
	declare(
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
	)
}

// sdpaShape is the geometry of one attention call.
type sdpaShape struct {
	b, h, m, n, d, dv int64 // batch, heads, queries, keys, head dims
}

// Attention is F.scaled_dot_product_attention(q, k, v, attn_mask,
// dropout_p, is_causal, scale=) (scale 0 for the default). 4-d inputs
// [B, H, T, D] go to a fused kernel, where neither dropout nor causality
// changes what the kernels allocate (recorded); 3-d ones, float64 and a
// strided last dimension to the math backend (attention_math.go).
func (s *Session) Attention(q, k, v, mask *Tensor, dropout float64, causal bool, scale float64) (*Tensor, error) {
	if len(q.Shape) == 3 && len(k.Shape) == 3 && len(v.Shape) == 3 {
		return s.mathAttention(q, k, v, mask, dropout, causal, scale)
	}
	for _, t := range []*Tensor{q, k, v} {
		if len(t.Shape) != 4 {
			return nil, NotModelledError("F.scaled_dot_product_attention of other than 3-d or 4-d query, key and value")
		}
	}
	if q.DType.Name == "float64" || slices.ContainsFunc([]*Tensor{q, k, v}, func(t *Tensor) bool { return t.Strides()[3] != 1 || t.expanded }) {
		return s.mathAttention(q, k, v, mask, dropout, causal, scale)
	}
	g, err := s.checkAttention(q, k, v, mask, causal)
	if err != nil {
		return nil, err
	}
	half := q.DType.Name == "float16" || q.DType.Name == "bfloat16"
	grad := s.gradEnabled && (q.requiresGrad() || k.requiresGrad() || v.requiresGrad())
	backend := sdpaEfficient
	switch {
	case half && g.d <= 256 && g.dv <= 256:
		backend = sdpaCuDNN
	case q.DType != Float32:
		return nil, NotModelledError("F.scaled_dot_product_attention of " + q.DType.Name + " with head dim over 256")
	}
	ws, ok := efficientWorkspace(g)
	backend, err = s.attentionOnCard(q, backend, dropout, ok || !grad)
	if err != nil {
		return nil, err
	}
	switch backend {
	case sdpaMath:
		return s.mathAttention(q, k, v, mask, dropout, causal, scale)
	case sdpaCuDNN:
		return s.withMask(mask, q.DType, false, func(bias *Tensor) (*Tensor, error) { return s.cudnnAttention(q, k, v, bias, g, grad) })
	}
	if grad && !ok {
		return nil, NotModelledError(fmt.Sprintf("the backward of the memory-efficient attention kernel for head dim %d", g.d))
	}
	return s.withMask(mask, q.DType, true, func(bias *Tensor) (*Tensor, error) { return s.efficientAttention(q, k, v, bias, g, grad, ws) })
}

// The fused attention backends whose memory the tool models.
const (
	sdpaCuDNN = iota
	sdpaEfficient
	sdpaMath
)

// attentionOnCard is the backend PyTorch picks on q's GPU where it picks
// backend on the GH100 the rules were recorded on (cards.go), with the
// estimate that makes: the choice follows PyTorch's sdp_utils.cpp
// (cuDNN attention first only on sm90 and sm100; flash attention from
// sm80; the memory-efficient kernel from sm50, bfloat16 only from sm80;
// math everywhere), and the kernels' memory is that of the H200's
// recordings. Flash attention, the choice for float16 and bfloat16 on
// sm80 to sm89, is not modelled: cuDNN's memory stands for it, as it
// does for the math backend with dropout (mathAttention refuses it) and
// for the memory-efficient kernel where its memory is not modelled
// (efficient: whether it is, for this call).
func (s *Session) attentionOnCard(q *Tensor, backend int, dropout float64, efficient bool) (int, error) {
	dev := q.Device()
	if s.recordedCard(dev) {
		return backend, nil
	}
	major := s.gpus[dev.Index].b.computeMajor()
	var cause string
	switch {
	case backend == sdpaEfficient:
		cause = "the memory-efficient kernel, as on the H200; its workspaces recorded on the GH100 only (PyTorch builds it per architecture)"
	case major >= 8:
		cause = "flash attention (sdp_utils.cpp prefers cuDNN attention only on sm90 and sm100), not modelled: taken as cuDNN attention's memory on the H200"
	case q.DType.Name == "bfloat16" && dropout > 0:
		cause = "the math backend (flash attention needs sm80 and the memory-efficient kernel takes bfloat16 only from sm80: sdp_utils.cpp), with dropout not modelled: taken as cuDNN attention's memory on the H200"
	case q.DType.Name == "bfloat16":
		backend, cause = sdpaMath, "the math backend: flash attention needs sm80 and the memory-efficient kernel takes bfloat16 only from sm80 (sdp_utils.cpp); the math backend's memory as recorded on the H200"
	case !efficient:
		cause = "the memory-efficient kernel (flash attention needs sm80: sdp_utils.cpp), whose backward at this head dim is not modelled: taken as cuDNN attention's memory on the H200"
	default:
		backend, cause = sdpaEfficient, "the memory-efficient kernel (flash attention needs sm80: sdp_utils.cpp), its memory as recorded for float32 on the H200"
	}
	return backend, s.onCard(dev, "F.scaled_dot_product_attention", "%s: %s", argShapes(Args{q}), cause)
}

// withMask runs attend with the mask as the float bias the kernels take
// (nil for none): a bool mask converted, which goes when attend is done
// unless autograd saved it. The memory-efficient kernel (pad) reads a
// bias whose rows are aligned to 8 elements: PyTorch's preprocess_mask
// pads any other (F.pad to the next multiple of 8, the converted mask
// then freed) and passes the slice of the mask's width, which its
// backward keeps (clip_train.py's 77 columns and moe_train.py's 111,
// recorded in testdata/models/zoo). The cuDNN kernel's handling of such
// a mask is not recorded: estimated there.
func (s *Session) withMask(mask *Tensor, dt DType, pad bool, attend func(bias *Tensor) (*Tensor, error)) (*Tensor, error) {
	if mask == nil {
		return attend(nil)
	}
	aligned := biasAligned(mask)
	if !aligned && (!pad || len(mask.Shape) == 0) {
		refusal := NotModelledError("an attn_mask whose last dimension is not a multiple of 8 (PyTorch pads it)")
		if err := s.estimate(refusal, "F.scaled_dot_product_attention", "attn_mask %s: PyTorch pads a mask whose last dimension is not a multiple of 8, not recorded; taken as an unpadded mask's rule (the padded copy and its slice left out)", argShapes(Args{mask})); err != nil {
			return nil, err
		}
		aligned = true
	}
	bias, err := s.floatMask(mask, dt)
	if err != nil {
		return nil, err
	}
	if !aligned {
		n := len(mask.Shape) - 1
		wide := slices.Clone(mask.Shape)
		wide[n] += 8 - wide[n]%8
		padded, err := s.alloc(wide, dt, mask.Device())
		s.dropTensor(bias)
		if err != nil {
			return nil, err
		}
		bias = restrided(padded, slices.Clone(mask.Shape), padded.Strides(), padded.offset)
		s.dropTensor(padded)
	}
	out, err := attend(bias)
	s.dropTensor(bias)
	return out, err
}

// biasAligned is PyTorch's aligned_tensor<8> of an attention mask
// (attention.cpp's mem_eff_alignment; seq2seq_transformer.py's 23 keys
// padded to 24, recorded): its last dimension dense and every other
// stride a multiple of 8 elements.
func biasAligned(mask *Tensor) bool {
	st := mask.Strides()
	if len(st) == 0 || st[len(st)-1] != 1 && mask.Shape[len(st)-1] != 1 {
		return false
	}
	for _, x := range st[:len(st)-1] {
		if x%8 != 0 {
			return false
		}
	}
	return true
}

// efficientAttention is _scaled_dot_product_efficient_attention's
// forward.
func (s *Session) efficientAttention(q, k, v, bias *Tensor, g sdpaShape, grad bool, ws uint64) (*Tensor, error) {
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
	s.record("ScaledDotProductEfficientAttentionBackward0", out, []*Tensor{q, k, v}, nonNil(bias, k, q, v, lse, out), efficientBackward(g, ws))
	s.dropTensor(lse)
	return out, nil
}

// efficientWorkspace is the workspace of the memory-efficient backward
// kernel in float32, where it was measured (head dims up to 128): per
// batch and head, for each 64 queries, a float32 tile of dq 64 rows by
// 64 (head dims up to 64) or 128 columns, and its 16-byte lock; ok
// false elsewhere.
func efficientWorkspace(g sdpaShape) (bytes uint64, ok bool) {
	cols := int64(64)
	switch d := max(g.d, g.dv); {
	case d > 128:
		return 0, false
	case d > 64:
		cols = 128
	}
	perBH := ceilDivInt(g.m, 64) * (64*cols + 4)
	return uint64(g.b*g.h*perBH) * 4, true
}

// efficientBackward is _efficient_attention_backward's, for float32.
func efficientBackward(g sdpaShape, ws uint64) backward {
	return func(s *Session, n *node, grad *Tensor) ([]*Tensor, error) {
		bthd := []int64{g.b, g.m, g.h, g.dv}
		var layouts [3][]int64
		for i := range layouts {
			layouts[i] = bthdStrides(n.inputs[i].shape)
		}
		return s.attentionGrads(n, grad, bthdStrides([]int64{g.b, g.h, g.m, g.dv}), layouts, func(dev Device) error {
			ts, err := s.allocAll(dev, tensorShape{bthd, Float32}, tensorShape{[]int64{g.b, g.m, g.h}, Float32}, tensorShape{[]int64{g.b, g.h, g.m}, Float32})
			if err != nil {
				return err
			}
			s.dropTensor(ts[1]) // the sum, then the product
			s.dropTensor(ts[0])
			work, err := s.alloc([]int64{int64(ws)}, DTypes["uint8"], dev)
			s.dropTensor(ts[2]) // the delta, then the workspace
			if err == nil {
				s.dropTensor(work)
			}
			return err
		})
	}
}

// attentionGrads is the part of the attention backward kernels that
// they share: dq, dk and dv, laid out as grads says, and a contiguous
// copy of a gradient not laid out as the output (out, its strides);
// then kernel, the kernel's own temporaries; then the copy goes. The
// copy comes before the gradients when the output is not contiguous,
// else after them. The memory-efficient kernel lays its gradients out
// [B, T, H, D]; cuDNN each as its input's dimensions are ordered.
func (s *Session) attentionGrads(n *node, grad *Tensor, out []int64, grads [3][]int64, kernel func(dev Device) error) ([]*Tensor, error) {
	dev := grad.Device()
	res := make([]*Tensor, 3)
	copied := grad.expanded || !slices.Equal(grad.Strides(), out)
	copyFirst := !contiguous(grad.Shape, out)
	var specs []tensorShape
	for _, e := range n.inputs[:3] {
		specs = append(specs, tensorShape{e.shape, n.dtype})
	}
	if copied {
		cp := tensorShape{grad.Shape, grad.DType}
		if copyFirst {
			specs = append([]tensorShape{cp}, specs...)
		} else {
			specs = append(specs, cp)
		}
	}
	ts, err := s.allocAll(dev, specs...)
	if err != nil {
		return res, err
	}
	gs, tmp := ts, (*Tensor)(nil)
	switch {
	case copied && copyFirst:
		tmp, gs = ts[0], ts[1:]
	case copied:
		tmp, gs = ts[3], ts[:3]
	}
	err = kernel(dev)
	if tmp != nil {
		s.dropTensor(tmp)
	}
	for i, t := range gs {
		if n.inputs[i].to == nil || err != nil {
			s.dropTensor(t)
			continue
		}
		laidOut(t, grads[i])
		res[i] = t
	}
	return res, err
}

// laidOut gives t, new, the strides st (a dense layout of its elements).
func laidOut(t *Tensor, st []int64) {
	t.strides, t.strided = st, !contiguous(t.Shape, st)
}

// bthdStrides are the strides of a [B, H, T, D] tensor laid out as
// [B, T, H, D], the memory-efficient kernel's layout.
func bthdStrides(shape []int64) []int64 {
	h, t, d := shape[1], shape[2], shape[3]
	return []int64{t * h * d, d, h * d, 1}
}

// matchingStrides are the strides of a dense tensor of shape whose
// dimensions are laid out in the order of like's strides, the smallest
// innermost (ties keep their order): cuDNN's outputs and gradients.
func matchingStrides(like, shape []int64) []int64 {
	order := make([]int, len(shape))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(like[a], like[b]) })
	st := make([]int64, len(shape))
	step := int64(1)
	for _, d := range order {
		st[d] = step
		step *= shape[d]
	}
	return st
}

// scratch allocates a kernel's workspace of n bytes and frees it.
func (s *Session) scratch(dev Device, n uint64) error {
	ws, err := s.alloc([]int64{int64(n)}, DTypes["uint8"], dev)
	if err == nil {
		ws.st.role = roleWorkspace
		s.dropTensor(ws)
	}
	return err
}

// cudnnForwardWorkspace is the cuDNN attention forward's workspace, the
// same for every shape measured.
const cudnnForwardWorkspace = 256

// cudnnAttention is _scaled_dot_product_cudnn_attention's forward.
func (s *Session) cudnnAttention(q, k, v, bias *Tensor, g sdpaShape, grad bool) (*Tensor, error) {
	dev := q.Device()
	int64T := DTypes["int64"]
	// the output follows the query's order of dimensions ([B, T, H, D]
	// when the query is a transposed view of it), each gradient its
	// input's
	shape := []int64{g.b, g.h, g.m, g.dv}
	outStrides := matchingStrides(q.Strides(), shape)
	var layouts [3][]int64
	for i, t := range []*Tensor{q, k, v} {
		layouts[i] = matchingStrides(t.Strides(), t.Shape)
	}
	specs := []tensorShape{{nil, int64T}, {nil, int64T}, {shape, q.DType}}
	if grad {
		specs = append(specs, tensorShape{[]int64{g.b, g.h, g.m}, Float32})
	}
	s.driverEvent(dev, device.CuDNNHandle)
	ts, err := s.allocAll(dev, specs...)
	if err == nil {
		err = s.libScratch(dev, "cuDNN attention", cudnnForwardWorkspace)
	}
	if err != nil {
		for _, t := range ts {
			s.dropTensor(t)
		}
		return nil, err
	}
	seed, offset, out := ts[0], ts[1], ts[2]
	laidOut(out, outStrides)
	if grad {
		lse := ts[3]
		bw := func(s *Session, n *node, grad *Tensor) ([]*Tensor, error) {
			if g.m != g.n { // cross-attention: recorded for the memory-efficient kernel only (mha_cross.py)
				if err := s.estimate(nil, "F.scaled_dot_product_attention", "cuDNN's backward over %d queries and %d keys: dq, dk and dv and its workspace (a float32 dq accumulator and one float per query row) as with as many keys as queries, where it was recorded (tfm_sdpa_bf16.py); with other than as many, not recorded", g.m, g.n); err != nil {
					return make([]*Tensor, 3), err
				}
			}
			return s.attentionGrads(n, grad, outStrides, layouts, func(dev Device) error {
				return s.libScratch(dev, "cuDNN attention", uint64(4*g.b*g.h*g.m*(g.d+1)+256))
			})
		}
		s.record("ScaledDotProductCudnnAttentionBackward0", out, []*Tensor{q, k, v}, nonNil(bias, k, q, v, lse, out, offset, seed), bw)
		s.dropTensor(lse)
	}
	s.dropTensor(seed)
	s.dropTensor(offset)
	return out, nil
}

// checkAttention checks what PyTorch checks of every backend's inputs:
// shapes that match (batch dimensions, the head dim of the query and
// key, as many values as keys), one dtype, one device (the GPU), a mask
// that needs no gradient and does not go with is_causal; it returns the
// geometry of 4-d inputs.
func (s *Session) checkAttention(q, k, v, mask *Tensor, causal bool) (sdpaShape, error) {
	n := len(q.Shape)
	if len(k.Shape) != n || len(v.Shape) != n || !slices.Equal(k.Shape[:n-2], q.Shape[:n-2]) || !slices.Equal(v.Shape[:n-1], k.Shape[:n-1]) || k.Shape[n-1] != q.Shape[n-1] {
		return sdpaShape{}, Errorf(RuntimeError, "scaled_dot_product_attention: query %s, key %s and value %s do not match", dimList(q.Shape), dimList(k.Shape), dimList(v.Shape))
	}
	if q.DType != k.DType || q.DType != v.DType {
		return sdpaShape{}, Errorf(RuntimeError, "Expected query, key, and value to have the same dtype, but got query.dtype: %s key.dtype: %s and value.dtype: %s instead.", q.DType.Name, k.DType.Name, v.DType.Name)
	}
	dev, err := sameDevice(q, k, v, mask)
	if err != nil {
		return sdpaShape{}, err
	}
	if !dev.CUDA {
		return sdpaShape{}, NotModelledError("F.scaled_dot_product_attention on the host")
	}
	if mask != nil && mask.requiresGrad() && s.gradEnabled {
		return sdpaShape{}, NotModelledError("an attn_mask that requires grad (its gradient)")
	}
	if causal && mask != nil {
		return sdpaShape{}, Errorf(RuntimeError, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
	}
	if n != 4 {
		return sdpaShape{}, nil
	}
	return sdpaShape{q.Shape[0], q.Shape[1], q.Shape[2], k.Shape[2], q.Shape[3], v.Shape[3]}, nil
}

// mathAttention checks the inputs and runs the math backend, which
// refuses dropout (not recorded).
func (s *Session) mathAttention(q, k, v, mask *Tensor, dropout float64, causal bool, scale float64) (*Tensor, error) {
	if _, err := s.checkAttention(q, k, v, mask, causal); err != nil {
		return nil, err
	}
	if dropout != 0 {
		return nil, NotModelledError("F.scaled_dot_product_attention's math backend (3-d inputs, float64, a strided last dimension) with dropout")
	}
	return s.attentionMath(q, k, v, mask, causal, scale)
}
