# Greedy generation with a key/value cache, as meta-llama/llama's
# generation.py runs it: a bfloat16 Llama-style model whose attention
# layers keep preallocated cache_k/cache_v tensors written in place at
# start_pos, a causal mask for the prompt, argmax over the 32000-token
# vocabulary at each step, under torch.inference_mode.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DIM, N_LAYERS, N_HEADS, N_KV_HEADS, VOCAB = 768, 6, 12, 4, 32000
HEAD_DIM = DIM // N_HEADS
MAX_BATCH, MAX_SEQ = 4, 128


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        out = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return out.type_as(x) * self.weight


def rotate(x, cos, sin):
    x1, x2 = x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2 :]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(DIM, N_HEADS * HEAD_DIM, bias=False)
        self.wk = nn.Linear(DIM, N_KV_HEADS * HEAD_DIM, bias=False)
        self.wv = nn.Linear(DIM, N_KV_HEADS * HEAD_DIM, bias=False)
        self.wo = nn.Linear(N_HEADS * HEAD_DIM, DIM, bias=False)
        self.register_buffer("cache_k", torch.zeros(MAX_BATCH, MAX_SEQ, N_KV_HEADS, HEAD_DIM), persistent=False)
        self.register_buffer("cache_v", torch.zeros(MAX_BATCH, MAX_SEQ, N_KV_HEADS, HEAD_DIM), persistent=False)

    def forward(self, x, start_pos, cos, sin, mask):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, N_HEADS, HEAD_DIM)
        xk = self.wk(x).view(bsz, seqlen, N_KV_HEADS, HEAD_DIM)
        xv = self.wv(x).view(bsz, seqlen, N_KV_HEADS, HEAD_DIM)
        xq, xk = rotate(xq, cos, sin), rotate(xk, cos, sin)
        self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos : start_pos + seqlen] = xv
        keys = self.cache_k[:bsz, : start_pos + seqlen]
        values = self.cache_v[:bsz, : start_pos + seqlen]
        n_rep = N_HEADS // N_KV_HEADS
        keys = torch.repeat_interleave(keys, dim=2, repeats=n_rep)
        values = torch.repeat_interleave(values, dim=2, repeats=n_rep)
        xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(HEAD_DIM)
        if mask is not None:
            scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = Attention()
        self.w1 = nn.Linear(DIM, 2048, bias=False)
        self.w2 = nn.Linear(2048, DIM, bias=False)
        self.w3 = nn.Linear(DIM, 2048, bias=False)
        self.attention_norm = RMSNorm(DIM)
        self.ffn_norm = RMSNorm(DIM)

    def forward(self, x, start_pos, cos, sin, mask):
        h = x + self.attention(self.attention_norm(x), start_pos, cos, sin, mask)
        f = self.ffn_norm(h)
        return h + self.w2(F.silu(self.w1(f)) * self.w3(f))


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_embeddings = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList([Block() for _ in range(N_LAYERS)])
        self.norm = RMSNorm(DIM)
        self.output = nn.Linear(DIM, VOCAB, bias=False)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))
        freqs = torch.outer(torch.arange(MAX_SEQ).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos()[None, :, None, :], persistent=False)
        self.register_buffer("sin", emb.sin()[None, :, None, :], persistent=False)

    @torch.inference_mode()
    def forward(self, tokens, start_pos):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        cos = self.cos[:, start_pos : start_pos + seqlen].to(h.dtype)
        sin = self.sin[:, start_pos : start_pos + seqlen].to(h.dtype)
        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=tokens.device)
            mask = torch.triu(mask, diagonal=1)
            mask = torch.hstack([torch.zeros((seqlen, start_pos), device=tokens.device), mask]).type_as(h)
        for layer in self.layers:
            h = layer(h, start_pos, cos, sin, mask)
        h = self.norm(h)
        return self.output(h).float()


model = Transformer().to(device="cuda", dtype=torch.bfloat16)
print(f"weights and caches: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")
prompt_len, max_gen_len, bsz = 57, 24, 3
total_len = prompt_len + max_gen_len
tokens = torch.full((bsz, total_len), 0, dtype=torch.long, device="cuda")
tokens[:, :prompt_len] = torch.randint(1, VOCAB, (bsz, prompt_len), device="cuda")
prev_pos = 0

with torch.inference_mode():
    for cur_pos in range(prompt_len, total_len):
        logits = model.forward(tokens[:, prev_pos:cur_pos], prev_pos)
        next_token = torch.argmax(logits[:, -1], dim=-1)
        tokens[:, cur_pos] = next_token
        prev_pos = cur_pos

print(tokens.shape)
print(f"after generation: allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")
