# A program written as users write it (the lead, session 10), run to its end
# by the tool with its estimates labelled; recorded (record_pending.sh), it
# can join ../models/zoo with its convolutions (scripts/conv_configs.py).
import torch
import torch.nn as nn
import torch.nn.functional as F

def window_partition(x, ws):
    B, H, W, C = x.shape
    x = x.view(B, H // ws, ws, W // ws, ws, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, C)

def window_reverse(w, ws, H, W):
    B = int(w.shape[0] / (H * W / ws / ws))
    x = w.view(B, H // ws, W // ws, ws, ws, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)

class WindowAttention(nn.Module):
    def __init__(self, dim, ws, heads):
        super().__init__()
        self.ws, self.heads = ws, heads
        self.scale = (dim // heads) ** -0.5
        self.rpb = nn.Parameter(torch.zeros((2 * ws - 1) * (2 * ws - 1), heads))
        coords = torch.stack(torch.meshgrid([torch.arange(ws), torch.arange(ws)], indexing='ij'))
        flat = torch.flatten(coords, 1)
        rel = flat[:, :, None] - flat[:, None, :]
        rel = rel.permute(1, 2, 0).contiguous()
        rel[:, :, 0] += ws - 1
        rel[:, :, 1] += ws - 1
        rel[:, :, 0] *= 2 * ws - 1
        self.register_buffer('rpi', rel.sum(-1))
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        nn.init.trunc_normal_(self.rpb, std=.02)
    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.rpb[self.rpi.view(-1)].view(N, N, -1).permute(2, 0, 1).contiguous()
        attn = attn + bias.unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B_ // nW, nW, self.heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.heads, N, N)
        attn = attn.softmax(-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B_, N, C))

class SwinBlock(nn.Module):
    def __init__(self, dim, res, heads, ws=7, shift=0):
        super().__init__()
        self.res, self.ws, self.shift = res, ws, shift
        self.n1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, ws, heads)
        self.n2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        if shift:
            H = W = res
            img = torch.zeros((1, H, W, 1))
            cnt = 0
            for h in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                for w in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                    img[:, h, w, :] = cnt
                    cnt += 1
            mw = window_partition(img, ws).view(-1, ws * ws)
            am = mw.unsqueeze(1) - mw.unsqueeze(2)
            am = am.masked_fill(am != 0, float(-100.0)).masked_fill(am == 0, float(0.0))
        else:
            am = None
        self.register_buffer('attn_mask', am)
    def forward(self, x):
        H = W = self.res
        B, L, C = x.shape
        sc = x
        x = self.n1(x).view(B, H, W, C)
        if self.shift:
            x = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        xw = window_partition(x, self.ws).view(-1, self.ws * self.ws, C)
        aw = self.attn(xw, mask=self.attn_mask).view(-1, self.ws, self.ws, C)
        x = window_reverse(aw, self.ws, H, W)
        if self.shift:
            x = torch.roll(x, shifts=(self.shift, self.shift), dims=(1, 2))
        x = sc + x.view(B, H * W, C)
        return x + self.mlp(self.n2(x))

torch.manual_seed(0)
embed = nn.Conv2d(3, 96, 4, 4).cuda()
blocks = nn.Sequential(SwinBlock(96, 56, 3), SwinBlock(96, 56, 3, shift=3)).cuda()
head = nn.Linear(96, 100).cuda()
params = list(embed.parameters()) + list(blocks.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.05)
for step in range(2):
    img = torch.randn(6, 3, 224, 224, device='cuda')
    y = torch.randint(0, 100, (6,), device='cuda')
    x = embed(img).flatten(2).transpose(1, 2)
    x = blocks(x)
    loss = F.cross_entropy(head(x.mean(1)), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(step, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
