# A program written as users write it (the lead, session 10), run to its end
# by the tool with its estimates labelled; recorded (record_pending.sh), it
# can join ../models/zoo with its convolutions (scripts/conv_configs.py).
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)

class ResBlock(nn.Module):
    def __init__(self, c, tdim, out=None):
        super().__init__()
        out = out or c
        self.n1, self.c1 = nn.GroupNorm(32, c), nn.Conv2d(c, out, 3, padding=1)
        self.t = nn.Linear(tdim, out)
        self.n2, self.c2 = nn.GroupNorm(32, out), nn.Conv2d(out, out, 3, padding=1)
        self.skip = nn.Conv2d(c, out, 1) if out != c else nn.Identity()
    def forward(self, x, temb):
        h = self.c1(F.silu(self.n1(x)))
        h = h + self.t(F.silu(temb))[:, :, None, None]
        h = self.c2(F.dropout(F.silu(self.n2(h)), 0.1, self.training))
        return self.skip(x) + h

class CrossAttn(nn.Module):
    def __init__(self, c, ctx, heads=8):
        super().__init__()
        self.norm = nn.GroupNorm(32, c)
        self.q = nn.Linear(c, c, bias=False)
        self.kv = nn.Linear(ctx, 2 * c, bias=False)
        self.o = nn.Linear(c, c)
        self.h = heads
    def forward(self, x, context):
        B, C, H, W = x.shape
        h = self.norm(x).flatten(2).transpose(1, 2)
        q = self.q(h).view(B, -1, self.h, C // self.h).transpose(1, 2)
        k, v = self.kv(context).chunk(2, dim=-1)
        k = k.view(B, -1, self.h, C // self.h).transpose(1, 2)
        v = v.view(B, -1, self.h, C // self.h).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v)
        a = a.transpose(1, 2).reshape(B, H * W, C)
        return x + self.o(a).transpose(1, 2).reshape(B, C, H, W)

class UNet(nn.Module):
    def __init__(self, ch=64, ctx=256):
        super().__init__()
        self.temb = nn.Sequential(nn.Linear(ch, 4 * ch), nn.SiLU(), nn.Linear(4 * ch, 4 * ch))
        self.inp = nn.Conv2d(4, ch, 3, padding=1)
        self.d1 = ResBlock(ch, 4 * ch)
        self.a1 = CrossAttn(ch, ctx)
        self.down = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.mid = ResBlock(ch, 4 * ch, 2 * ch)
        self.a2 = CrossAttn(2 * ch, ctx)
        self.up = ResBlock(3 * ch, 4 * ch, ch)
        self.out = nn.Sequential(nn.GroupNorm(32, ch), nn.SiLU(), nn.Conv2d(ch, 4, 3, padding=1))
    def forward(self, x, t, context):
        temb = self.temb(timestep_embedding(t, 64))
        h1 = self.a1(self.d1(self.inp(x), temb), context)
        h = checkpoint(self.mid, self.down(h1), temb, use_reentrant=False)
        h = self.a2(h, context)
        h = F.interpolate(h, scale_factor=2, mode='nearest')
        h = self.up(torch.cat([h, h1], dim=1), temb)
        return self.out(h)

torch.manual_seed(0)
net = UNet().cuda()
ema = [p.detach().clone() for p in net.parameters()]
opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
betas = torch.linspace(1e-4, 0.02, 1000, device='cuda')
abar = torch.cumprod(1 - betas, 0)
for step in range(2):
    x0 = torch.randn(4, 4, 32, 32, device='cuda')
    ctx = torch.randn(4, 77, 256, device='cuda')
    t = torch.randint(0, 1000, (4,), device='cuda')
    noise = torch.randn_like(x0)
    a = abar[t].view(-1, 1, 1, 1)
    xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
    with torch.autocast('cuda', dtype=torch.bfloat16):
        pred = net(xt, t, ctx)
    loss = F.mse_loss(pred.float(), noise)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    with torch.no_grad():
        torch._foreach_lerp_(ema, [p.detach() for p in net.parameters()], 1 - 0.999)
    print(step, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
