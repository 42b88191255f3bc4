package engine

import (
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// What cuDNN asks of the caching allocator for a recurrent layer: its
// weight space (the one buffer PyTorch flattens the parameters into),
// the workspace of each call, the reserve space a training forward
// leaves for backward, and the dropout state. cuDNN computes them
// inside cudnnGetRNNWeightSpaceSize, cudnnGetRNNTempSpaceSizes and
// cudnnDropoutGetStatesSize. scripts/probe_rnn.py recorded them over a
// grid (testdata/rnn): the weight space follows one rule everywhere
// (layout), the dropout state is 24 bytes per resident thread on the
// GH100 (H100 and H200: 132 multiprocessors of 2048), and the forward's
// workspace and reserve space are exact at the recorded configurations
// (rnn_table.go) and estimated elsewhere by what the algorithm keeps,
// each call so labelled. Backward's workspaces are recorded for LSTM at
// the recorded configurations and estimated elsewhere (as the training
// forward's).

// rnnMode is cuDNN's RNN mode, numbered as PyTorch passes it
// (torch.backends.cudnn.rnn.get_cudnn_mode).
type rnnMode int64

// The modes.
const (
	rnnRelu rnnMode = iota
	rnnTanh
	rnnLSTM
	rnnGRU
)

// gates are the matrices per weight: 4 for LSTM, 3 for GRU, 1 else.
func (m rnnMode) gates() int64 {
	switch m {
	case rnnLSTM:
		return 4
	case rnnGRU:
		return 3
	}
	return 1
}

// rnnNames are the modes' modules, as the estimates name them.
var rnnNames = map[rnnMode]string{rnnRelu: "RNN_RELU", rnnTanh: "RNN_TANH", rnnLSTM: "LSTM", rnnGRU: "GRU"}

// rnnShape is a recurrent layer's configuration: what its weight space
// depends on.
type rnnShape struct {
	mode                        rnnMode
	input, hidden, proj, layers int64
	bidir                       bool
	dtype                       DType
}

// dirs is the number of directions.
func (r rnnShape) dirs() int64 {
	if r.bidir {
		return 2
	}
	return 1
}

// out is the size of a step's output per direction: proj_size when set.
func (r rnnShape) out() int64 {
	if r.proj > 0 {
		return r.proj
	}
	return r.hidden
}

// rnnParam is one parameter's place in the weight space.
type rnnParam struct {
	offset int64 // in elements
	shape  []int64
}

// layout is cuDNN's weight space, as get_parameters walks it: for each
// layer and direction (layer 0 forward, layer 0 reverse, layer 1, ...)
// the input-hidden matrices, the hidden-hidden ones, both biases (there
// whether the module has them or not: PyTorch asks for double bias) and
// the projection, each group of gates one tensor; and its size in
// elements. cuDNN places every layer's matrices first, in that order
// and end to end (input-hidden, hidden-hidden, projection), then every
// layer's two biases: recorded for all 530 configurations of
// scripts/probe_rnn.py (testdata/rnn), each mode, dtype, proj_size and
// direction (TestRNNLayoutIsTheRecording).
func (r rnnShape) layout() ([][]rnnParam, int64) {
	g := r.mode.gates() * r.hidden
	n := r.layers * r.dirs()
	all := make([][]rnnParam, n)
	off := int64(0)
	place := func(shape []int64) rnnParam {
		p := rnnParam{off, shape}
		off += int64(numel(shape))
		return p
	}
	for l := range n {
		in := r.input
		if l >= r.dirs() {
			in = r.out() * r.dirs()
		}
		ih, hh := place([]int64{g, in}), place([]int64{g, r.out()})
		all[l] = []rnnParam{ih, hh, {}, {}}
		if r.proj > 0 {
			all[l] = append(all[l], place([]int64{r.proj, r.hidden}))
		}
	}
	for l := range n {
		all[l][2], all[l][3] = place([]int64{g}), place([]int64{g})
	}
	return all, off
}

// rnnCall is one call of the layer: its shape, and its input's.
type rnnCall struct {
	rnnShape
	seq, batch int64   // steps, and the batch of the first step
	tokens     int64   // a packed input's rows (its batch_sizes' sum); 0 unpacked
	sizes      []int64 // a packed input's batch_sizes; nil unpacked
	train      bool
	dropout    float64
}

// steps are the rows the call computes: every step's batch.
func (c rnnCall) steps() uint64 {
	if c.tokens > 0 {
		return uint64(c.tokens)
	}
	return uint64(c.seq * c.batch)
}

// workspace is cuDNN's workspace for the call: as recorded
// (rnn_table.go), else estimated as the
// input-to-hidden products of every step of a layer, both directions
// (gates × hidden per row), and in inference the two layers' outputs
// it ping-pongs between (the reserve holds them when training).
func (c rnnCall) workspace() uint64 {
	if sz, ok := c.recorded(); ok {
		if c.train {
			return sz.train
		}
		return sz.infer
	}
	n := c.steps() * uint64(c.mode.gates()*c.hidden*c.dirs())
	if !c.train && c.layers > 1 {
		n += 2 * c.steps() * uint64(c.out()*c.dirs())
	}
	return n * c.dtype.Size
}

// backwardWorkspaces are cuDNN's workspaces for the backward of a
// training call, its data pass's and its weight pass's, and whether they
// were recorded (rnn_table.go: every mode's at every recorded
// configuration); else both are estimated as the training forward's,
// which they are at 513 of the 530 recorded configurations (not at
// LSTM's and GRU's hidden 129 to 192 of the grid, the plain RNNs' 384,
// nor at rnn_layers.py's: cuDNN picks another algorithm; the two passes' are the same size at all 530).
func (c rnnCall) backwardWorkspaces() (data, weight uint64, recorded bool) {
	if sz, ok := c.recorded(); ok && sz.backward {
		return sz.data, sz.weight, true
	}
	ws := c.workspace()
	return ws, ws, false
}

// reserve is the reserve space a training call leaves for backward: as
// recorded (rnn_table.go), else estimated as, for every layer and direction and step, the gates'
// activations, the cell state (LSTM), the layer's output and, for a GRU,
// the hidden-hidden product its reset gate scales; and the dropout
// masks between layers.
func (c rnnCall) reserve() uint64 {
	if !c.train {
		return 0
	}
	if sz, ok := c.recorded(); ok {
		return sz.reserve
	}
	per := c.mode.gates()*c.hidden + c.out()
	switch c.mode {
	case rnnLSTM, rnnGRU:
		per += c.hidden
	}
	n := c.steps() * uint64(c.layers*c.dirs()*per)
	if c.dropout > 0 && c.layers > 1 {
		n += c.steps() * uint64((c.layers-1)*c.out()*c.dirs())
	}
	return n * c.dtype.Size
}

// String is the call as an estimate names it.
func (c rnnCall) String() string {
	dir := ""
	if c.bidir {
		dir = " bidirectional"
	}
	return fmt.Sprintf("%s input %d hidden %d layers %d%s %s, %d steps of batch %d", rnnNames[c.mode], c.input, c.hidden, c.layers, dir, c.dtype.Name, c.seq, c.batch)
}

// estimateRNN labels a call on dev's GPU estimated where its workspace
// and reserve space are not recorded (rnn_table.go), or were recorded
// on another card (cards.go: cuDNN picks its algorithm per GPU).
func (s *Session) estimateRNN(dev Device, op string, c rnnCall) error {
	if _, ok := c.recorded(); ok {
		return s.onCard(dev, op, "%s: cuDNN's workspace and reserve space recorded on the H100 (testdata/rnn); cuDNN picks its algorithm per GPU", c)
	}
	reserve := "none (inference)"
	if c.train {
		reserve = allocator.FormatSize(c.reserve())
	}
	return s.estimate(nil, op, "%s: cuDNN's workspace (%s) and reserve space (%s) estimated from what its algorithm keeps (steps x batch x gates x hidden), and its weight space as the parameters packed end to end; not yet recorded on the GPU (scripts/probe_rnn.py)", c, allocator.FormatSize(c.workspace()), reserve)
}

// dropoutStateBytes is cudnnDropoutGetStatesSize on a GPU: 24 bytes
// (a generator state) for each thread its multiprocessors hold at once,
// recorded on the GH100 (6,488,064 bytes: 132 x 2048 x 24); on another
// GPU an estimate (dropoutStateRecorded).
func dropoutStateBytes(sms, threads int) uint64 { return uint64(sms) * uint64(threads) * 24 }

// dropoutStateRecorded reports whether the dropout state of a GPU of
// sms multiprocessors of threads each was recorded (the GH100's).
func dropoutStateRecorded(sms, threads int) bool { return sms == 132 && threads == 2048 }
