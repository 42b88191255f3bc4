# Saves the small checkpoints of this folder with torch.save, every
# tensor of values known without running anything random, into the
# folder given (python3 testdata/checkpoints/make.py DIR, on the GPU
# machine with PyTorch 2.11; gpumemrepl runs it too, and its files are
# compared with PyTorch's byte for byte).
import os
import sys
import torch
import torch.nn as nn

out = sys.argv[1]


def save(obj, name, **kw):
    torch.save(obj, os.path.join(out, name), **kw)


save(torch.arange(12, dtype=torch.float32).view(3, 4), "tensor.pt")
lin = nn.Linear(4, 3, device="cuda")
with torch.no_grad():
    lin.weight.fill_(0.5)
    lin.bias.fill_(-1.0)
save(lin.state_dict(), "linear_cuda.pt")
seq = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(torch.bfloat16)
for p in seq.parameters():
    nn.init.constant_(p, 0.25)
save(seq.state_dict(), "sequential_bf16.pt")
base = torch.arange(24, dtype=torch.float32, device="cuda").view(4, 6)
save({"base": base, "row": base[1], "t": base.t(), "cols": base[:, 2:4]}, "views.pt")
emb = torch.ones(10, 4, dtype=torch.float16)
save({"model": {"tok.weight": emb, "head.weight": emb}, "step": 100, "lr": 3e-4, "name": "run-1",
      "betas": (0.9, 0.95), "tags": ["a", "b"], "done": False, "none": None, "big": 2**40, "neg": -5}, "mixed.pt")
save(nn.Parameter(torch.zeros(5)), "parameter.pt")
save([torch.zeros(0), torch.ones(2, 2, dtype=torch.int64), torch.tensor([True, False]),
      torch.full((3,), 2, dtype=torch.int32, device="cuda")], "list.pt")
net = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)).cuda()
for p in net.parameters():
    nn.init.constant_(p, 1.0)
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
for p in net.parameters():
    p.grad = torch.zeros_like(p)
opt.step()
save({"model": net.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}, "train_state.pt")
save(torch.ones(3), "legacy.pt", _use_new_zipfile_serialization=False)
