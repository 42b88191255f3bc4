# A module's conversions replace each parameter's data (param.data = new):
# the new tensor is made before the old storage goes, children's
# parameters before the module's own, and a .grad is converted right
# after its parameter. Buffers are replaced too. .float() of float32 and
# .to() of the same device and dtype allocate nothing; an optimizer's
# state keeps its old dtype. Recorded with --events.
import torch
from torch import nn

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(3, 1024, 1024))
        self.inner = nn.Linear(1024, 2048)
        self.register_buffer('table', torch.ones(512, 1024))
        self.steps = torch.zeros(4)

    def forward(self, x):
        return self.inner(x)


net = Block()
show("on the host")
torch.cuda.reset_peak_memory_stats()
net.cuda()
show("cuda()")
print(net.gain.device, net.table.device, net.steps.device)
torch.cuda.reset_peak_memory_stats()
net.float()
show("float() of float32")
torch.cuda.reset_peak_memory_stats()
net.to('cuda')
show("to('cuda') again")
net(torch.ones(8, 1024, device='cuda')).sum().backward()
net.gain.sum().backward()
show("grads")
torch.cuda.reset_peak_memory_stats()
net.half()
show("half()")
print(net.gain.dtype, net.gain.grad.dtype, net.table.dtype, net.inner.bias.grad.dtype)
torch.cuda.reset_peak_memory_stats()
net.float()
show("float()")
torch.cuda.reset_peak_memory_stats()
net.bfloat16()
show("bfloat16()")
torch.cuda.reset_peak_memory_stats()
net.to(torch.float32)
show("to(torch.float32)")
torch.cuda.reset_peak_memory_stats()
net.double()
show("double()")
torch.cuda.reset_peak_memory_stats()
net.to('cuda', torch.float32)
show("to('cuda', float32)")
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
opt.step()
show("Adam state")
torch.cuda.reset_peak_memory_stats()
net.half()
show("half() with Adam state")
print(opt.state[net.gain]['exp_avg'].dtype, net.gain.dtype)
del opt
torch.cuda.reset_peak_memory_stats()
net.cpu()
show("cpu()")
print(net.gain.grad.device, net.gain.dtype)
torch.cuda.reset_peak_memory_stats()
net.to(device='cuda', dtype=torch.float32)
show("to(device, dtype) from host")
net.zero_grad()
show("zero_grad()")
torch.cuda.reset_peak_memory_stats()
net.half()
show("half() without grads")
w = net.inner.weight
torch.cuda.reset_peak_memory_stats()
net.float()
show("float(), weight kept by w")
print(w.dtype, net.inner.weight.dtype, w is net.inner.weight)
del w
show("del w")
del net
show("all freed")
