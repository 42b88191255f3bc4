import torch
import torch.nn as nn
import torch.nn.functional as F

class ConvModule(nn.Module):
    def __init__(self, d, k=31):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)
    def forward(self, x):
        y = self.ln(x).transpose(1, 2)
        y = F.glu(self.pw1(y), dim=1)
        y = F.silu(self.bn(self.dw(y)))
        return x + self.pw2(y).transpose(1, 2)

class FF(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Dropout(0.1), nn.Linear(4 * d, d))
    def forward(self, x):
        return x + 0.5 * self.net(x)

class ConformerBlock(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ff1 = FF(d)
        self.ln = nn.LayerNorm(d)
        self.mha = nn.MultiheadAttention(d, h, batch_first=True, dropout=0.1)
        self.conv = ConvModule(d)
        self.ff2 = FF(d)
        self.out = nn.LayerNorm(d)
    def forward(self, x, pad):
        x = self.ff1(x)
        y = self.ln(x)
        x = x + self.mha(y, y, y, key_padding_mask=pad, need_weights=False)[0]
        x = self.conv(x)
        return self.out(self.ff2(x))

class Model(nn.Module):
    def __init__(self, n_mels=80, d=144, h=4, L=4, vocab=128):
        super().__init__()
        self.sub = nn.Sequential(nn.Conv2d(1, d, 3, 2), nn.ReLU(), nn.Conv2d(d, d, 3, 2), nn.ReLU())
        self.proj = nn.Linear(d * (((n_mels - 1) // 2 - 1) // 2), d)
        self.blocks = nn.ModuleList(ConformerBlock(d, h) for _ in range(L))
        self.head = nn.Linear(d, vocab)
    def forward(self, mel, pad):
        x = self.sub(mel.unsqueeze(1))
        b, c, t, f = x.shape
        x = self.proj(x.permute(0, 2, 1, 3).reshape(b, t, c * f))
        for blk in self.blocks:
            x = blk(x, pad[:, :t])
        return self.head(x).log_softmax(-1)

torch.manual_seed(0)
model = Model().cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
ctc = nn.CTCLoss(blank=0, zero_infinity=True)
for step in range(2):
    mel = torch.randn(8, 400, 80, device='cuda')
    pad = torch.zeros(8, 400, dtype=torch.bool, device='cuda')
    logp = model(mel, pad)
    T = logp.size(1)
    targets = torch.randint(1, 128, (8, 30), device='cuda')
    loss = ctc(logp.transpose(0, 1), targets, torch.full((8,), T, dtype=torch.long), torch.full((8,), 30, dtype=torch.long))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
