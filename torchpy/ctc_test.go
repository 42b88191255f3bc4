package torchpy_test

import (
	"strings"
	"testing"
)

// TestCTCLabels: F.ctc_loss is exact where loss_ctc.py recorded it
// (below; TestRecordedStatements holds its events) and labelled where
// it was not: zero_infinity past the backward's size heuristic, and
// lengths whose values the tool does not compute (log_alpha then sized
// by the targets' width).
func TestCTCLabels(t *testing.T) {
	st := runStatements(t, snippetFile(t, `import torch
import torch.nn.functional as F
lp = torch.randn(50, 4, 20, device='cuda', requires_grad=True).log_softmax(2)
tgt = torch.randint(1, 20, (4, 10), device='cuda')
loss = F.ctc_loss(lp, tgt, [50] * 4, [10] * 4)
big = torch.randn(300, 4, 20, device='cuda').log_softmax(2)
loss2 = F.ctc_loss(big, tgt, [300] * 4, [10] * 4, zero_infinity=True)
loss3 = F.ctc_loss(lp, tgt, torch.full((4,), 50), torch.randint(1, 10, (4,)))
`))
	for line, want := range map[int]string{5: "", 7: "with zero_infinity, whose backward takes the blanks' logsumexp path", 8: "lengths whose values are not computed"} {
		est := strings.Join(st.rows[line].estimates, "; ")
		if st.rows[line].err != "" || (want == "") != (est == "") || !strings.Contains(est, want) {
			t.Errorf("line %d: estimates %q (error %q), want one saying %q", line, est, st.rows[line].err, want)
		}
	}
}
