# A Llama-7B-shaped training step (issue 36's benchmark): the model built
# on the host as most scripts build it, moved to the GPU, one step of
# AdamW under bf16 autocast, with activation checkpointing of each block
# (--ckpt 1) or without (--ckpt 0). Shapes: 32 layers, width 4096, MLP
# 11008, 32 heads, vocabulary 32000; sequence 2048, batch 1.
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

p = argparse.ArgumentParser()
p.add_argument("--layers", type=int, default=32)
p.add_argument("--dim", type=int, default=4096)
p.add_argument("--hidden", type=int, default=11008)
p.add_argument("--heads", type=int, default=32)
p.add_argument("--vocab", type=int, default=32000)
p.add_argument("--batch-size", type=int, default=1)
p.add_argument("--seq", type=int, default=2048)
p.add_argument("--ckpt", type=int, default=0)
args = p.parse_args()


class Block(nn.Module):
    def __init__(self, d, h, hidden):
        super().__init__()
        self.h = h
        self.n1 = nn.RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.n2 = nn.RMSNorm(d)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        y = self.n1(x)
        q = self.wq(y).view(b, t, self.h, d // self.h).transpose(1, 2)
        k = self.wk(y).view(b, t, self.h, d // self.h).transpose(1, 2)
        v = self.wv(y).view(b, t, self.h, d // self.h).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, t, d))
        y = self.n2(x)
        return x + self.w2(F.silu(self.w1(y)) * self.w3(y))


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(args.vocab, args.dim)
        self.blocks = nn.ModuleList([Block(args.dim, args.heads, args.hidden) for _ in range(args.layers)])
        self.norm = nn.RMSNorm(args.dim)
        self.head = nn.Linear(args.dim, args.vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx)
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False) if args.ckpt else blk(x)
        return self.head(self.norm(x))


model = Llama().to("cuda")
model.tok.weight.requires_grad_(False)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
idx = torch.randint(0, args.vocab, (args.batch_size, args.seq), device="cuda")
with torch.autocast("cuda", dtype=torch.bfloat16):
    logits = model(idx)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)).float(), idx.view(-1))
loss.backward()
opt.step()
opt.zero_grad(set_to_none=True)
print(torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved())
