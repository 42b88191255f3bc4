# Issue 15's CNN: Conv2d, BatchNorm2d, ReLU, MaxPool2d twice, then Linear;
# cross entropy; SGD with momentum. Trained plain, under bf16 autocast and
# with checkpointing, then in inference.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.backends.cudnn.benchmark = False
torch.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(64 * 8 * 8, 10)

    def forward(self, x, ckpt=False):
        h = checkpoint(self.features, x, use_reentrant=False) if ckpt else self.features(x)
        return self.head(torch.flatten(h, 1))

model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(64, 3, 32, 32, device='cuda')
labels = torch.randint(0, 10, (64,), device='cuda')

def step(autocast=False, ckpt=False):
    opt.zero_grad(set_to_none=True)
    with torch.autocast('cuda', dtype=torch.bfloat16, enabled=autocast):
        loss = F.cross_entropy(model(x, ckpt), labels)
    loss.backward()
    opt.step()

step()
step()
step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
step(autocast=True)
step(autocast=True)
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
step(ckpt=True)
step(ckpt=True)
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
model.eval()
with torch.no_grad():
    y = model(x)
del y
with torch.inference_mode():
    y = model(x)
del y
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
