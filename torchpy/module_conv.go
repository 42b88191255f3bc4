package torchpy

import _ "embed"

// nn.Conv1d, Conv2d and Conv3d and nn.ConvTranspose1d, 2d and 3d,
// written in Python over nn.Module as PyTorch writes them: the weight
// then the bias (one Parameter each), forward F.convNd or
// F.conv_transposeNd (engine/conv.go: the table of recorded cuDNN
// convolutions; testdata/pyrules/conv_layers.py).

func init() { layerFamilies = append(layerFamilies, pythonLayers(convSource)) }

//go:embed lib/nn_conv.py
var convSource string
