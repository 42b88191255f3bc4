package torchpy

import _ "embed"

// nn.TransformerEncoderLayer, written in Python over nn.Module as PyTorch
// 2.11 runs it: self-attention (MultiheadAttention, need_weights=False),
// then Linear, the activation, Dropout and Linear, each block with its
// dropout, residual and LayerNorm, after the block or, with norm_first,
// before it (testdata/pyrules/tfm_encoder.py); in eval without autograd
// its fast path, torch._transformer_encoder_layer_fwd (engine/encoder.go).
// nn.Transformer offers generate_square_subsequent_mask alone.

func init() { layerFamilies = append(layerFamilies, pythonLayers(encoderSource)) }

//go:embed lib/nn_encoder.py
var encoderSource string
