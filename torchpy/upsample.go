package torchpy

import _ "embed"

// nn.Upsample, Hardtanh, ReLU6, Hardswish, Hardsigmoid and PReLU, and F.relu_,
// F.sigmoid and F.tanh (upsample.py).

//go:embed upsample.py
var upsampleSource string

func init() { layerFamilies = append(layerFamilies, pythonLayers(upsampleSource)) }
