# The meta device: tensors with a shape and a dtype and no memory
# anywhere; shapes flowing through ops and modules; a model built on it
# and then given memory with to_empty, or its parameters replaced with
# load_state_dict(assign=True); nn.utils.skip_init; accelerate's
# init_empty_weights written out.
import contextlib
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.empty(1024, 1024, device="meta")
print(x)
print(x.shape, x.dtype, x.device, x.is_meta, x.numel(), x.element_size(), x.is_cuda)
y = x @ x.t()
z = torch.relu(y) + 1
print(z.shape, z.device, z.is_meta)
w = torch.empty(4096, 1024, device="meta", dtype=torch.bfloat16)
v = torch.empty(1024, 8, device="meta", dtype=torch.bfloat16)
print((w @ v).shape, (w @ v).dtype)
s = torch.zeros(16, 16, device="meta").sum(dim=0)
print(s.shape, repr(s))
r = torch.randn(8, 1024, device="meta", requires_grad=True)
loss = (r * 2).sum()
loss.backward()
print(r.grad.shape, r.grad.device)
del x, y, z, w, v, s, r, loss
with torch.device("meta"):
    big = nn.Sequential(nn.Linear(4096, 16384), nn.GELU(), nn.Linear(16384, 4096))
print(big[0].weight.device, sum(p.numel() for p in big.parameters()))
out = big(torch.empty(2, 4096, device="meta"))
print(out.shape, out.device)
del out
try:
    big.to("cuda")
except NotImplementedError as err:
    print("NotImplementedError:", err)
big.to_empty(device="cuda")
print(big[0].weight.device, big[2].bias.device, big[0].weight.requires_grad)
for mod in big:
    if isinstance(mod, nn.Linear):
        nn.init.zeros_(mod.bias)
h = big(torch.randn(32, 4096, device="cuda"))
print(h.shape)
del big, h
meta = nn.Linear(2048, 2048, device="meta")
state = {"weight": torch.ones(2048, 2048, device="cuda"), "bias": torch.zeros(2048, device="cuda")}
meta.load_state_dict(state, assign=True)
print(meta.weight.device, meta.weight.data_ptr() == state["weight"].data_ptr(), type(meta.weight).__name__, meta.weight.requires_grad)
del state
held = nn.Linear(2048, 2048, device="cuda")
fresh = {"weight": torch.zeros(2048, 2048, device="cuda"), "bias": torch.zeros(2048, device="cuda")}
held.load_state_dict(fresh, assign=True)
del fresh
print(held.weight.device)
try:
    meta2 = nn.Linear(4, 4, device="meta")
    meta2.load_state_dict({"weight": torch.ones(4, 4, device="cuda"), "bias": torch.ones(4, device="cuda")})
    print(meta2.weight.device)
except Exception as err:
    print(type(err).__name__)
del meta, held
lin = torch.nn.utils.skip_init(nn.Linear, 1024, 4096, device="cuda")
print(lin.weight.device, lin.weight.shape, lin.bias.shape)
lin_meta = torch.nn.utils.skip_init(nn.Linear, 1024, 4096, device="meta")
print(lin_meta.weight.device)
del lin, lin_meta
zl = torch.zeros_like(torch.empty(1024, 1024, device="meta"), device="cuda")
el = torch.empty_like(torch.empty(512, 1024, device="meta"), device="cuda")
print(zl.device, el.device)
del zl, el
try:
    torch.empty(4, device="meta").item()
except Exception as err:
    print(type(err).__name__)

@contextlib.contextmanager
def init_empty_weights():
    old = nn.Module.register_parameter

    def register_empty_parameter(module, name, param):
        old(module, name, param)
        if param is not None:
            kept = module._parameters[name]
            module._parameters[name] = nn.Parameter(kept.to("meta"), requires_grad=kept.requires_grad)

    nn.Module.register_parameter = register_empty_parameter
    try:
        yield
    finally:
        nn.Module.register_parameter = old

with init_empty_weights():
    empty = nn.Sequential(nn.Linear(1024, 1024), nn.LayerNorm(1024))
print(empty[0].weight.device, empty[1].weight.device)
empty.to_empty(device="cuda")
print(empty[0].weight.device)
del empty
