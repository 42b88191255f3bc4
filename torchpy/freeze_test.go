package torchpy_test

import (
	"strings"
	"testing"
)

// TestFreezeInALiveGraph: p.requires_grad = False of parameters a graph
// already used (an EMA teacher whose weight_norm'd weight was computed
// from them as it was built) is allowed, as in PyTorch; the teacher's
// Linear then reads the weight its pre-hook makes again under no_grad,
// and a backward that reaches a frozen leaf through the older graph
// drops the gradient, an estimate; a leaf with a .grad is refused.
func TestFreezeInALiveGraph(t *testing.T) {
	st := runStatements(t, snippetFile(t, `import torch
import torch.nn as nn
teacher = nn.utils.weight_norm(nn.Linear(8, 16, bias=False)).cuda()
w = teacher.weight
for p in teacher.parameters():
    p.requires_grad = False
with torch.no_grad():
    y = teacher(torch.randn(2, 8, device='cuda'))
print(y.shape, y.requires_grad, teacher.weight_g.requires_grad, teacher.weight is w)
w.sum().backward()
print(teacher.weight_g.grad, teacher.weight_v.grad)
x = torch.ones(3, device='cuda', requires_grad=True)
(x * 2).sum().backward()
try:
    x.requires_grad = False
except NotImplementedError as e:
    print('refused')
`))
	for line, want := range map[int]string{
		9:  "torch.Size([2, 16]) False False False\n",
		11: "None None\n",
		14: "refused\n",
	} {
		if got := st.rows[line].output; got != want {
			t.Errorf("line %d printed %q, want %q (error %q)", line, got, want, st.rows[line].err)
		}
	}
	if est := st.rows[10].estimates; len(est) == 0 || !strings.Contains(est[len(est)-1], "set requires_grad=False while a graph held it") {
		t.Errorf("the backward through the frozen leaves' graph is not labelled: %q", est)
	}
}
