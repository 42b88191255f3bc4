package engine

import (
	"strconv"
	"strings"
	"testing"
)

// TestStagedBlocksAsRecorded: PyTorch's channels-last statistics kernel
// stages its partial sums through a buffer of 4 x C x blocks floats and
// an int per column exactly where stagedBlocks says it splits the batch,
// for every training batch norm of a 2-d input in cnn_probe (9 shapes).
func TestStagedBlocksAsRecorded(t *testing.T) {
	checked := 0
	for _, c := range probeCases(t) {
		if !strings.HasPrefix(c.name, "bn1d-2d") || c.name == "bn1d-2d-eval" {
			continue
		}
		fwd := c.phases["fwd"] // output, mean, invstd, then the buffer and semaphores
		blocks, columns := stagedBlocks(c.shape[0], c.shape[1])
		var want []string
		if blocks > 1 {
			buf, sem := strconv.FormatInt(16*c.shape[1]*blocks, 10), strconv.FormatInt(4*columns, 10)
			want = []string{"a" + buf, "a" + sem, "f" + sem, "f" + buf}
		}
		if got := fwd[3:]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s %v %s: PyTorch's %v after the statistics, the rule %v", c.name, c.shape, c.dtype, got, want)
		}
		checked++
	}
	if checked < 27 {
		t.Errorf("only %d batch norms checked", checked)
	}
}
