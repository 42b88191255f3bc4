# Products whose backward the tool does not model yet, recorded for
# when it does: a vector requiring grad in mv, vector @ matrix, batched
# matrix @ batched matrix (bmm), a transposed weight.
import torch

W = torch.randn(100, 100, device="cuda", requires_grad=True)
u = torch.randn(100, device="cuda", requires_grad=True)
o = W @ u
o.sum().backward()
torch.cuda.reset_peak_memory_stats()
r = u @ W
r.sum().backward()
torch.cuda.reset_peak_memory_stats()
a = torch.randn(8, 64, 128, device="cuda", requires_grad=True)
b = torch.randn(8, 128, 32, device="cuda", requires_grad=True)
c = a @ b
c.sum().backward()
torch.cuda.reset_peak_memory_stats()
d = torch.randn(64, 128, device="cuda", requires_grad=True)
e = torch.randn(64, 128, device="cuda")
f = e @ d.t()
f.sum().backward()
