# Assigning .data swaps the storage under the same tensor: views made
# before keep the old storage, the graph's saved leaf and the optimizer's
# state see the new one (PyTorch 2.11).
import torch

w = torch.randn(1024, 1024, device="cuda", requires_grad=True)
v = w.data[:512]
print(torch.cuda.memory_allocated())
w.data = torch.zeros(2048, 1024, device="cuda")
print(torch.cuda.memory_allocated(), w.shape)
del v
print(torch.cuda.memory_allocated())
loss = (w * 2).sum()
w.data = torch.zeros(16, 16, device="cuda")
print(torch.cuda.memory_allocated())
del loss
print(torch.cuda.memory_allocated())
p = torch.nn.Parameter(torch.randn(1024, 1024, device="cuda"))
opt = torch.optim.Adam([p])
p.sum().backward()
opt.step()
print(torch.cuda.memory_allocated())
p.data = p.data.half()
print(torch.cuda.memory_allocated(), p.dtype, opt.state[p]["exp_avg"].dtype)
p.data = torch.empty(0, device="cuda")
print(torch.cuda.memory_allocated())
