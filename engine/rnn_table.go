package engine

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
)

// The recorded cuDNN sizes of recurrent layers (testdata/rnn/README.md):
// scripts/probe_rnn.py's grid (rnn_probe.jsonl.gz, 512 configurations)
// and its --scripts configurations (rnn_scripts.jsonl.gz: those the rule
// scripts and the zoo's recurrent models run), recorded with PyTorch
// 2.11 and cuDNN 9.19 on the GPU machine (an H100 lent for the H200, the
// same GH100), copies in rnntable/ (TestRNNTableIsTheRecording). cuDNN's
// workspace follows its choice of algorithm, which no formula the grid
// shows predicts (it falls from hidden 384 to 512), so a call's
// workspace and reserve space are exact only at a recorded
// configuration; any other is estimated (rnn_cudnn.go).

//go:embed rnntable/*.jsonl.gz
var rnnTableFiles embed.FS

// rnnSizes are what cuDNN asked for at one configuration (bytes): the
// workspace of a training and of an inference forward, the reserve
// space of a training one, and, where the backward was recorded
// (backward), the workspaces of its data and weight passes.
type rnnSizes struct {
	train, infer, reserve uint64
	backward              bool
	data, weight          uint64
}

// rnnTable is the recordings by configuration (rnnCall.key).
var rnnTable = sync.OnceValue(func() map[string]rnnSizes {
	t := map[string]rnnSizes{}
	files, err := fs.Glob(rnnTableFiles, "rnntable/*.jsonl.gz")
	if err != nil {
		panic(err)
	}
	for _, name := range files {
		if err := readRNNTable(name, t); err != nil {
			panic(fmt.Sprintf("engine: the built-in RNN table %s: %v", name, err))
		}
	}
	return t
})

// rnnRow is one configuration of a probe_rnn.py recording.
type rnnRow struct {
	Mode       string   `json:"mode"`
	Input      int64    `json:"input"`
	Hidden     int64    `json:"hidden"`
	Proj       int64    `json:"proj"`
	Layers     int64    `json:"layers"`
	Bidir      bool     `json:"bidir"`
	DType      string   `json:"dtype"`
	Seq        int64    `json:"seq"`
	Batch      int64    `json:"batch"`
	BatchSizes []int64  `json:"batch_sizes"`
	Dropout    float64  `json:"dropout"`
	Train      rnnPhase `json:"train"`
	Infer      rnnPhase `json:"infer"`
	Backward   rnnPhase `json:"backward"`
	Module     any      `json:"module"`
}

// rnnPhase is one phase of a configuration: its allocator events
// ([action, size, address id]), and the reserve space's bytes.
type rnnPhase struct {
	Events  [][3]json.RawMessage `json:"events"`
	Error   string               `json:"error"`
	Reserve uint64               `json:"reserve"`
}

// temporary is the phase's allocation freed within it (the workspace).
func (p rnnPhase) temporary() (uint64, error) {
	freed, err := p.temporaries()
	if err == nil && len(freed) != 1 {
		err = fmt.Errorf("%d allocations freed in the phase, not one workspace", len(freed))
	}
	if err != nil {
		return 0, err
	}
	return freed[0], nil
}

// temporaries are the phase's allocations freed within it, in the
// order they were freed.
func (p rnnPhase) temporaries() ([]uint64, error) {
	sizes := map[string]uint64{}
	var freed []uint64
	for _, e := range p.Events {
		var action string
		var size uint64
		if json.Unmarshal(e[0], &action) != nil || json.Unmarshal(e[1], &size) != nil {
			return nil, fmt.Errorf("an event that is not [action, size, id]")
		}
		id := string(e[2])
		switch action {
		case "alloc":
			sizes[id] = size
		case "free_completed":
			if n, ok := sizes[id]; ok {
				freed = append(freed, n)
			}
		}
	}
	return freed, nil
}

// readRNNTable adds the configurations of one embedded recording to t.
func readRNNTable(name string, t map[string]rnnSizes) error {
	b, err := rnnTableFiles.ReadFile(name)
	if err != nil {
		return err
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		var r rnnRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("line %d: %v", line, err)
		}
		if r.Mode == "" || r.Module != nil || r.Train.Error != "" || r.Infer.Error != "" {
			continue // the header, a module's phases, a phase that failed
		}
		mode, ok := rnnModes[r.Mode]
		if !ok {
			return fmt.Errorf("line %d: mode %q", line, r.Mode)
		}
		var sz rnnSizes
		if sz.train, err = r.Train.temporary(); err != nil {
			return fmt.Errorf("line %d: train: %v", line, err)
		}
		if sz.infer, err = r.Infer.temporary(); err != nil {
			return fmt.Errorf("line %d: infer: %v", line, err)
		}
		sz.reserve = r.Train.Reserve
		if r.Backward.Error == "" && r.Backward.Events != nil { // the data pass's workspace, then the weight pass's
			ws, err := r.Backward.temporaries()
			if err == nil && len(ws) != 2 {
				err = fmt.Errorf("%d allocations freed, not the two passes' workspaces", len(ws))
			}
			if err != nil {
				return fmt.Errorf("line %d: backward: %v", line, err)
			}
			sz.backward, sz.data, sz.weight = true, ws[0], ws[1]
		}
		c := rnnCall{rnnShape: rnnShape{mode: mode, input: r.Input, hidden: r.Hidden, proj: r.Proj, layers: r.Layers, bidir: r.Bidir, dtype: DTypes[r.DType]},
			seq: r.Seq, batch: r.Batch, sizes: r.BatchSizes, dropout: r.Dropout}
		t[c.key()] = sz
	}
	return sc.Err()
}

// rnnModes are the modes by the names the probe writes.
var rnnModes = map[string]rnnMode{"RNN_RELU": rnnRelu, "RNN_TANH": rnnTanh, "LSTM": rnnLSTM, "GRU": rnnGRU}

// key is the call's configuration as the table keys it.
func (c rnnCall) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %d %d %d %d %v %d %d %s [", c.mode, c.dtype.Name, c.input, c.hidden, c.proj, c.layers, c.bidir, c.seq, c.batch, strconv.FormatFloat(c.dropout, 'g', -1, 64))
	for i, n := range c.sizes {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(n, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// recorded is the call's recorded sizes, if its configuration is in the
// table.
func (c rnnCall) recorded() (rnnSizes, bool) {
	sz, ok := rnnTable()[c.key()]
	return sz, ok
}
