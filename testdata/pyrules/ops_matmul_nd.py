# torch.matmul / @ of batches of more than 3 dimensions and of strided
# 3-d batches, as attention written by hand does it (nanoGPT's
# "manual implementation of attention"): matmul expands both batches to
# one shape and reshapes each to 3-d -- a view where the strides allow,
# a contiguous copy where not -- then bmm (cuBLAS takes a batch laid out
# by rows or by columns as it is), then views the result back. With and
# without grad, backward; `--events`.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
q = torch.randn(2, 4, 128, 64, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
att = q @ q.transpose(-2, -1)
print(f"4-d by its transpose: {used()} {peak()} {att.shape} {att.stride()} {att.grad_fn.name()}")
y = att @ q
print(f"4-d by 4-d: {used()} {peak()} {y.stride()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"backward: {used()} {peak()} {q.grad.stride()}")
del att, y
q.grad = None
B, T, C, nh = 4, 256, 512, 8
x = torch.randn(B, T, C, device='cuda', requires_grad=True)
c_attn = nn.Linear(C, 3 * C).cuda()
torch.cuda.reset_peak_memory_stats()
qq, kk, vv = c_attn(x).split(C, dim=2)
kk = kk.view(B, T, nh, C // nh).transpose(1, 2)
qq = qq.view(B, T, nh, C // nh).transpose(1, 2)
vv = vv.view(B, T, nh, C // nh).transpose(1, 2)
print(f"heads: {used()} {peak()} {kk.stride()}")
att = (qq @ kk.transpose(-2, -1)) * (1.0 / math.sqrt(kk.size(-1)))
print(f"scores: {used()} {peak()} {att.stride()} {att.grad_fn.name()}")
mask = torch.tril(torch.ones(T, T, device='cuda')).view(1, 1, T, T)
att = att.masked_fill(mask[:, :, :T, :T] == 0, float('-inf'))
att = F.softmax(att, dim=-1)
y = att @ vv
print(f"context: {used()} {peak()} {y.stride()}")
y = y.transpose(1, 2).contiguous().view(B, T, C)
print(f"joined: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"attention backward: {used()} {peak()}")
del qq, kk, vv, att, y
x.grad = None
c_attn.zero_grad(set_to_none=True)
with torch.no_grad():
    qq, kk, vv = c_attn(x).split(C, dim=2)
    kk = kk.view(B, T, nh, C // nh).transpose(1, 2)
    qq = qq.view(B, T, nh, C // nh).transpose(1, 2)
    torch.cuda.reset_peak_memory_stats()
    att = qq @ kk.transpose(-2, -1)
    print(f"no_grad scores: {used()} {peak()}")
del qq, kk, vv, att
a = torch.randn(2, 1, 128, 64, device='cuda', requires_grad=True)
b = torch.randn(1, 4, 64, 32, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
c = a @ b
print(f"broadcast batches: {used()} {peak()} {c.shape}")
c.sum().backward()
print(f"broadcast backward: {used()} {peak()} {a.grad.shape} {b.grad.shape}")
del a, b, c
s3 = torch.randn(8, 64, 128, device='cuda', requires_grad=True)
t3 = torch.randn(8, 128, 64, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
p = s3.transpose(1, 2) @ t3.transpose(1, 2)
print(f"3-d transposed: {used()} {peak()} {p.stride()}")
p.sum().backward()
print(f"3-d transposed backward: {used()} {peak()}")
del p
torch.cuda.reset_peak_memory_stats()
p = s3[:, ::2] @ t3[:, :, ::2]
print(f"3-d every other: {used()} {peak()} {p.shape}")
del p
m = torch.randn(128, 64, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
p = m @ s3
print(f"matrix by batch: {used()} {peak()} {p.shape} {p.grad_fn.name()}")
p.sum().backward()
print(f"matrix by batch backward: {used()} {peak()}")
