package torchpy_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// TestDumpSnapshotMissingFolder: _dump_snapshot into a folder that does
// not exist raises the FileNotFoundError PyTorch raised there, word for
// word (testdata/experiments/book_double_muls_inference.jsonl, whose
// last statement writes into traces/).
func TestDumpSnapshotMissingFolder(t *testing.T) {
	f, err := os.Open("../testdata/experiments/book_double_muls_inference.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var row struct{ Error *string }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		if row.Error != nil {
			want = *row.Error
		}
	}
	if want == "" {
		t.Fatal("the recording has no error")
	}
	got := runSource(t, 1, "import torch\ntorch.cuda.memory._dump_snapshot(\"traces/double_muls_inference.pickle\")\n")
	if got != "error: 2:1: "+want+"\n" {
		t.Errorf("got %q, want PyTorch's %q", got, want)
	}
}
