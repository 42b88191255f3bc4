package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestOptimizerPythonCounts: what torch.optim's construction, zero_grad
// and step and a LambdaLR's construction and step add to generation 0's
// count is what they add in CPython (gh47589_lambdalr_self.lines.json:
// scripts/record_gc.py --lines, gc.get_count() after every statement of
// its loop and methods), where PyTorch's Python makes and keeps objects
// the engine does not (optim_python.go, lr_scheduler.py): in rounds 0
// and 2, before the free list of pairs first runs dry, run
// --as-recorded --each-statement.
func TestOptimizerPythonCounts(t *testing.T) {
	const script = "../../testdata/experiments/gc/gh47589_lambdalr_self.py"
	b, err := os.ReadFile("../../testdata/experiments/gc/gh47589_lambdalr_self.lines.json")
	if err != nil {
		t.Fatal(err)
	}
	var probes [][4]int
	if err := json.Unmarshal(b, &probes); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--as-recorded", "--each-statement", script)
	var tool [][4]int
	for _, r := range readGCRows(t, out) {
		if len(r.GC) == 3 && r.Line >= 11 && r.Line <= 25 && r.Line != 23 {
			tool = append(tool, [4]int{r.Line, r.GC[0], r.GC[1], r.GC[2]})
		}
	}
	// what each statement of a round adds, by the round's rounds
	added := func(rows [][4]int) []map[int]int {
		var rounds []map[int]int
		for i, r := range rows {
			if r[0] == 11 {
				rounds = append(rounds, map[int]int{})
			}
			if i > 0 && len(rounds) > 0 {
				rounds[len(rounds)-1][r[0]] = r[1] - rows[i-1][1]
			}
		}
		return rounds
	}
	cpython, got := added(probes[2:]), added(tool)
	if len(cpython) != 40 || len(got) != 40 {
		t.Fatalf("%d rounds recorded, %d run, want 40\n%s", len(cpython), len(got), errOut)
	}
	statements := map[int]string{12: "Adam(...)", 13: "LambdaLR(...)", 17: "zero_grad()", 19: "scheduler step()", 20: "optimizer step()"}
	for _, round := range []int{0, 2} {
		for line, what := range statements {
			if round == 0 && line == 12 {
				continue // the import of torch._dynamo: TestDynamoImportCounts
			}
			if g, w := got[round][line], cpython[round][line]; g != w {
				t.Errorf("round %d: %s (line %d) adds %d to generation 0's count, CPython's %d", round, what, line, g, w)
			}
		}
	}
	if t.Failed() {
		t.Log(fmt.Sprint("tool:", tool[:22]))
	}
}
