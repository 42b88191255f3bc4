# The ops under torch.autocast('cuda'): matmul, mm and bmm run in the
# lower dtype (each float32 input cast to a new tensor, not cached: these
# inputs are no leaves that require grad); exp, log and pow in float32
# (a lower-precision input cast up); sum, cumsum, softmax and log_softmax
# in float32 by their dtype argument; mean, relu and add in their
# inputs' dtype (add promotes as it always does); cat and stack as
# without autocast. Then one backward through a chain of them.
import torch

torch.manual_seed(0)
a = torch.randn(1024, 1024, device='cuda')
b = torch.randn(1024, 1024, device='cuda')
h = torch.randn(1024, 1024, device='cuda').half()
ab = torch.randn(1024, 1024, device='cuda').bfloat16()
ac = torch.autocast('cuda', dtype=torch.float16)
ac.__enter__()
m = a @ b
print(m.dtype)
m2 = torch.mm(a, b)
m3 = torch.matmul(a, h)
m4 = torch.bmm(a.view(4, 256, 1024), b.view(4, 1024, 256))
print(m4.dtype, m4.shape)
del m, m2, m3, m4
e = torch.exp(h)
print(e.dtype)
l = h.log()
p = h.pow(2)
p2 = a.pow(2)
print(p.dtype, p2.dtype)
del e, l, p, p2
s = h.sum()
c = h.cumsum(0)
print(s.dtype, c.dtype)
sm = torch.softmax(h, dim=-1)
lsm = h.log_softmax(-1)
print(sm.dtype, lsm.dtype)
smb = ab.softmax(-1)
print(smb.dtype)
del s, c, sm, lsm, smb
mu = h.mean()
r = h.relu()
ad2 = h + h
print(mu.dtype, r.dtype, ad2.dtype)
del mu, r, ad2
st = torch.stack([h, h])
print(st.dtype)
del st
ac.__exit__(None, None, None)
w = torch.randn(1024, 1024, device='cuda', requires_grad=True)
ac = torch.autocast('cuda', dtype=torch.bfloat16)
ac.__enter__()
z = a @ w
zs = z.softmax(-1)
ze = zs.exp()
loss = ze.sum()
ac.__exit__(None, None, None)
del z, zs, ze
loss.backward()
print(w.grad.dtype)
del loss
print(torch.cuda.memory_allocated())
