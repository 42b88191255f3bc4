# CLIP's contrastive training step (openai/CLIP's model.py and
# open_clip's ClipLoss): a ViT image tower with a conv patch embedding, a
# causal text transformer whose feature is read at the end-of-text token
# (argmax of the token ids), linear projections, F.normalize, a learned
# logit scale (exp, clamped), and the symmetric cross entropy over the
# batch's 24 x 24 similarity matrix; two AdamW steps.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
EMBED, WIDTH, CTX, VOCAB, BATCH = 256, 256, 77, 49408, 24


class ResidualAttentionBlock(nn.Module):
    def __init__(self, d_model, n_head, attn_mask=None):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_head)
        self.ln_1 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, d_model * 4), nn.GELU(), nn.Linear(d_model * 4, d_model))
        self.ln_2 = nn.LayerNorm(d_model)
        self.attn_mask = attn_mask

    def attention(self, x):
        mask = self.attn_mask.to(dtype=x.dtype, device=x.device) if self.attn_mask is not None else None
        return self.attn(x, x, x, need_weights=False, attn_mask=mask)[0]

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class VisionTransformer(nn.Module):
    def __init__(self, input_resolution=112, patch_size=16, width=WIDTH, layers=3, heads=4, output_dim=EMBED):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, kernel_size=patch_size, stride=patch_size, bias=False)
        scale = width ** -0.5
        self.class_embedding = nn.Parameter(scale * torch.randn(width))
        self.positional_embedding = nn.Parameter(scale * torch.randn((input_resolution // patch_size) ** 2 + 1, width))
        self.ln_pre = nn.LayerNorm(width)
        self.blocks = nn.Sequential(*[ResidualAttentionBlock(width, heads) for _ in range(layers)])
        self.ln_post = nn.LayerNorm(width)
        self.proj = nn.Parameter(scale * torch.randn(width, output_dim))

    def forward(self, x):
        x = self.conv1(x)
        x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)
        cls = self.class_embedding.to(x.dtype) + torch.zeros(x.shape[0], 1, x.shape[-1], dtype=x.dtype, device=x.device)
        x = torch.cat([cls, x], dim=1) + self.positional_embedding.to(x.dtype)
        x = self.ln_pre(x).permute(1, 0, 2)
        x = self.blocks(x).permute(1, 0, 2)
        return self.ln_post(x[:, 0, :]) @ self.proj


class CLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.visual = VisionTransformer()
        mask = torch.empty(CTX, CTX).fill_(float("-inf")).triu_(1)
        self.transformer = nn.Sequential(*[ResidualAttentionBlock(WIDTH, 4, mask) for _ in range(3)])
        self.token_embedding = nn.Embedding(VOCAB, WIDTH)
        self.positional_embedding = nn.Parameter(torch.empty(CTX, WIDTH).normal_(std=0.01))
        self.ln_final = nn.LayerNorm(WIDTH)
        self.text_projection = nn.Parameter(torch.empty(WIDTH, EMBED).normal_(std=WIDTH ** -0.5))
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def encode_text(self, text):
        x = self.token_embedding(text) + self.positional_embedding
        x = self.transformer(x.permute(1, 0, 2)).permute(1, 0, 2)
        x = self.ln_final(x)
        return x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection

    def forward(self, image, text):
        image_features = F.normalize(self.visual(image), dim=-1)
        text_features = F.normalize(self.encode_text(text), dim=-1)
        logit_scale = self.logit_scale.exp().clamp(max=100)
        logits_per_image = logit_scale * image_features @ text_features.t()
        return logits_per_image, logits_per_image.t()


model = CLIP().cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, betas=(0.9, 0.98), eps=1e-6, weight_decay=0.2)
images = torch.randn(BATCH, 3, 112, 112, device="cuda")
texts = torch.randint(1, VOCAB - 1, (BATCH, CTX), device="cuda")
texts[:, 40] = VOCAB - 1
labels = torch.arange(BATCH, device="cuda", dtype=torch.long)
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for step in range(2):
    logits_per_image, logits_per_text = model(images, texts)
    total_loss = (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2
    optimizer.zero_grad()
    total_loss.backward()
    optimizer.step()
    print(f"step {step}: loss {total_loss.item():.3f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

print(f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
