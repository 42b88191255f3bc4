# The census's normalization and pooling layers beside modules_census.py:
# SyncBatchNorm in one process (no process group: PyTorch falls back to
# F.batch_norm) trained and in eval, convert_sync_batchnorm over a small
# CNN already on the GPU (each new layer's own weights made on the host,
# then replaced by the old layer's); InstanceNorm1d, InstanceNorm2d with
# running stats and affine, InstanceNorm3d; MaxPool1d (with indices too),
# F.max_pool3d's indices; BatchNorm3d under bf16 autocast, no_grad and
# inference_mode; Dropout2d trained and in eval, Dropout1d, Dropout3d;
# PixelUnshuffle; ZeroPad2d, ReflectionPad2d and ReplicationPad2d;
# AdaptiveAvgPool1d to 1 and to 10, AdaptiveAvgPool3d to 1;
# TransformerEncoder of two layers with a causal mask, trained and in eval;
# nn.utils.weight_norm over a Conv1d (its g and v, the weight made again
# before each forward), trained two steps, then remove_weight_norm;
# LocalResponseNorm of a 4-d and a 3-d input.
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.randn(8, 32, 16, 16, device='cuda', requires_grad=True)
sbn = nn.SyncBatchNorm(32).cuda()
print(f"SyncBatchNorm: {used()} {torch.distributed.is_initialized()}")
y = sbn(x)
print(f"SyncBatchNorm forward: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"SyncBatchNorm backward: {used()} {peak()}")
del y
x.grad = None
sbn.eval()
with torch.no_grad():
    y = sbn(x)
print(f"SyncBatchNorm eval: {used()}")
del y, sbn
net = nn.Sequential(nn.Conv2d(32, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.Conv2d(16, 8, 1), nn.BatchNorm2d(8)).cuda()
print(f"CNN: {used()}")
net = nn.SyncBatchNorm.convert_sync_batchnorm(net)
print(f"converted: {used()} {type(net[1]).__name__} {net[1].weight.device} {net[4].running_mean.device}")
y = net(x)
y.sum().backward()
print(f"converted backward: {used()}")
del y, net
x.grad = None
s = torch.randn(4, 24, 500, device='cuda', requires_grad=True)
in1 = nn.InstanceNorm1d(24)
y = in1(s)
print(f"InstanceNorm1d: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"InstanceNorm1d backward: {used()} {peak()}")
del y
s.grad = None
in2 = nn.InstanceNorm2d(32, affine=True, track_running_stats=True).cuda()
torch.cuda.reset_peak_memory_stats()
y = in2(x)
print(f"InstanceNorm2d stats: {used()} {peak()}")
y.sum().backward()
print(f"InstanceNorm2d stats backward: {used()}")
del y
x.grad = None
in2.eval()
with torch.no_grad():
    y = in2(x)
print(f"InstanceNorm2d eval: {used()}")
del y, in2
v = torch.randn(2, 8, 8, 16, 16, device='cuda', requires_grad=True)
in3 = nn.InstanceNorm3d(8)
y = in3(v)
print(f"InstanceNorm3d: {used()}")
y.sum().backward()
print(f"InstanceNorm3d backward: {used()}")
del y
v.grad = None
mp1 = nn.MaxPool1d(3, stride=2, padding=1)
y = mp1(s)
print(f"MaxPool1d: {used()} {y.shape} {y.grad_fn.name()}")
y.sum().backward()
print(f"MaxPool1d backward: {used()}")
del y
s.grad = None
y, idx = F.max_pool1d(s, 4, return_indices=True)
print(f"max_pool1d indices: {used()} {idx.dtype}")
del y, idx
y, idx = F.max_pool3d(v, 2, return_indices=True)
print(f"max_pool3d indices: {used()} {y.grad_fn.name()}")
del y, idx
bn3 = nn.BatchNorm3d(8).cuda()
with torch.autocast('cuda', dtype=torch.bfloat16):
    y = bn3(v)
print(f"BatchNorm3d autocast: {used()} {y.dtype}")
y.sum().backward()
print(f"BatchNorm3d autocast backward: {used()}")
del y
v.grad = None
with torch.no_grad():
    y = bn3(v)
print(f"BatchNorm3d no_grad: {used()}")
del y
bn3.eval()
with torch.inference_mode():
    y = bn3(v)
print(f"BatchNorm3d inference_mode: {used()}")
del y
d2 = nn.Dropout2d(0.2)
torch.cuda.reset_peak_memory_stats()
y = d2(x)
print(f"Dropout2d: {used()} {peak()} {y.grad_fn.name()}")
y.sum().backward()
print(f"Dropout2d backward: {used()}")
del y
x.grad = None
d2.eval()
y = d2(x)
print(f"Dropout2d eval: {used()} {y is x}")
del y
y = nn.Dropout1d(0.3)(s)
print(f"Dropout1d: {used()}")
del y
y = nn.Dropout3d(0.3)(v)
print(f"Dropout3d: {used()}")
del y
y = nn.PixelUnshuffle(2)(x)
print(f"PixelUnshuffle: {used()} {y.shape} {y.grad_fn.name()}")
y.sum().backward()
print(f"PixelUnshuffle backward: {used()}")
del y
x.grad = None
for pad in (nn.ZeroPad2d((1, 2, 3, 4)), nn.ReflectionPad2d(2), nn.ReplicationPad2d(1)):
    y = pad(x)
    print(f"{pad}: {used()} {y.shape} {y.grad_fn.name()}")
    y.sum().backward()
    print(f"{type(pad).__name__} backward: {used()}")
    del y
    x.grad = None
for size in (1, 10):
    y = nn.AdaptiveAvgPool1d(size)(s)
    print(f"AdaptiveAvgPool1d({size}): {used()} {y.shape} {y.grad_fn.name()}")
    y.sum().backward()
    print(f"AdaptiveAvgPool1d({size}) backward: {used()}")
    del y
    s.grad = None
y = nn.AdaptiveAvgPool3d(1)(v)
print(f"AdaptiveAvgPool3d: {used()} {y.shape} {y.grad_fn.name()}")
y.sum().backward()
print(f"AdaptiveAvgPool3d backward: {used()}")
del y, v, s, x, bn3
layer = nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True)
enc = nn.TransformerEncoder(layer, 2).cuda()
print(f"TransformerEncoder: {used()} {enc.use_nested_tensor}")
t = torch.randn(8, 64, 256, device='cuda')
mask = nn.Transformer.generate_square_subsequent_mask(64, device='cuda')
torch.cuda.reset_peak_memory_stats()
y = enc(t, mask=mask, is_causal=True)
print(f"TransformerEncoder forward: {used()} {peak()} {y.grad_fn.name()}")
y.sum().backward()
print(f"TransformerEncoder backward: {used()}")
del y
enc.eval()
with torch.no_grad():
    y = enc(t)
print(f"TransformerEncoder eval: {used()}")
del y, t, mask, enc, layer
conv = nn.utils.weight_norm(nn.Conv1d(64, 128, 3))
print(f"weight_norm: {used()} {sorted(n for n, _ in conv.named_parameters())} {conv.weight_g.shape}")
conv = conv.cuda()
print(f"weight_norm cuda: {used()} {conv.weight.device}")
w = torch.randn(8, 64, 100, device='cuda', requires_grad=True)
for step in range(2):
    torch.cuda.reset_peak_memory_stats()
    y = conv(w)
    print(f"weight_norm forward {step}: {used()} {peak()} {conv.weight.grad_fn.name()}")
    y.sum().backward()
    print(f"weight_norm backward {step}: {used()} {conv.weight_g.grad.shape}")
    del y
nn.utils.remove_weight_norm(conv)
print(f"remove_weight_norm: {used()} {sorted(n for n, _ in conv.named_parameters())}")
del conv, w
x = torch.randn(8, 32, 16, 16, device='cuda', requires_grad=True)
lrn = nn.LocalResponseNorm(5)
torch.cuda.reset_peak_memory_stats()
y = lrn(x)
print(f"LocalResponseNorm: {used()} {peak()} {y.grad_fn.name()}")
y.sum().backward()
print(f"LocalResponseNorm backward: {used()}")
del y
y = lrn(torch.randn(8, 32, 100, device='cuda'))
print(f"LocalResponseNorm 3-d: {used()}")
del y, x, lrn
print(f"end: {used()}")
