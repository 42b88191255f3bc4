# Issue 15's small GPT: Embedding, LayerNorm, causal SDPA, GELU MLP,
# Dropout; AdamW. Trained plain, under bf16 autocast and with
# checkpointing, then in inference.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)

class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.drop(self.proj(a.transpose(1, 2).contiguous().view(b, t, d)))
        return x + self.drop(self.mlp(self.ln2(x)))

class GPT(nn.Module):
    def __init__(self, vocab=1024, d=256, heads=4, layers=2, ctx=128):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.ckpt = False

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False) if self.ckpt else blk(x)
        return self.head(self.ln(x))

model = GPT().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
idx = torch.randint(0, 1024, (8, 128), device='cuda')
targets = torch.randint(0, 1024, (8, 128), device='cuda')

def step(autocast=False):
    opt.zero_grad(set_to_none=True)
    with torch.autocast('cuda', dtype=torch.bfloat16, enabled=autocast):
        logits = model(idx)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
    loss.backward()
    opt.step()

step()
step()
step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
step(autocast=True)
step(autocast=True)
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
model.ckpt = True
step()
step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
model.ckpt = False
model.eval()
with torch.no_grad():
    y = model(idx)
del y
with torch.inference_mode():
    y = model(idx)
del y
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
