# nn.Linear made on the GPU directly (device="cuda"): the weight, then the
# bias; whether its forward goes through cuBLASLt (and so allocates the
# cuBLASLt workspace at its first call) depends on the shapes: a 1x1
# layer, one row of input, eight rows, no bias, a 3-D input.
import torch

lin = torch.nn.Linear(1, 1, device="cuda")
b = torch.randn(1, 1, device="cuda")
o = lin(b)
lin2 = torch.nn.Linear(64, 32, device="cuda")
x1 = torch.randn(1, 64, device="cuda")
o1 = lin2(x1)
x8 = torch.randn(8, 64, device="cuda")
o8 = lin2(x8)
lin3 = torch.nn.Linear(64, 32, bias=False, device=torch.device("cuda"))
o3 = lin3(x8)
x3 = torch.randn(4, 8, 64, device="cuda")
o4 = lin2(x3)
def f():
    m = torch.nn.Linear(1, 1, device="cuda")
    m(torch.randn(1, 1, device="cuda"))
f()
del lin, lin2, lin3, o, o1, o8, o3, o4
