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
// fused or two-pass kernel's buffers), labelled estimated past 3072
// indices (one estimate a backward) and exact up to them.
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
	text, err := os.ReadFile("../testdata/embedding_backward.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for line := range strings.Lines(string(text)) {
		var r struct {
			Op           string
			N, Rows, Dim int64
			DType        string
			Bwd          struct{ Events [][]any }
		}
		if json.Unmarshal([]byte(line), &r) != nil || r.Op != "embedding" {
			continue
		}
		var want []string
		for _, e := range r.Bwd.Events {
			size := strconv.FormatUint(uint64(e[1].(float64)), 10)
			switch e[0] {
			case "alloc":
				want = append(want, "+"+size)
			case "free_requested":
				want = append(want, "-"+size)
			}
		}
		s, got := backward(r.N, r.Rows, r.Dim, r.DType)
		if estimates := min(r.N/(embeddingDirect+1), 1); !slices.Equal(got, want) || int64(len(s.tiers.step)) != estimates {
			t.Errorf("%s embedding of %d indices into [%d, %d]: %v (estimated %v), PyTorch %v", r.DType, r.N, r.Rows, r.Dim, got, s.tiers.step, want)
		}
		checked++
	}
	if checked != 47 {
		t.Errorf("checked %d configurations, want the recording's 47", checked)
	}
}
