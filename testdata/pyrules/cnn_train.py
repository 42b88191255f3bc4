# A small CNN without convolution, trained as users write it: a Module
# subclass of BatchNorm2d on the input (which does not require grad),
# ReLU(inplace=True), MaxPool2d, GroupNorm, LeakyReLU, AvgPool2d,
# AdaptiveAvgPool2d((4, 4)), a view and Linear; SGD with momentum over a
# for loop of steps with a .sum() loss; then eval under no_grad and
# inference_mode, and a BatchNorm1d head on (N, C). Recorded with
# --events.
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.BatchNorm2d(3), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.GroupNorm(1, 3), nn.LeakyReLU(0.1), nn.AvgPool2d(2),
        )
        self.pool = nn.AdaptiveAvgPool2d((4, 4))
        self.head = nn.Linear(3 * 4 * 4, 64)
        self.norm = nn.BatchNorm1d(64)

    def forward(self, x):
        h = self.pool(self.features(x))
        return self.norm(self.head(h.view(h.size(0), -1)))


model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(64, 3, 32, 32, device='cuda')
for step in range(3):
    opt.zero_grad(set_to_none=True)
    loss = model(x).sum()
    loss.backward()
    opt.step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
model.eval()
with torch.no_grad():
    y = model.features(x)
del y
with torch.inference_mode():
    y = model.pool(model.features(x))
del y
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
