# A program written as users write it (the lead, session 10), run to its end
# by the tool with its estimates labelled; recorded (record_pending.sh), it
# can join ../models/zoo with its convolutions (scripts/conv_configs.py).
import torch
import torch.nn as nn
import torch.nn.functional as F

def conv(c1, c2, k=3, s=1):
    return nn.Sequential(nn.Conv2d(c1, c2, k, s, k // 2, bias=False), nn.BatchNorm2d(c2), nn.SiLU(inplace=True))

class Detect(nn.Module):
    def __init__(self, nc=80, ch=(64, 128, 256), na=3):
        super().__init__()
        self.nc, self.no, self.na = nc, nc + 5, na
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * na, 1) for c in ch)
        self.register_buffer('anchors', torch.tensor([[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]).float().view(3, -1, 2))
        self.stride = torch.tensor([8., 16., 32.])
    def forward(self, xs):
        z = []
        for i, x in enumerate(xs):
            x = self.m[i](x)
            bs, _, ny, nx = x.shape
            x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if not self.training:
                yv, xv = torch.meshgrid(torch.arange(ny, device=x.device), torch.arange(nx, device=x.device), indexing='ij')
                grid = torch.stack((xv, yv), 2).expand(1, self.na, ny, nx, 2).float()
                ag = (self.anchors[i] * self.stride[i]).view(1, self.na, 1, 1, 2).expand(1, self.na, ny, nx, 2)
                y = x.sigmoid()
                xy, wh, conf = y.split((2, 2, self.nc + 1), 4)
                xy = (xy * 2 - 0.5 + grid) * self.stride[i]
                wh = (wh * 2) ** 2 * ag
                z.append(torch.cat((xy, wh, conf), 4).view(bs, -1, self.no))
            else:
                z.append(x)
        return z if self.training else torch.cat(z, 1)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.s1 = nn.Sequential(conv(3, 32, 3, 2), conv(32, 64, 3, 2), conv(64, 64, 3, 2))
        self.s2 = conv(64, 128, 3, 2)
        self.s3 = conv(128, 256, 3, 2)
        self.up = nn.Upsample(scale_factor=2, mode='nearest')
        self.lat = conv(256 + 128, 128, 1)
        self.det = Detect()
    def forward(self, x):
        a = self.s1(x)
        b = self.s2(a)
        c = self.s3(b)
        b2 = self.lat(torch.cat([self.up(c), b], 1))
        return self.det([a, b2, c])

torch.manual_seed(0)
net = Net().cuda()
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.937, nesterov=True)
for it in range(2):
    img = torch.randn(4, 3, 320, 320, device='cuda')
    out = net(img)
    loss = sum(o[..., 4].sigmoid().mean() + o[..., :4].pow(2).mean() for o in out)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(it, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
net.eval()
with torch.no_grad():
    pred = net(torch.randn(2, 3, 320, 320, device='cuda'))
    conf = pred[..., 4] > 0.25
    print(pred.shape, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
