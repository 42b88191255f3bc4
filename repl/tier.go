package repl

import (
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// EstimatedMark marks figures that rest on an estimate: in the step
// report before host, in fit's exact column.
const EstimatedMark = "≈"

// FirstEstimate is the estimate a run's figures rest on, as the reports
// name it: "FILE:LINE: OP CAUSE" (empty while they are exact).
func FirstEstimate(t engine.Tier) string {
	if t.First == nil {
		return ""
	}
	if t.First.Where == "" {
		return t.First.String()
	}
	return t.First.Where + ": " + t.First.String()
}

// EstimatedText says how a run's figures rest on estimates: how many
// statements estimated, and the first estimate.
func EstimatedText(t engine.Tier) string {
	n := "1 statement"
	if t.Steps != 1 {
		n = fmt.Sprintf("%d statements", t.Steps)
	}
	return fmt.Sprintf("%s estimated, an op following a general rule where none is recorded on the GPU; every figure from the first estimate on rests on it: %s", n, FirstEstimate(t))
}

// estimatedText is EstimatedText for a run whose figures rest on
// estimates, empty for an exact one.
func estimatedText(t engine.Tier) string {
	if t.Exact() {
		return ""
	}
	return EstimatedText(t)
}
