# F.cross_entropy with label_smoothing under torch.autocast, as BERT-style
# fine-tuning runs it (float16 and bfloat16 logits from a Linear, class
# indices, mean, sum and none, an ignored target), forward and backward:
# the log-probabilities in the logits' dtype, nll_loss's float32 cast of
# them, the smoothing sum (float32 by autocast's set_opt_dtype), its
# mask and reduction; each statement alone so its peak shows.
import torch
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
lin = torch.nn.Linear(768, 3001).cuda()
x = torch.randn(1536, 768, device='cuda')
y = torch.randint(0, 3001, (1536,), device='cuda')
y[::7] = -100
for dt in (torch.float16, torch.bfloat16):
    for red in ('mean', 'sum', 'none'):
        torch.cuda.reset_peak_memory_stats()
        with torch.autocast('cuda', dtype=dt):
            z = lin(x)
            loss = F.cross_entropy(z, y, label_smoothing=0.1, reduction=red)
        print(f"{dt} {red}: {used()} {peak()} {loss.dtype} {loss.grad_fn.name()}")
        torch.cuda.reset_peak_memory_stats()
        loss.sum().backward() if red == 'none' else loss.backward()
        print(f"{dt} {red} backward: {used()} {peak()}")
        del z, loss
        lin.zero_grad(set_to_none=True)
# the loss outside autocast of float16 logits made inside it
with torch.autocast('cuda', dtype=torch.float16):
    z = lin(x)
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(z, y, label_smoothing=0.2)
print(f"outside: {used()} {peak()} {loss.dtype}")
loss.backward()
print(f"outside backward: {used()} {peak()}")
del z, loss
