# The rest of the census's list, each alone: smooth_l1_loss, binary
# cross entropy (F. and nn.BCELoss), glu, maximum, divide, swapaxes,
# tensor_split, split_with_sizes, unfold, diff, scatter out of place, triu_,
# quantile, gumbel_softmax (forward and backward); randperm, a CUDA Generator,
# scalar_tensor, isin, unique, byte; lerp_, erfinv_, fill_diagonal_, floor_
# under no_grad; PReLU, adaptive_max_pool2d, Unfold and Fold.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
import torch.nn.functional as F
x = torch.rand(512, 1024, device='cuda', requires_grad=True)
y = F.smooth_l1_loss(x, torch.zeros_like(x))
print(f"smooth_l1_loss: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"smooth_l1_loss backward: {used()} {peak()}")
del y
x.grad = None
y = F.binary_cross_entropy(x, torch.ones_like(x))
print(f"binary_cross_entropy: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"binary_cross_entropy backward: {used()} {peak()}")
del y
x.grad = None
y = torch.nn.BCELoss()(x, torch.ones_like(x))
print(f"BCELoss: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"BCELoss backward: {used()} {peak()}")
del y
x.grad = None
y = F.glu(x, dim=-1)
print(f"glu: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"glu backward: {used()} {peak()}")
del y
x.grad = None
y = torch.maximum(x, x.flip(0))
print(f"maximum: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"maximum backward: {used()} {peak()}")
del y
x.grad = None
y = torch.divide(x, 3.0)
print(f"divide: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"divide backward: {used()} {peak()}")
del y
x.grad = None
y = torch.swapaxes(x, 0, 1)
print(f"swapaxes: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"swapaxes backward: {used()} {peak()}")
del y
x.grad = None
y = torch.tensor_split(x, 3, dim=1)[1]
print(f"tensor_split: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"tensor_split backward: {used()} {peak()}")
del y
x.grad = None
y = x.split_with_sizes([256, 768], dim=1)[1]
print(f"split_with_sizes: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"split_with_sizes backward: {used()} {peak()}")
del y
x.grad = None
y = x.unfold(1, 64, 32)
print(f"unfold: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"unfold backward: {used()} {peak()}")
del y
x.grad = None
y = torch.diff(x, dim=1)
print(f"diff: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"diff backward: {used()} {peak()}")
del y
x.grad = None
y = x.scatter(1, torch.zeros(512, 4, dtype=torch.int64, device='cuda'), 0.0)
print(f"scatter: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"scatter backward: {used()} {peak()}")
del y
x.grad = None
y = (x * 1).triu_(1)
print(f"triu_: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"triu_ backward: {used()} {peak()}")
del y
x.grad = None
y = torch.quantile(x[:, :64], 0.5, dim=1)
print(f"quantile: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"quantile backward: {used()} {peak()}")
del y
x.grad = None
y = F.gumbel_softmax(x, tau=1.0)
print(f"gumbel_softmax: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"gumbel_softmax backward: {used()} {peak()}")
del y
x.grad = None
idx = torch.randperm(1000, device='cuda')
print(f"randperm: {used()} {idx.dtype}")
del idx
idx = torch.randperm(100000, device='cuda')
print(f"randperm large: {used()}")
del idx
g = torch.Generator(device='cuda')
g.manual_seed(0)
r = torch.randn(1024, 1024, device='cuda', generator=g)
print(f"generator: {used()}")
del r
s = torch.scalar_tensor(2.0, device='cuda')
print(f"scalar_tensor: {used()} {s.shape}")
e = torch.tensor([1, 2, 3, 2, 1], device='cuda')
print(f"isin: {torch.isin(e, torch.tensor([2], device='cuda')).tolist()} {used()}")
u = torch.unique(e)
print(f"unique: {used()} {u.tolist()}")
del u, e, s
b8 = x.detach().byte()
print(f"byte: {used()} {b8.dtype}")
del b8
with torch.no_grad():
    x.lerp_(torch.zeros_like(x), 0.5)
    x.erfinv_()
    x.fill_diagonal_(0.0)
    x.floor_()
print(f"in place under no_grad: {used()}")
p = torch.nn.PReLU().cuda()
y = p(x)
print(f"PReLU: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"PReLU backward: {used()} {peak()}")
del y, p
x.grad = None
img = torch.rand(2, 8, 32, 32, device='cuda', requires_grad=True)
y = F.adaptive_max_pool2d(img, 4)
print(f"adaptive_max_pool2d: {used()} {y.shape}")
y.sum().backward()
print(f"adaptive_max_pool2d backward: {used()}")
del y
unf = torch.nn.Unfold(kernel_size=4, stride=4)
y = unf(img)
print(f"Unfold: {used()} {y.shape}")
fold = torch.nn.Fold(output_size=(32, 32), kernel_size=4, stride=4)
z = fold(y)
print(f"Fold: {used()} {z.shape}")
z.sum().backward()
print(f"Fold backward: {used()}")
del y, z, img, x
print(f"end: {used()}")
