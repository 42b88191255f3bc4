package torchpy

import _ "embed"

// nn.RNN, nn.LSTM, nn.GRU (rnn.py) over the op table's torch.lstm, gru,
// rnn_tanh, rnn_relu and _cudnn_rnn_flatten_weight (engine/rnn.go), and
// torch.nn.utils.rnn's packed sequences (rnn_utils.py).

var (
	//go:embed rnn.py
	rnnSource string
	//go:embed rnn_utils.py
	rnnUtilsSource string
)

func init() { layerFamilies = append(layerFamilies, pythonLayers(rnnSource)) }
