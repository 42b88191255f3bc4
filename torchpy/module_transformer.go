package torchpy

import _ "embed"

// The transformer layers, written in Python over nn.Module as PyTorch
// writes them: Embedding, LayerNorm, RMSNorm and Dropout make their parameters
// as PyTorch's constructors do (on the host unless device=) and call
// their torch.nn.functional forms, op table entries whose memory rules
// are the engine's (testdata/pyrules/tfm_*.py).

func init() { layerFamilies = append(layerFamilies, pythonLayers(transformerSource)) }

//go:embed lib/nn_transformer.py
var transformerSource string
