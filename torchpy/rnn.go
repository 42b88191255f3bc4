package torchpy

import (
	_ "embed"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// nn.RNN, nn.LSTM, nn.GRU (rnn.py) over the op table's torch.lstm, gru,
// rnn_tanh, rnn_relu and _cudnn_rnn_flatten_weight (engine/rnn.go), and
// torch.nn.utils.rnn's packed sequences (rnn_utils.py); the cells'
// functions in torch (rnn_cells.py) and their modules (rnn.py).

var (
	//go:embed rnn.py
	rnnSource string
	//go:embed rnn_utils.py
	rnnUtilsSource string
	//go:embed rnn_cells.py
	rnnCellsSource string
)

func init() { layerFamilies = append(layerFamilies, pythonLayers(rnnSource)) }

// packedRNN binds the packed overload of torch.lstm/gru/rnn_tanh/
// rnn_relu, (data, batch_sizes, hx, params, has_biases, num_layers,
// dropout, train, bidirectional), to the table's signature: batch_first
// False and batch_sizes= the second argument. It is the packed one when
// that argument is a tensor and, but for LSTM (whose hx is a list), so is
// the third (h_0, where the other overload has the weights' list).
func packedRNN(lstm bool) func(b *Binding, args []eval.Value, kw []eval.KeywordArg) ([]eval.Value, []eval.KeywordArg, error) {
	return func(b *Binding, args []eval.Value, kw []eval.KeywordArg) ([]eval.Value, []eval.KeywordArg, error) {
		if len(args) != 9 {
			return args, kw, nil
		}
		_, second := args[1].(*Tensor)
		_, third := args[2].(*Tensor)
		if !second || !lstm && !third {
			return args, kw, nil
		}
		rest := append([]eval.Value{args[0]}, args[2:]...)
		return append(rest, false), append(slices.Clone(kw), eval.KeywordArg{Name: "batch_sizes", Value: args[1]}), nil
	}
}

func init() {
	overloads["lstm"] = packedRNN(true)
	for _, name := range []string{"gru", "rnn_tanh", "rnn_relu"} {
		overloads[name] = packedRNN(false)
	}
}
