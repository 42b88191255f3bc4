# pytorch/pytorch#28647: a lambda stored on an nn.Module that refers to
# self makes a cycle; each new net's weights live until the collector runs.
import torch, sys
import torch.nn as nn


class SomeNet(nn.Module):
    def __init__(self):
        super(SomeNet, self).__init__()
        self.memoryUser = nn.Sequential(nn.Linear(1000, 256), nn.Linear(256, 200))
        self.wired = ["nice object", "totally nice object"]
        self.someLambda = lambda x: (self.wired)

    def forward(self, x):
        return self.memoryUser(x)


for i in range(60):
    sys._debugmallocstats()
    net = SomeNet().cuda()
    sys._debugmallocstats()
    print(i, torch.cuda.memory_allocated())
    sys._debugmallocstats()
del net
print(torch.cuda.memory_allocated())
