# The census ops modelled after ops_census_misc.py and ops_repeat_shape.py
# were recorded (those two stay as recorded): take, addcmul, var_mean
# (forward and backward, each alone so its peak shows), hann_window,
# unique with inverse and counts, unique_consecutive, unique of a large
# tensor, multinomial of 8 samples without replacement, diag of a matrix.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(512, 1024, device='cuda', requires_grad=True)
y = x.take(torch.tensor([0, 5, 7], device='cuda'))
print(f"take: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"take backward: {used()} {peak()}")
del y
x.grad = None
y = torch.addcmul(x, x, x, value=0.5)
print(f"addcmul: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"addcmul backward: {used()} {peak()}")
del y
x.grad = None
vm = torch.var_mean(x, dim=1)
print(f"var_mean: {used()} {vm[0].grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
(vm[0].sum() + vm[1].sum()).backward()
print(f"var_mean backward: {used()} {peak()}")
del vm
x.grad = None
w = torch.hann_window(400, device='cuda')
print(f"hann_window: {used()} {w.shape}")
del w
e = torch.tensor([1, 2, 3, 2, 1], device='cuda')
u, inv, cnt = e.unique(return_inverse=True, return_counts=True)
print(f"unique inverse counts: {used()} {u.tolist()} {inv.tolist()} {cnt.tolist()}")
del inv, cnt
u = torch.unique_consecutive(e)
print(f"unique_consecutive: {used()} {u.tolist()}")
big = torch.randint(0, 1000, (1 << 20,), device='cuda')
torch.cuda.reset_peak_memory_stats()
u = big.unique()
print(f"unique large: {used()} {peak()} {u.shape}")
del big, u, e
probs = torch.rand(64, 50000, device='cuda')
torch.cuda.reset_peak_memory_stats()
m = torch.multinomial(probs, 8)
print(f"multinomial 8: {used()} {peak()} {m.shape}")
del m, probs
y = x.diag(3)
print(f"diag of a matrix: {used()} {y.shape} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"diag of a matrix backward: {used()} {peak()}")
del y
x.grad = None
