package torchpy

import _ "embed"

// The loss modules, written in Python over nn.Module as PyTorch writes
// them: each forward calls its torch.nn.functional form (an op table
// entry), so its memory is that entry's (testdata/pyrules/
// loss_modules.py). A weight or pos_weight is a buffer, as in PyTorch;
// the functional forms refuse them.

func init() { layerFamilies = append(layerFamilies, pythonLayers(lossSource)) }

//go:embed lib/nn_loss.py
var lossSource string
