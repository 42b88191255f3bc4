# A GPT trained under bf16 autocast with AdamW, its batch size an
# argument: the program `fit --sweep batch-size=...` is checked on (the
# largest batch that fits on the H200, found by PyTorch on the GPU
# machine: scripts/probe_sweep.py). Recorded at its defaults.
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=4)
parser.add_argument("--seq", type=int, default=1024)
parser.add_argument("--vocab", type=int, default=50304)
parser.add_argument("--dim", type=int, default=512)
parser.add_argument("--layers", type=int, default=4)
parser.add_argument("--steps", type=int, default=2)
args = parser.parse_args()

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

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).contiguous().view(b, t, d))
        return x + self.mlp(self.ln2(x))

class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(args.vocab, args.dim)
        self.pos = nn.Embedding(args.seq, args.dim)
        self.blocks = nn.ModuleList([Block(args.dim, 8) for _ in range(args.layers)])
        self.ln = nn.LayerNorm(args.dim)
        self.head = nn.Linear(args.dim, args.vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))

model = GPT().cuda()
# the embeddings are frozen: their backward sorts the indices, which the
# tool models up to 3072 of them
model.tok.weight.requires_grad_(False)
model.pos.weight.requires_grad_(False)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
idx = torch.randint(0, args.vocab, (args.batch_size, args.seq), device="cuda")
targets = torch.randint(0, args.vocab, (args.batch_size, args.seq), device="cuda")
for step in range(args.steps):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(idx)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
    loss.backward()
    opt.step()
    del logits, loss
print(torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved())
