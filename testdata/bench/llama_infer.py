# A Llama-70B-shaped inference with a KV cache (issue 36's benchmark):
# bfloat16 weights made on the GPU, a cache of keys and values for every
# layer made up front, a prompt of --prompt tokens run at once, then
# --new tokens one at a time, under inference_mode. Shapes: 80 layers,
# width 8192, MLP 28672, 64 query heads over 8 key-value heads (grouped:
# each key-value head expanded to 8 query heads), vocabulary 32000.
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--layers", type=int, default=80)
p.add_argument("--dim", type=int, default=8192)
p.add_argument("--hidden", type=int, default=28672)
p.add_argument("--heads", type=int, default=64)
p.add_argument("--kv-heads", type=int, default=8)
p.add_argument("--vocab", type=int, default=32000)
p.add_argument("--batch-size", type=int, default=1)
p.add_argument("--prompt", type=int, default=512)
p.add_argument("--new", type=int, default=32)
args = p.parse_args()
max_seq = args.prompt + args.new
head_dim = args.dim // args.heads
bf16 = dict(device="cuda", dtype=torch.bfloat16)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        d, kv = args.dim, args.kv_heads * head_dim
        self.n1 = nn.RMSNorm(d, **bf16)
        self.wq = nn.Linear(d, d, bias=False, **bf16)
        self.wk = nn.Linear(d, kv, bias=False, **bf16)
        self.wv = nn.Linear(d, kv, bias=False, **bf16)
        self.wo = nn.Linear(d, d, bias=False, **bf16)
        self.n2 = nn.RMSNorm(d, **bf16)
        self.w1 = nn.Linear(d, args.hidden, bias=False, **bf16)
        self.w3 = nn.Linear(d, args.hidden, bias=False, **bf16)
        self.w2 = nn.Linear(args.hidden, d, bias=False, **bf16)
        shape = (args.batch_size, args.kv_heads, max_seq, head_dim)
        self.cache_k = torch.zeros(shape, **bf16)
        self.cache_v = torch.zeros(shape, **bf16)

    def forward(self, x, pos):
        b, t, d = x.shape
        g = args.heads // args.kv_heads
        y = self.n1(x)
        q = self.wq(y).view(b, t, args.heads, head_dim).transpose(1, 2)
        k = self.wk(y).view(b, t, args.kv_heads, head_dim).transpose(1, 2)
        v = self.wv(y).view(b, t, args.kv_heads, head_dim).transpose(1, 2)
        self.cache_k[:, :, pos:pos + t] = k
        self.cache_v[:, :, pos:pos + t] = v
        keys = self.cache_k[:, :, :pos + t, None].expand(b, args.kv_heads, pos + t, g, head_dim)
        vals = self.cache_v[:, :, :pos + t, None].expand(b, args.kv_heads, pos + t, g, head_dim)
        keys = keys.transpose(2, 3).reshape(b, args.heads, pos + t, head_dim)
        vals = vals.transpose(2, 3).reshape(b, args.heads, pos + t, head_dim)
        a = F.scaled_dot_product_attention(q, keys, vals, is_causal=t > 1)
        x = x + self.wo(a.transpose(1, 2).reshape(b, t, d))
        y = self.n2(x)
        return x + self.w2(F.silu(self.w1(y)) * self.w3(y))


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(args.vocab, args.dim, **bf16)
        self.blocks = nn.ModuleList([Block() for _ in range(args.layers)])
        self.norm = nn.RMSNorm(args.dim, **bf16)
        self.head = nn.Linear(args.dim, args.vocab, bias=False, **bf16)

    def forward(self, idx, pos):
        x = self.tok(idx)
        for blk in self.blocks:
            x = blk(x, pos)
        return self.head(self.norm(x[:, -1:]))


model = Llama()
tokens = torch.randint(0, args.vocab, (args.batch_size, args.prompt), device="cuda")
with torch.inference_mode():
    logits = model(tokens, 0)
    for i in range(args.new):
        # the next token as sampling picks one (argmax over the vocabulary
        # is not modelled; no value is computed anyway)
        nxt = torch.randint(0, args.vocab, (args.batch_size, 1), device="cuda")
        logits = model(nxt, args.prompt + i)
print(torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved())
