package torchpy

import (
	_ "embed"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// nnModulePaths are the modules of torch.nn.modules and the classes of
// torch.nn each holds in PyTorch 2.11, which code also names by these
// paths (torch.nn.modules.linear.Linear, isinstance(m,
// torch.nn.modules.batchnorm._BatchNorm)); torch.nn.parameter likewise.
var nnModulePaths = map[string]string{
	"modules.module":        "Module",
	"modules.linear":        "Identity Linear Bilinear NonDynamicallyQuantizableLinear",
	"modules.rnn":           "RNNBase RNN LSTM GRU RNNCellBase RNNCell LSTMCell GRUCell",
	"modules.dropout":       "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout",
	"modules.sparse":        "Embedding EmbeddingBag",
	"modules.activation":    "ReLU ReLU6 GELU SiLU Mish Tanh Sigmoid Hardswish Hardsigmoid Hardtanh LeakyReLU ELU Softplus Softmax LogSoftmax MultiheadAttention PReLU GLU",
	"modules.batchnorm":     "BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm _BatchNorm _NormBase",
	"modules.instancenorm":  "InstanceNorm1d InstanceNorm2d InstanceNorm3d",
	"modules.normalization": "LayerNorm GroupNorm RMSNorm LocalResponseNorm",
	"modules.container":     "Sequential ModuleList ModuleDict ParameterList ParameterDict",
	"modules.transformer":   "Transformer TransformerEncoder TransformerEncoderLayer TransformerDecoder TransformerDecoderLayer",
	"modules.conv":          "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d",
	"modules.pooling":       "MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d",
	"modules.loss":          "CrossEntropyLoss NLLLoss MSELoss L1Loss BCELoss BCEWithLogitsLoss SmoothL1Loss HuberLoss KLDivLoss TripletMarginLoss CTCLoss",
	"modules.distance":      "PairwiseDistance",
	"modules.flatten":       "Flatten Unflatten",
	"modules.pixelshuffle":  "PixelShuffle PixelUnshuffle",
	"modules.padding":       "ConstantPad1d ConstantPad2d ConstantPad3d ZeroPad1d ZeroPad2d ZeroPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d",
	"modules.upsampling":    "Upsample",
	"parameter":             "Parameter Buffer",
}

//go:embed lib/nn_modules_utils.py
var nnModulesUtilsSource string

// nnModuleAliases declares torch.nn.modules and its modules, and
// torch.nn.parameter, in nn: each holds those of its classes that nn
// has (a class the tool lacks is absent there as in nn); and
// torch.nn.modules.utils, the layers' helpers (_pair, _ntuple, ...).
func (b *Binding) nnModuleAliases(in *eval.Interp, nn *eval.ModuleObj) error {
	modules := in.NewModule("torch.nn.modules")
	defer in.Decref(modules)
	in.AddModule("torch.nn.modules", modules)
	nn.Set(in, "modules", modules)
	utils := in.NewModule("torch.nn.modules.utils")
	defer in.Decref(utils)
	if err := b.execInto(utils, "<torch.nn.modules.utils>", nnModulesUtilsSource); err != nil {
		return err
	}
	in.AddModule("torch.nn.modules.utils", utils)
	modules.Set(in, "utils", utils)
	for path, names := range nnModulePaths {
		m := in.NewModule("torch.nn." + path)
		for _, name := range strings.Fields(names) {
			if v, ok := nn.Dict.GetStr(name); ok {
				m.Set(in, name, v)
			}
		}
		in.AddModule("torch.nn."+path, m)
		parent, short := nn, path
		if sub, ok := strings.CutPrefix(path, "modules."); ok {
			parent, short = modules, sub
		}
		parent.Set(in, short, m)
		in.Decref(m)
	}
	return nil
}
