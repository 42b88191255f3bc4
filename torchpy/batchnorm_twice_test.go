package torchpy_test

import "testing"

// TestBatchNormTwiceBeforeBackward: BatchNorm in training run on two
// views before one backward (BYOL, SimCLR, DINO's multi-crop) backs
// both: PyTorch's batch_norm updates the running stats in place without
// bumping their version counter (pytorch/pytorch#13402), so the first
// forward's node still reads them; the tool raised PyTorch's version
// error there.
func TestBatchNormTwiceBeforeBackward(t *testing.T) {
	_, printed := runSnippet(t, `import torch
import torch.nn as nn
bn = nn.BatchNorm2d(8).cuda()
a = torch.randn(4, 8, 6, 6, device='cuda', requires_grad=True)
b = torch.randn(4, 8, 3, 3, device='cuda', requires_grad=True)
ya, yb = bn(a), bn(b)
(ya.sum() + yb.sum()).backward()
print(bn.running_mean._version, a.grad.shape, b.grad.shape)
`)
	if want := "0 torch.Size([4, 8, 6, 6]) torch.Size([4, 8, 3, 3])\n"; printed[8] != want {
		t.Errorf("printed %q, want %q", printed[8], want)
	}
}
