# A program written as users write it (the lead, session 10), run to its end
# by the tool with its estimates labelled; recorded (record_pending.sh), it
# can join ../models/zoo with its convolutions (scripts/conv_configs.py).
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

class Head(nn.Module):
    def __init__(self, d, out=4096, hidden=512, bottleneck=128):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, hidden), nn.GELU(), nn.Linear(hidden, bottleneck))
        self.last = nn.utils.weight_norm(nn.Linear(bottleneck, out, bias=False))
        self.last.weight_g.data.fill_(1)
    def forward(self, x):
        x = F.normalize(self.mlp(x), dim=-1, p=2)
        return self.last(x)

def make_backbone():
    return nn.Sequential(nn.Conv2d(3, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.Conv2d(64, 128, 3, 2, 1), nn.BatchNorm2d(128), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
student = nn.Sequential(make_backbone(), Head(128)).cuda()
teacher = nn.Sequential(make_backbone(), Head(128)).cuda()
teacher.load_state_dict(student.state_dict())
for p in teacher.parameters():
    p.requires_grad = False
center = torch.zeros(1, 4096, device='cuda')
opt = torch.optim.SGD(student.parameters(), lr=0.01, momentum=0.9)
for it in range(2):
    crops = [torch.randn(16, 3, 96, 96, device='cuda') for _ in range(2)] + [torch.randn(16, 3, 48, 48, device='cuda') for _ in range(2)]
    with torch.no_grad():
        t_out = torch.cat([teacher(c) for c in crops[:2]])
    s_out = torch.cat([student(c) for c in crops])
    t = F.softmax((t_out - center) / 0.04, dim=-1).chunk(2)
    s = (s_out / 0.1).chunk(4)
    loss = 0
    n = 0
    for i, q in enumerate(t):
        for j, v in enumerate(s):
            if i == j:
                continue
            loss = loss + torch.sum(-q * F.log_softmax(v, dim=-1), dim=-1).mean()
            n += 1
    loss = loss / n
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for ps, pt in zip(student.parameters(), teacher.parameters()):
            pt.data.mul_(0.996).add_((1 - 0.996) * ps.detach().data)
        center = center * 0.9 + t_out.mean(dim=0, keepdim=True) * 0.1
    print(it, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
