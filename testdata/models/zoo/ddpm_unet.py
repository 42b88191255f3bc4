# A denoising-diffusion U-Net as in lucidrains/denoising-diffusion-pytorch
# and the DDPM paper: sinusoidal timestep embeddings through an MLP,
# ResNet blocks with GroupNorm, SiLU and a scale/shift from the time
# embedding, self-attention at the lowest resolution, strided-conv
# downsampling and nearest upsampling; the noise-prediction MSE loss at
# random timesteps on 40x40 images, batch 13, Adam; then three DDPM
# sampling steps under no_grad.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T_STEPS = 1000


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        half_dim = self.dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, device=x.device) * -emb)
        emb = x[:, None] * emb[None, :]
        return torch.cat((emb.sin(), emb.cos()), dim=-1)


class ResnetBlock(nn.Module):
    def __init__(self, dim, dim_out, time_emb_dim, groups=8):
        super().__init__()
        self.mlp = nn.Sequential(nn.SiLU(), nn.Linear(time_emb_dim, dim_out * 2))
        self.proj1 = nn.Conv2d(dim, dim_out, 3, padding=1)
        self.norm1 = nn.GroupNorm(groups, dim_out)
        self.proj2 = nn.Conv2d(dim_out, dim_out, 3, padding=1)
        self.norm2 = nn.GroupNorm(groups, dim_out)
        self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()

    def forward(self, x, time_emb):
        scale, shift = self.mlp(time_emb)[:, :, None, None].chunk(2, dim=1)
        h = self.norm1(self.proj1(x))
        h = F.silu(h * (scale + 1) + shift)
        h = F.silu(self.norm2(self.proj2(h)))
        return h + self.res_conv(x)


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=32):
        super().__init__()
        self.heads = heads
        self.scale = dim_head ** -0.5
        self.norm = nn.GroupNorm(1, dim)
        self.to_qkv = nn.Conv2d(dim, dim_head * heads * 3, 1, bias=False)
        self.to_out = nn.Conv2d(dim_head * heads, dim, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.to_qkv(self.norm(x)).chunk(3, dim=1)
        q, k, v = [t.reshape(b, self.heads, -1, h * w) for t in qkv]
        sim = torch.einsum("b h d i, b h d j -> b h i j", q * self.scale, k)
        attn = sim.softmax(dim=-1)
        out = torch.einsum("b h i j, b h d j -> b h i d", attn, v)
        out = out.permute(0, 1, 3, 2).reshape(b, -1, h, w)
        return self.to_out(out) + x


class Unet(nn.Module):
    def __init__(self, dim=32, dim_mults=(1, 2, 4), channels=3):
        super().__init__()
        dims = [dim] + [dim * m for m in dim_mults]
        time_dim = dim * 4
        self.init_conv = nn.Conv2d(channels, dim, 7, padding=3)
        self.time_mlp = nn.Sequential(SinusoidalPosEmb(dim), nn.Linear(dim, time_dim), nn.GELU(), nn.Linear(time_dim, time_dim))
        self.downs = nn.ModuleList()
        self.ups = nn.ModuleList()
        in_out = list(zip(dims[:-1], dims[1:]))
        for i, (d_in, d_out) in enumerate(in_out):
            last = i == len(in_out) - 1
            self.downs.append(nn.ModuleList([
                ResnetBlock(d_in, d_in, time_dim),
                ResnetBlock(d_in, d_in, time_dim),
                nn.Conv2d(d_in, d_out, 4, 2, 1) if not last else nn.Conv2d(d_in, d_out, 3, padding=1),
            ]))
        mid = dims[-1]
        self.mid_block1 = ResnetBlock(mid, mid, time_dim)
        self.mid_attn = Attention(mid)
        self.mid_block2 = ResnetBlock(mid, mid, time_dim)
        for i, (d_in, d_out) in enumerate(reversed(in_out)):
            last = i == len(in_out) - 1
            self.ups.append(nn.ModuleList([
                ResnetBlock(d_out + d_in, d_out, time_dim),
                ResnetBlock(d_out + d_in, d_out, time_dim),
                nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(d_out, d_in, 3, padding=1)) if not last else nn.Conv2d(d_out, d_in, 3, padding=1),
            ]))
        self.final_res_block = ResnetBlock(dim * 2, dim, time_dim)
        self.final_conv = nn.Conv2d(dim, channels, 1)

    def forward(self, x, time):
        x = self.init_conv(x)
        r = x.clone()
        t = self.time_mlp(time)
        h = []
        for block1, block2, downsample in self.downs:
            x = block1(x, t)
            h.append(x)
            x = block2(x, t)
            h.append(x)
            x = downsample(x)
        x = self.mid_block2(self.mid_attn(self.mid_block1(x, t)), t)
        for block1, block2, upsample in self.ups:
            x = block1(torch.cat((x, h.pop()), dim=1), t)
            x = block2(torch.cat((x, h.pop()), dim=1), t)
            x = upsample(x)
        x = self.final_res_block(torch.cat((x, r), dim=1), t)
        return self.final_conv(x)


betas = torch.linspace(1e-4, 0.02, T_STEPS, device="cuda")
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1.0 - alphas_cumprod)
model = Unet().cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=8e-5, betas=(0.9, 0.99))
x_start = torch.rand(13, 3, 40, 40, device="cuda") * 2 - 1
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for step in range(2):
    t = torch.randint(0, T_STEPS, (13,), device="cuda").long()
    noise = torch.randn_like(x_start)
    x_noisy = sqrt_alphas_cumprod[t].view(-1, 1, 1, 1) * x_start + sqrt_one_minus_alphas_cumprod[t].view(-1, 1, 1, 1) * noise
    loss = F.mse_loss(model(x_noisy, t), noise)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

model.eval()
with torch.no_grad():
    img = torch.randn(4, 3, 40, 40, device="cuda")
    for i in reversed(range(T_STEPS - 3, T_STEPS)):
        t = torch.full((4,), i, device="cuda", dtype=torch.long)
        eps = model(img, t)
        img = (img - betas[i] / sqrt_one_minus_alphas_cumprod[i] * eps) / torch.sqrt(alphas[i])
        if i > 0:
            img = img + torch.sqrt(betas[i]) * torch.randn_like(img)
print(f"sampling peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
