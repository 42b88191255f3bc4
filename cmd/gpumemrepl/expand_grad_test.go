package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestExpandRecordsItsNode: expand, expand_as and broadcast_to are views
// that autograd records (ExpandBackward0), whose backward sums the
// gradient down to the input's shape (sum_to_size): a [1024] vector
// expanded to [512, 1024] gets a 4 KiB gradient, not a 2 MiB one of the
// expanded shape (which it got while the view had no node). Held to
// testdata/pyrules/ops_repeat_shape.py's recording (an NVIDIA H100 80GB
// HBM3 lent for the H200, PyTorch 2.11): each statement naming
// expand_as or broadcast_to, and the print after each backward, print
// and allocate what PyTorch did.
func TestExpandRecordsItsNode(t *testing.T) {
	t.Parallel()
	script := "../../testdata/pyrules/ops_repeat_shape.py"
	out, _, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--keep-going", script)
	type row struct {
		Source    string `json:"source"`
		Allocated int64  `json:"allocated_bytes"`
		Output    string `json:"output"`
	}
	got := map[string]row{}
	for _, l := range strings.Split(out, "\n") {
		var r row
		if json.Unmarshal([]byte(l), &r) == nil && r.Source != "" {
			got[r.Source] = r
		}
	}
	f, err := os.Open("../../testdata/pyrules/ops_repeat_shape.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checked := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var want struct {
			Source  string `json:"source"`
			Stdout  string `json:"stdout"`
			Devices []struct {
				Allocated int64 `json:"allocated"`
			} `json:"devices"`
		}
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want.Source, "expand_as") && !strings.Contains(want.Source, "broadcast_to") {
			continue
		}
		g, ok := got[want.Source]
		switch {
		case !ok:
			t.Errorf("%q did not run", want.Source)
		case g.Output != want.Stdout || g.Allocated != want.Devices[0].Allocated:
			t.Errorf("%q printed %q, allocated %d; PyTorch %q, %d", want.Source, g.Output, g.Allocated, want.Stdout, want.Devices[0].Allocated)
		}
		checked++
	}
	if checked != 6 {
		t.Errorf("checked %d statements, want 6 (expand_as and broadcast_to: the op, its print, its backward's print)", checked)
	}
}
