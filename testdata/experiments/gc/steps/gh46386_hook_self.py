# pytorch/pytorch#46386: a forward hook defined in __init__ that uses self
# makes module -> hooks dict -> hook -> self a cycle; each instance moved
# to the GPU stays until the collector runs.
import torch, sys
import torch.nn as nn


class LeakyModule(nn.Module):
    def __init__(self):
        super(LeakyModule, self).__init__()
        self.body = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512))

        def fw_hook(m, m_in, m_out):
            self(m_in)

        self.register_forward_hook(fw_hook)


for i in range(80):
    sys._debugmallocstats()
    net = LeakyModule()
    sys._debugmallocstats()
    net.to("cuda:0")
    sys._debugmallocstats()
    print(f"{i} {torch.cuda.memory_allocated()}")
    sys._debugmallocstats()
