
import torch
from torch import nn


IN_HALF = True


model = nn.Conv2d(32, 32, 3, stride=1)
x = torch.randn(512, 32, 84, 84)

if IN_HALF:
    model = model.half()
    x = x.half()
model = model.cuda()
x = x.cuda()
y = model(x)


print('used memory', torch.cuda.max_memory_allocated())
