# Autograd: what forward saves (mul its inputs, relu its output), what backward
# frees and makes (.grad), retain_graph, accumulation, a total keeping graphs.
import torch

N = 1 << 20  # 4 MiB of float32


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / 2**20:10.4f} MiB")


x = torch.ones(N, device='cuda', requires_grad=True)
w = torch.ones(N, device='cuda', requires_grad=True)
y = (x * w).sum()
show("y = (x * w).sum()")
y.backward()
show("backward")
print(x.grad.shape, w.grad is not None, y.grad_fn.name())
y.backward()
x.grad = w.grad = None
h = torch.relu(x * w)
show("h = relu(x * w)")
z = (h * 3).sum()
z.backward(retain_graph=True)
show("z.backward(retain_graph)")
z.backward()
show("accumulated")
del h, z
x.grad = w.grad = None
total = 0
for _ in range(3):
    total += (x * w).relu().sum()
show("total keeps three graphs")
total = 0
for _ in range(3):
    total += (x * w).relu().sum().item()
show("with .item()")
a = torch.ones(1024, 1024, device='cuda', requires_grad=True)
(a @ a).relu().sum().backward()
show("matmul backward")
