import math
import torch
import torch.nn as nn
import torch.nn.functional as F

class SelfAttention(nn.Module):
    def __init__(self, d, h, p=0.1):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, d)
        self.drop = nn.Dropout(p)
    def forward(self, x, mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, C // self.h).permute(2, 0, 3, 1, 4).unbind(0)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // self.h)
        att = att.masked_fill(mask[:, None, None, :] == 0, float('-inf'))
        att = self.drop(att.softmax(dim=-1))
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.o(y)

class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.attn = SelfAttention(d, h)
        self.ln1 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate='tanh'), nn.Linear(4 * d, d), nn.Dropout(0.1))
        self.ln2 = nn.LayerNorm(d)
    def forward(self, x, mask):
        x = self.ln1(x + self.attn(x, mask))
        return self.ln2(x + self.ff(x))

class Bert(nn.Module):
    def __init__(self, vocab=30522, d=256, h=4, L=4, T=128, classes=3):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = nn.Embedding(T, d)
        self.typ = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.blocks = nn.ModuleList([Block(d, h) for _ in range(L)])
        self.pool = nn.Linear(d, d)
        self.cls = nn.Linear(d, classes)
    def forward(self, ids, types, mask):
        T = ids.size(1)
        pos = torch.arange(T, device=ids.device).unsqueeze(0)
        x = self.ln(self.tok(ids) + self.pos(pos) + self.typ(types))
        for b in self.blocks:
            x = b(x, mask)
        pooled = torch.tanh(self.pool(x[:, 0]))
        return self.cls(pooled)

torch.manual_seed(0)
model = Bert().cuda()
no_decay = ['bias', 'ln']
groups = [
    {'params': [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], 'weight_decay': 0.01},
    {'params': [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], 'weight_decay': 0.0},
]
opt = torch.optim.AdamW(groups, lr=2e-5)
sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=10)
scaler = torch.amp.GradScaler('cuda')
for step in range(3):
    ids = torch.randint(1, 30522, (16, 128), device='cuda')
    types = torch.zeros_like(ids)
    mask = torch.ones_like(ids)
    labels = torch.randint(0, 3, (16,), device='cuda')
    with torch.autocast('cuda', dtype=torch.float16):
        logits = model(ids, types, mask)
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    sched.step()
    opt.zero_grad(set_to_none=True)
    print(step, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
