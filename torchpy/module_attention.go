package torchpy

import _ "embed"

// nn.MultiheadAttention and F.multi_head_attention_forward, written in
// Python over the op table as PyTorch 2.11 runs them: the same ops in
// the same order, the same locals (a frame's tensors are released in
// the order its names first appear), so each allocation and free falls
// where PyTorch's does (testdata/pyrules/mha_*.py). The fast path,
// torch._native_multi_head_attention, is an op of its own (engine/mha.go).
// bias_k/bias_v (add_bias_kv), add_zero_attn, static_k/static_v and
// torch.backends.mha's switch are refused.

func init() { layerFamilies = append(layerFamilies, pythonLayers(attentionSource)) }

//go:embed lib/nn_attention.py
var attentionSource string
