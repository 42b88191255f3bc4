package torchpy

import _ "embed"

// The CNN layers beside convolution, written in Python over nn.Module as
// PyTorch writes them, so their memory is that of what they make and
// the functional forms they call (engine/batchnorm.go, batchnorm_group.go,
// pool.go; testdata/pyrules/cnn_*.py): BatchNorm1d, BatchNorm2d,
// GroupNorm, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, ReLU (with
// inplace=), Softmax and LogSoftmax.

func init() { layerFamilies = append(layerFamilies, pythonLayers(cnnSource)) }

//go:embed lib/nn_cnn.py
var cnnSource string
