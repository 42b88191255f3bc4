package engine

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEmbeddingSortedRecorded replays scripts/probe_embedding.py's
// recording (testdata/embedding_backward.jsonl): for each of its F.embedding
// configurations (1000 to 1,048,576 indices into tables of 65 x 384,
// 7919 x 512, 50304 x 320 and 100000 x 64, float32 and bfloat16), the
// backward of a dense gradient allocates and frees what PyTorch did, in
// order (past 3072 indices: the sort of 64-bit keys, the segments, the
// fused or two-pass kernel's buffers), exact, and so are the 1,034 of its
// --counts recording (testdata/embedding_counts.jsonl.gz: every 256th
// count from 3,073 to 2^18 and some to 3,000,000); estimated past them
// and on float16's two-pass path, not recorded (one estimate a backward).
func TestEmbeddingSortedRecorded(t *testing.T) {
	backward := func(n, rows, dim int64, dtype string) (*Session, []string) {
		s, err := NewSession(Options{Preset: Presets["h200"], FakeHost: true})
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{rows, dim}, DType: DTypes[dtype], Device: cuda0, RequiresGrad: true})
		if err != nil {
			t.Fatal(err)
		}
		idx, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{n}, DType: DTypes["int64"], Device: cuda0})
		if err != nil {
			t.Fatal(err)
		}
		y, err := s.Embedding(idx, w)
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.NewTensor(TensorSpec{Op: "empty", Shape: y.Shape, DType: y.DType, Device: cuda0})
		if err != nil {
			t.Fatal(err)
		}
		s.tiers.beginStep()
		i := len(s.History(0))
		if err := s.BackwardWith(y, g, false); err != nil {
			t.Fatal(err)
		}
		return s, actionsSince(s, i)
	}
	type row struct {
		Op           string
		N, Rows, Dim int64
		DType        string
		Bwd          struct{ Events [][]any }
	}
	for _, c := range []struct {
		file string
		want int
	}{{"embedding_backward.jsonl", 47}, {"embedding_counts.jsonl.gz", 1034}} {
		checked := 0
		for _, r := range readRows[row](t, "../testdata/"+c.file) {
			if r.Op != "embedding" {
				continue
			}
			want := probedActions(r.Bwd.Events)
			s, got := backward(r.N, r.Rows, r.Dim, r.DType)
			if estimated := r.N > embeddingSortProbed; !slices.Equal(got, want) || len(s.tiers.step) != map[bool]int{true: 1}[estimated] {
				t.Errorf("%s: %s embedding of %d indices into [%d, %d]: %v (estimated %v), PyTorch %v", c.file, r.DType, r.N, r.Rows, r.Dim, got, s.tiers.step, want)
			}
			checked++
		}
		if checked != c.want {
			t.Errorf("%s: checked %d configurations, want the recording's %d", c.file, checked, c.want)
		}
	}
	if s, _ := backward(4096, 7919, 512, "float16"); len(s.tiers.step) != 1 {
		t.Errorf("float16 embedding of 4096 indices into [7919, 512] (the two-pass path, not recorded in float16): estimates %v, want one", s.tiers.step)
	}
	if s, _ := backward(embeddingSortProbed+1, 65, 16, "float32"); len(s.tiers.step) != 1 {
		t.Errorf("float32 embedding of %d indices, past the recorded: estimates %v, want one", embeddingSortProbed+1, s.tiers.step)
	}
}

// TestEmbeddingBagRecorded replays the twelve F.embedding_bag
// configurations of scripts/probe_embedding.py's recording
// (testdata/embedding_backward.jsonl: 387 to 262,144 indices in bags of
// 1 to 16, sum, mean and max, into tables of 10131 x 16 and 100000 x
// 64): the forward allocates bag_size, offset2bag, the output and in
// max mode max_indices, as PyTorch did; the backward of a dense gradient
// sorts the indices and sums them by segments (max mode: the weight's
// gradient alone), then frees what the node saved, every event in
// order; none labelled estimated (embeddingBagHeld), while a count of
// indices not recorded is, forward and backward.
func TestEmbeddingBagRecorded(t *testing.T) {
	text, err := os.ReadFile("../testdata/embedding_backward.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for line := range strings.Lines(string(text)) {
		var r struct {
			Op                string
			N, Bag, Rows, Dim int64
			Mode, DType       string
			Fwd, Bwd          struct{ Events [][]any }
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.Op != "embedding_bag" {
			continue
		}
		s, err := NewSession(Options{Preset: Presets["h200"], FakeHost: true})
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{r.Rows, r.Dim}, DType: DTypes[r.DType], Device: cuda0, RequiresGrad: true})
		if err != nil {
			t.Fatal(err)
		}
		var idx, offsets *Tensor
		for _, p := range []struct {
			t **Tensor
			n int64
		}{{&idx, r.N}, {&offsets, r.N / r.Bag}} {
			if *p.t, err = s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{p.n}, DType: DTypes["int64"], Device: cuda0}); err != nil {
				t.Fatal(err)
			}
		}
		s.tiers.beginStep()
		i := len(s.History(0))
		outs, err := s.EmbeddingBag(w, idx, offsets, int64(slices.Index(embeddingBagModes, r.Mode)), false)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs[1:] {
			s.dropTensor(o)
		}
		fwd, fwdEst := actionsSince(s, i), len(s.tiers.step)
		g, err := s.NewTensor(TensorSpec{Op: "empty", Shape: outs[0].Shape, DType: outs[0].DType, Device: cuda0})
		if err != nil {
			t.Fatal(err)
		}
		s.tiers.beginStep()
		i = len(s.History(0))
		if err := s.BackwardWith(outs[0], g, false); err != nil {
			t.Fatal(err)
		}
		if got := actionsSince(s, i); !slices.Equal(fwd, probedActions(r.Fwd.Events)) || !slices.Equal(got, probedActions(r.Bwd.Events)) || fwdEst != 0 || len(s.tiers.step) != 0 {
			t.Errorf("embedding_bag of %d indices in bags of %d (%s) into [%d, %d]: forward %v, backward %v (estimated %d, %d), PyTorch %v and %v",
				r.N, r.Bag, r.Mode, r.Rows, r.Dim, fwd, got, fwdEst, len(s.tiers.step), probedActions(r.Fwd.Events), probedActions(r.Bwd.Events))
		}
		checked++
	}
	if checked != 12 {
		t.Errorf("checked %d configurations, want the recording's 12", checked)
	}
	s := newTestSession(t, 1)
	w := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{100, 16}, DType: Float32, Device: cuda0, RequiresGrad: true})
	idx := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{388}, DType: DTypes["int64"], Device: cuda0})
	offsets := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{4}, DType: DTypes["int64"], Device: cuda0})
	outs, err := s.EmbeddingBag(w, idx, offsets, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.BackwardWith(outs[0], mustTensor(t, s, TensorSpec{Op: "empty", Shape: outs[0].Shape, DType: Float32, Device: cuda0}), false); err != nil {
		t.Fatal(err)
	}
	if est := s.StepEstimatesSince(0); len(est) != 2 {
		t.Errorf("388 indices: estimates %v, want the forward's and the backward's", est)
	}
}

// probedActions are a probe's recorded events as actionsSince writes
// them: +size for an allocation, -size for a free.
func probedActions(es [][]any) []string {
	var out []string
	for _, e := range es {
		size := strconv.FormatUint(uint64(e[1].(float64)), 10)
		switch e[0] {
		case "alloc":
			out = append(out, "+"+size)
		case "free_requested":
			out = append(out, "-"+size)
		}
	}
	return out
}
