# torch.load of checkpoints PyTorch saved (testdata/checkpoints, made by
# make.py there): to the device each tensor was saved from, to another
# through map_location (a string, a device, a dict), with mmap=True and
# weights_only; shared storages loaded once; load_state_dict into a
# model, and with assign=True into one built on the meta device; what
# torch.save of CUDA tensors allocates.
import os
import torch
import torch.nn as nn

here = os.path.join(os.path.dirname(__file__), "..", "checkpoints")


def path(name):
    return os.path.join(here, name)


sd = torch.load(path("linear_cuda.pt"))
print(list(sd), sd["weight"].device, sd["weight"].dtype, sd["weight"].shape)
del sd
sd = torch.load(path("linear_cuda.pt"), map_location="cpu")
print(sd["weight"].device, sd["bias"].device)
del sd
t = torch.load(path("tensor.pt"), map_location="cuda")
print(t.device, t.shape, t.stride())
t2 = torch.load(path("tensor.pt"), map_location=torch.device("cuda:0"), mmap=True, weights_only=True)
t3 = torch.load(path("tensor.pt"), map_location={"cpu": "cuda:0"})
t4 = torch.load(path("tensor.pt"))
print(t2.device, t3.device, t4.device)
del t, t2, t3, t4
seq = torch.load(path("sequential_bf16.pt"), map_location="cuda", mmap=True, weights_only=True)
print(list(seq), seq["0.weight"].dtype)
v = torch.load(path("views.pt"), map_location="cuda")
print(v["row"].data_ptr() - v["base"].data_ptr(), v["t"].stride(), v["cols"].storage_offset(), v["cols"].is_contiguous())
print(v["t"].untyped_storage().data_ptr() == v["base"].untyped_storage().data_ptr())
del v
m = torch.load(path("mixed.pt"), map_location="cuda")
print(m["step"], m["lr"], m["name"], m["betas"], m["tags"], m["done"], m["none"], m["big"], m["neg"])
print(m["model"]["tok.weight"] is m["model"]["head.weight"], m["model"]["tok.weight"].dtype)
del m
p = torch.load(path("parameter.pt"), map_location="cuda")
print(type(p).__name__, p.requires_grad, p.device)
del p
items = torch.load(path("list.pt"))
print([(x.dtype, x.device, tuple(x.shape)) for x in items])
del items
state = torch.load(path("train_state.pt"), map_location="cuda")
print(sorted(state), state["epoch"], sorted(state["optimizer"]["state"][0]), state["optimizer"]["param_groups"][0]["lr"])
print(state["optimizer"]["state"][0]["step"].device)
del state
lin = nn.Linear(4, 3, device="cuda")
lin.load_state_dict(torch.load(path("linear_cuda.pt")))
print(lin.weight.device)
with torch.device("meta"):
    lin2 = nn.Linear(4, 3)
lin2.load_state_dict(torch.load(path("linear_cuda.pt"), mmap=True, weights_only=True), assign=True)
print(lin2.weight.device, lin2.bias.device)
try:
    torch.load(path("legacy.pt"), mmap=True)
except RuntimeError as err:
    print("RuntimeError:", err)
big = nn.Linear(1024, 4096, device="cuda")
torch.save(big.state_dict(), os.devnull)
torch.save({"w": big.weight, "b": big.bias, "step": 1}, os.devnull)
del big
print(torch.cuda.memory_allocated())
