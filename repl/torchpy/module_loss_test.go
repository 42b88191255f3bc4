package torchpy_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// lossRules are the losses' rule scripts (testdata/pyrules/loss_*.py).
var lossRules = []string{"loss_mse", "loss_bce", "loss_ce", "loss_modules"}

// TestLossEventsInOrder: F.mse_loss, l1_loss,
// binary_cross_entropy_with_logits, cross_entropy, nll_loss and their
// modules allocate and free, forward and backward, what PyTorch 2.11
// did on the H200, each of the same size, in the same order.
func TestLossEventsInOrder(t *testing.T) {
	for _, name := range lossRules {
		t.Run(name, func(t *testing.T) {
			s, _ := runRule(t, name)
			var got []event
			for _, e := range s.History(0) {
				if counted[e.Action] {
					got = append(got, event{e.Action, e.Size})
				}
			}
			want, lines := recordedEvents(t, filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl"))
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("event %d (line %d): %s %d, PyTorch's %s %d", i, lines[i], got[i].action, got[i].size, want[i].action, want[i].size)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d events, PyTorch's %d", len(got), len(want))
			}
		})
	}
}

// TestLossRulesPrint: each statement of the loss scripts prints what
// it printed under PyTorch (memory figures, grad_fn names, shapes,
// dtypes, the modules' reprs and attributes).
func TestLossRulesPrint(t *testing.T) {
	for _, name := range lossRules {
		t.Run(name, func(t *testing.T) {
			_, printed := runRule(t, name)
			f, err := os.Open(filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<22)
			for sc.Scan() {
				var row struct {
					Line   int    `json:"line"`
					Stdout string `json:"stdout"`
				}
				if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
					t.Fatal(err)
				}
				if got := printed[row.Line]; got != row.Stdout {
					t.Errorf("line %d printed %q, PyTorch %q", row.Line, got, row.Stdout)
				}
			}
		})
	}
}
