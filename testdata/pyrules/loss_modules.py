# The loss modules: nn.MSELoss, nn.L1Loss, nn.CrossEntropyLoss,
# nn.NLLLoss and nn.BCEWithLogitsLoss allocate what their functional
# forms do, forward and backward; their reduction, ignore_index and
# repr.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.randn(512, 1024, device='cuda', requires_grad=True)
t = torch.randn(512, 1024, device='cuda')
y = torch.randint(0, 1024, (512,), device='cuda')
crit = nn.MSELoss()
print(crit, crit.reduction)
torch.cuda.reset_peak_memory_stats()
crit(x, t).backward()
print(f"MSELoss: {used()} {peak()}")
x.grad = None
crit = nn.L1Loss(reduction='sum')
torch.cuda.reset_peak_memory_stats()
crit(x, t).backward()
print(f"L1Loss sum: {used()} {peak()}")
x.grad = None
crit = nn.CrossEntropyLoss(ignore_index=0)
print(crit, crit.ignore_index, crit.label_smoothing)
torch.cuda.reset_peak_memory_stats()
crit(x, y).backward()
print(f"CrossEntropyLoss: {used()} {peak()}")
x.grad = None
crit = nn.NLLLoss(reduction='sum')
torch.cuda.reset_peak_memory_stats()
crit(x.log_softmax(dim=1), y).backward()
print(f"NLLLoss: {used()} {peak()}")
x.grad = None
crit = nn.BCEWithLogitsLoss()
torch.cuda.reset_peak_memory_stats()
loss = crit(x, t.sigmoid())
print(f"BCEWithLogitsLoss: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"BCEWithLogitsLoss backward: {used()} {peak()}")
del loss, crit
x.grad = None
print(f"end: {used()}")
