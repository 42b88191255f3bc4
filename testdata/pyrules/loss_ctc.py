# F.ctc_loss and nn.CTCLoss on the GPU, as speech models (Conformer,
# wav2vec2 heads) train with them: padded (N, S) targets on the device
# and concatenated 1-d targets, lengths as host tensors and as lists,
# reduction mean, sum and none, zero_infinity, forward and backward
# (PyTorch's native kernel: the loss, log_alpha; backward's log_beta and
# gradient), and the case cuDNN's CTC takes (int32 targets and lengths on
# the host, blank 0, every input length the full T, float32); each
# statement alone so its peak shows.
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
T, N, C, S = 203, 8, 129, 37
x = torch.randn(T, N, C, device='cuda', requires_grad=True)
tgt = torch.randint(1, C, (N, S), device='cuda')
il = torch.full((N,), T, dtype=torch.long)
tl = torch.tensor([S - 3 * i for i in range(N)])
for red in ('mean', 'sum', 'none'):
    lp = x.log_softmax(2)
    torch.cuda.reset_peak_memory_stats()
    loss = F.ctc_loss(lp, tgt, il, tl, reduction=red)
    print(f"ctc {red}: {used()} {peak()} {loss.shape} {loss.grad_fn.name()}")
    torch.cuda.reset_peak_memory_stats()
    loss.sum().backward() if red == 'none' else loss.backward()
    print(f"ctc {red} backward: {used()} {peak()}")
    del lp, loss
    x.grad = None
# zero_infinity, input lengths shorter than T, lengths as lists
lp = x.log_softmax(2)
torch.cuda.reset_peak_memory_stats()
loss = F.ctc_loss(lp, tgt, [T - 3 * i for i in range(N)], tl.tolist(), zero_infinity=True)
print(f"ctc zero_infinity: {used()} {peak()}")
loss.backward()
print(f"ctc zero_infinity backward: {used()} {peak()}")
del lp, loss
x.grad = None
# concatenated targets on the device
flat = torch.cat([tgt[i, :n] for i, n in enumerate(tl.tolist())])
lp = x.log_softmax(2)
torch.cuda.reset_peak_memory_stats()
loss = nn.CTCLoss(blank=0)(lp, flat, il, tl)
print(f"ctc flat: {used()} {peak()}")
loss.backward()
print(f"ctc flat backward: {used()} {peak()}")
del lp, loss
x.grad = None
# a bigger one: past the backward's size heuristic (the blanks' logsumexp)
lp = torch.randn(512, 16, 1025, device='cuda', requires_grad=True).log_softmax(2)
tgt2 = torch.randint(1, 1025, (16, 120), device='cuda')
torch.cuda.reset_peak_memory_stats()
loss = F.ctc_loss(lp, tgt2, torch.full((16,), 512), torch.full((16,), 120))
print(f"ctc big: {used()} {peak()}")
loss.backward()
print(f"ctc big backward: {used()} {peak()}")
del lp, loss
# cuDNN's path: int32 targets and lengths on the host
lp = x.log_softmax(2)
torch.cuda.reset_peak_memory_stats()
loss = F.ctc_loss(lp, flat.int().cpu(), il.int(), tl.int())
print(f"ctc cudnn: {used()} {peak()} {loss.grad_fn.name()}")
loss.backward()
print(f"ctc cudnn backward: {used()} {peak()}")
del lp, loss
x.grad = None
