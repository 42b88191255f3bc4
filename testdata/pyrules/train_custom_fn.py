# A model trained with a custom autograd.Function and saved-tensor hooks:
# an MLP whose activation is a custom Function (a memory-lean SiLU that
# saves only its input and recomputes the sigmoid in backward, the
# pattern of xformers' and apex's fused activations), trained with AdamW
# for three steps under save_on_cpu(pin_memory=True) (the activation
# offloading of DeepSpeed and FSDP), one step without it, then evaluated
# under no_grad. --events.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd.graph import save_on_cpu


class LeanSiLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad * (s * (1 + x * (1 - s)))


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.down(LeanSiLU.apply(self.up(self.norm(x))))


torch.manual_seed(0)
model = nn.Sequential(*[Block(768, 3072) for _ in range(4)], nn.Linear(768, 1000)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(96, 768, device='cuda')
target = torch.randint(0, 1000, (96,), device='cuda')
print(f"model: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")

for step in range(3):
    with save_on_cpu(pin_memory=True):
        loss = F.cross_entropy(model(x), target)
    print(f"step {step} forward: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step}: peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB")

loss = F.cross_entropy(model(x), target)
print(f"without hooks, forward: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")
loss.backward()
opt.step()
opt.zero_grad(set_to_none=True)
del loss

model.eval()
with torch.no_grad():
    pred = model(x).argmax(dim=1)
print(f"eval: {torch.cuda.memory_allocated() / 2**20:.2f} MiB, peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB")
