package engine

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	if sz, _ := (rnnCall{rnnShape: rnnShape{mode: rnnRelu, input: 256, hidden: 256, layers: 1, dtype: DTypes["float32"]}, seq: 32, batch: 16}).recorded(); sz != (rnnSizes{16875904, 12648832, 524544}) {
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
