# nanoGPT's train.py loop in miniature: bfloat16 autocast as its ctx,
# gradient accumulation over 3 micro-steps (loss divided by the count),
# clip_grad_norm_, the learning rate set by hand each iteration from a
# cosine schedule with warmup, AdamW with decayed and undecayed groups
# (fused), batch 12 x 97 tokens, a 4-layer 320-wide model; then an
# estimate_loss() pass under no_grad.
import math

import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(1337)
VOCAB, BLOCK, N_EMBD, N_HEAD, N_LAYER = 50304, 97, 320, 5, 4
batch_size, gradient_accumulation_steps, max_iters = 12, 3, 3
learning_rate, min_lr, warmup_iters, lr_decay_iters = 6e-4, 6e-5, 2, 10


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD)
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD)
        self.ln_2 = nn.LayerNorm(N_EMBD)
        self.c_fc = nn.Linear(N_EMBD, 4 * N_EMBD)
        self.mlp_proj = nn.Linear(4 * N_EMBD, N_EMBD)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(N_EMBD, dim=2)
        q, k, v = (t.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, N_EMBD)
        self.wpe = nn.Embedding(BLOCK, N_EMBD)
        self.h = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(N_EMBD)
        self.lm_head = nn.Linear(N_EMBD, VOCAB, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx, targets=None):
        pos = torch.arange(0, idx.size(1), dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [{"params": decay_params, "weight_decay": weight_decay}, {"params": nodecay_params, "weight_decay": 0.0}]
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, fused=True)


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


def get_batch():
    data = torch.randint(0, VOCAB, (batch_size, BLOCK + 1), device="cuda")
    return data[:, :-1].contiguous(), data[:, 1:].contiguous()


model = GPT().cuda()
optimizer = model.configure_optimizers(0.1, learning_rate, (0.9, 0.95))
ctx = torch.autocast(device_type="cuda", dtype=torch.bfloat16)
X, Y = get_batch()
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for iter_num in range(max_iters):
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    for micro_step in range(gradient_accumulation_steps):
        with ctx:
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
        X, Y = get_batch()
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {iter_num}: loss {loss.item() * gradient_accumulation_steps:.4f}, lr {lr:.2e}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")


@torch.no_grad()
def estimate_loss(eval_iters=2):
    model.eval()
    losses = torch.zeros(eval_iters)
    for k in range(eval_iters):
        xb, yb = get_batch()
        with ctx:
            logits, loss = model(xb, yb)
        losses[k] = loss.item()
    model.train()
    return losses.mean()


print(f"val loss {estimate_loss():.4f}, peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
