package engine

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rnnRecordings are testdata/rnn's recordings of scripts/probe_rnn.py.
var rnnRecordings = []string{"rnn_probe.jsonl.gz", "rnn_scripts.jsonl.gz"}

// readRNNRecording is one recording's rows, each as JSON.
func readRNNRecording(t *testing.T, name string) []map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "rnn", name))
	if err != nil {
		t.Fatal(err)
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]json.RawMessage
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestRNNTableIsTheRecording: the engine's embedded RNN table is
// testdata/rnn's recordings, byte for byte.
func TestRNNTableIsTheRecording(t *testing.T) {
	for _, name := range rnnRecordings {
		want, err := os.ReadFile(filepath.Join("..", "testdata", "rnn", name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := rnnTableFiles.ReadFile("rnntable/" + name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("engine/rnntable/%s is not testdata/rnn/%s (%v)", name, name, err)
		}
	}
}

// TestRNNLayoutIsTheRecording: cuDNN's weight space and each weight's
// place in it, as layout gives them, are what _cudnn_rnn_flatten_weight
// made for every recorded configuration (each mode, dtype, proj_size,
// direction and depth), and the table holds every configuration's
// workspaces and reserve space.
func TestRNNLayoutIsTheRecording(t *testing.T) {
	n := 0
	for _, name := range rnnRecordings {
		for _, raw := range readRNNRecording(t, name) {
			var r rnnRow
			var flat struct {
				WeightSpace int64   `json:"weight_space"`
				Offsets     []int64 `json:"offsets"`
			}
			b, _ := json.Marshal(raw)
			if json.Unmarshal(b, &r) != nil || raw["flatten"] == nil {
				continue
			}
			if err := json.Unmarshal(raw["flatten"], &flat); err != nil {
				t.Fatal(err)
			}
			n++
			c := rnnCall{rnnShape: rnnShape{mode: rnnModes[r.Mode], input: r.Input, hidden: r.Hidden, proj: r.Proj, layers: r.Layers, bidir: r.Bidir, dtype: DTypes[r.DType]},
				seq: r.Seq, batch: r.Batch, sizes: r.BatchSizes, dropout: r.Dropout, train: true}
			layout, total := c.layout()
			var offsets []int64
			for _, ps := range layout {
				for _, p := range ps {
					offsets = append(offsets, p.offset)
				}
			}
			if total != flat.WeightSpace || !slices.Equal(offsets, flat.Offsets) {
				t.Errorf("%s: weight space %d at %v, cuDNN's %d at %v", c.key(), total, offsets, flat.WeightSpace, flat.Offsets)
			}
			sz, ok := c.recorded()
			if !ok || sz.reserve != r.Train.Reserve || c.reserve() != sz.reserve || c.workspace() != sz.train {
				t.Errorf("%s: the table has %+v (%v), the recording reserve %d", c.key(), sz, ok, r.Train.Reserve)
			}
		}
	}
	if n != 530 {
		t.Errorf("%d configurations recorded, not 530", n)
	}
	if sz, _ := (rnnCall{rnnShape: rnnShape{mode: rnnRelu, input: 256, hidden: 256, layers: 1, dtype: DTypes["float32"]}, seq: 32, batch: 16}).recorded(); sz != (rnnSizes{train: 16875904, infer: 12648832, reserve: 524544, backward: true, data: 16875904, weight: 16875904}) {
		t.Errorf("RNN_RELU 256x256, 32 steps of 16: %+v", sz)
	}
}

// TestRNNDropoutStateIsTheRecording: cuDNN's dropout state on a GH100
// (132 multiprocessors of 2048 threads) is the recorded one.
func TestRNNDropoutStateIsTheRecording(t *testing.T) {
	var head struct {
		GPU          string `json:"gpu"`
		DropoutState uint64 `json:"dropout_state"`
	}
	b, _ := json.Marshal(readRNNRecording(t, rnnRecordings[0])[0])
	if err := json.Unmarshal(b, &head); err != nil {
		t.Fatal(err)
	}
	if got := dropoutStateBytes(132, 2048); got != head.DropoutState || !dropoutStateRecorded(132, 2048) {
		t.Errorf("dropout state %d bytes, recorded on the %s %d", got, head.GPU, head.DropoutState)
	}
	if dropoutStateRecorded(108, 2048) {
		t.Error("an A100's dropout state is not recorded")
	}
}

// TestRNNBackwardIsTheRecording: a layer's backward at every recorded
// configuration (the grid's and the scripts', packed ones too, of every
// mode: all 530 were recorded) makes what _cudnn_rnn_backward made on
// the GPU, in order: the input's, h_0's and (LSTM) c_0's gradients, the
// data pass's workspace (freed), the weights' gradient buffer and the
// weight pass's workspace (freed). The engine's backward, seeded with
// ones for the output only, makes zeros for h_n's and c_n's gradients
// around those: the recorded events must be one run of the engine's.
func TestRNNBackwardIsTheRecording(t *testing.T) {
	n, missing := 0, 0
	for _, name := range rnnRecordings {
		for _, raw := range readRNNRecording(t, name) {
			var r rnnRow
			b, _ := json.Marshal(raw)
			if json.Unmarshal(b, &r) != nil || r.Mode == "" || r.Module != nil {
				continue
			}
			c := rnnCall{rnnShape: rnnShape{mode: rnnModes[r.Mode], input: r.Input, hidden: r.Hidden, proj: r.Proj, layers: r.Layers, bidir: r.Bidir, dtype: DTypes[r.DType]},
				seq: r.Seq, batch: r.Batch, sizes: r.BatchSizes, dropout: r.Dropout, train: true}
			_, _, recorded := c.backwardWorkspaces()
			if r.Backward.Error != "" {
				missing++
				if recorded {
					t.Errorf("%s: the backward failed in the probe (%s), yet the table has its workspaces", c.key(), r.Backward.Error)
				}
				continue
			}
			n++
			if !recorded {
				t.Errorf("%s: the backward was recorded, the table has no workspaces", c.key())
				continue
			}
			var want []string
			for _, e := range r.Backward.Events {
				var action string
				var size uint64
				_ = json.Unmarshal(e[0], &action)
				_ = json.Unmarshal(e[1], &size)
				if action == "alloc" || action == "free_completed" {
					want = append(want, fmt.Sprintf("%s %d", action, size))
				}
			}
			got := rnnBackwardEvents(t, c)
			if !strings.Contains(" "+strings.Join(got, ", ")+",", " "+strings.Join(want, ", ")+",") {
				t.Errorf("%s: backward made %v, PyTorch's _cudnn_rnn_backward %v", c.key(), got, want)
			}
		}
	}
	if n != 530 || missing != 0 {
		t.Errorf("%d backwards recorded, %d failed, of 530 configurations: every one was recorded", n, missing)
	}
}

// rnnBackwardEvents runs a layer of c's configuration on a simulated
// H200 as probe_rnn.py did (weights flattened, a training forward) and
// gives its backward's allocations and frees.
func rnnBackwardEvents(t *testing.T, c rnnCall) []string {
	t.Helper()
	s, err := NewSession(Options{Preset: Presets["h200"], Backend: "sim", FakeHost: true, Devices: 1})
	if err != nil {
		t.Fatal(err)
	}
	must := func(x *Tensor, err error) *Tensor {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", c.key(), err)
		}
		return x
	}
	tensor := func(op string, grad bool, shape ...int64) *Tensor {
		return must(s.NewTensor(TensorSpec{Op: op, Shape: shape, DType: c.dtype, Device: cuda0, RequiresGrad: grad}))
	}
	g := c.mode.gates() * c.hidden
	stride0 := int64(4)
	if c.proj > 0 {
		stride0 = 5
	}
	var ws []*Tensor
	for l := range c.layers * c.dirs() {
		in := c.input
		if l >= c.dirs() {
			in = c.out() * c.dirs()
		}
		ws = append(ws, tensor("randn", true, g, in), tensor("randn", true, g, c.out()), tensor("randn", true, g), tensor("randn", true, g))
		if c.proj > 0 {
			ws = append(ws, tensor("randn", true, c.proj, c.hidden))
		}
	}
	must(s.Run(Ops["_cudnn_rnn_flatten_weight"], Args{ws, stride0, c.input, int64(c.mode), c.hidden, c.proj, c.layers, false, c.bidir}))
	var x, sizes *Tensor
	if c.sizes != nil {
		rows := int64(0)
		for _, n := range c.sizes {
			rows += n
		}
		x, sizes = tensor("randn", true, rows, c.input), must(s.hostIntTensor(c.sizes))
	} else {
		x = tensor("randn", true, c.seq, c.batch, c.input)
	}
	var hx any = tensor("zeros", true, c.layers*c.dirs(), c.batch, c.out())
	if c.mode == rnnLSTM {
		hx = []*Tensor{hx.(*Tensor), tensor("zeros", true, c.layers*c.dirs(), c.batch, c.hidden)}
	}
	op := map[rnnMode]string{rnnLSTM: "lstm", rnnGRU: "gru", rnnTanh: "rnn_tanh", rnnRelu: "rnn_relu"}[c.mode]
	outs, _, err := s.RunTuple(Ops[op], Args{x, hx, ws, true, c.layers, c.dropout, true, c.bidir, false, sizes})
	if err != nil {
		t.Fatalf("%s: %v", c.key(), err)
	}
	seed := must(s.NewTensor(TensorSpec{Op: "ones", Shape: outs[0].Shape, DType: c.dtype, Device: cuda0}))
	from := len(s.History(0))
	if err := s.BackwardWith(outs[0], seed, false); err != nil {
		t.Fatalf("%s: backward: %v", c.key(), err)
	}
	var got []string
	for _, e := range s.History(0)[from:] {
		if e.Action == "alloc" || e.Action == "free_completed" {
			got = append(got, fmt.Sprintf("%s %d", e.Action, e.Size))
		}
	}
	return got
}
