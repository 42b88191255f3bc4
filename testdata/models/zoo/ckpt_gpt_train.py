# Activation checkpointing in a GPT training step, as Hugging Face's
# gradient_checkpointing_enable() and nanoGPT-style code do it: every
# transformer block run through torch.utils.checkpoint.checkpoint
# (use_reentrant=False) so only block inputs are kept; nanoGPT's
# Shakespeare-char shapes (batch 16 x 256 characters, 4096 indices into
# the embedding), fused AdamW, two steps, and the same step without
# checkpointing for comparison.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(1337)
VOCAB, BLOCK, N_EMBD, N_HEAD, N_LAYER, BATCH = 65, 256, 384, 6, 6, 16


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD)
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD)
        self.ln_2 = nn.LayerNorm(N_EMBD)
        self.mlp = nn.Sequential(nn.Linear(N_EMBD, 4 * N_EMBD), nn.GELU(), nn.Linear(4 * N_EMBD, N_EMBD), nn.Dropout(0.2))
        self.attn_dropout = nn.Dropout(0.2)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(N_EMBD, dim=2)
        q = q.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        k = k.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        v = v.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=0.2 if self.training else 0.0, is_causal=True)
        x = x + self.attn_dropout(self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C)))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, N_EMBD)
        self.wpe = nn.Embedding(BLOCK, N_EMBD)
        self.blocks = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(N_EMBD)
        self.lm_head = nn.Linear(N_EMBD, VOCAB, bias=False)
        self.gradient_checkpointing = False

    def forward(self, idx, targets):
        pos = torch.arange(0, idx.size(1), dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            if self.gradient_checkpointing and self.training:
                x = checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


model = GPT().cuda()
model.gradient_checkpointing = True
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), fused=True)
data = torch.randint(0, VOCAB, (BATCH, BLOCK + 1), device="cuda")
xb, yb = data[:, :-1].contiguous(), data[:, 1:].contiguous()
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for it in range(2):
    loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    print(f"checkpointed step {it}: loss {loss.item():.4f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")

torch.cuda.reset_peak_memory_stats()
model.gradient_checkpointing = False
loss = model(xb, yb)
optimizer.zero_grad(set_to_none=True)
loss.backward()
optimizer.step()
print(f"plain step: peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")
