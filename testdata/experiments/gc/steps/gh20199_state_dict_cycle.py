# pytorch/pytorch#20199: "Python's garbage collection invokes every 700
# object creations": module objects made and dropped in a loop stay
# while they sit in a cycle (here load_state_dict's copy kept on a model
# that refers to itself), so memory grows to the collector's threshold.
import torch, sys
import torch.nn as nn

src = nn.Linear(1024, 1024).cuda()
for i in range(100):
    sys._debugmallocstats()
    m = nn.Linear(1024, 1024).cuda()
    sys._debugmallocstats()
    m.load_state_dict(src.state_dict())
    sys._debugmallocstats()
    m.owner = m
    sys._debugmallocstats()
    del m
    sys._debugmallocstats()
    print(i, torch.cuda.memory_allocated())
    sys._debugmallocstats()
