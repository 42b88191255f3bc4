# A training loop as users write it: a Module subclass on the GPU, AdamW
# with two param groups (no weight decay on biases), a cosine schedule,
# zero_grad between steps; then SGD (nesterov, for-loop) and Adam
# (fused, amsgrad) on the same model. Recorded with --events.
import torch
from torch import nn

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(1024, 4096)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(4096, 1024)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


model = MLP().cuda()
x = torch.ones(256, 1024, device='cuda')
decay = [p for n, p in model.named_parameters() if n.endswith('weight')]
no_decay = [p for n, p in model.named_parameters() if n.endswith('bias')]
opt = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.1}, {'params': no_decay, 'weight_decay': 0.0}], lr=1e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)
for step in range(3):
    torch.cuda.reset_peak_memory_stats()
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    sched.step()
    opt.zero_grad()
    show(f"AdamW step {step}")
print([round(v, 6) for v in sched.get_last_lr()])
del loss, opt, sched
show("AdamW gone")
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4, foreach=False)
for step in range(2):
    torch.cuda.reset_peak_memory_stats()
    model(x).square().mean().backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
    show(f"SGD step {step}")
del opt
model.zero_grad()
opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True, amsgrad=True)
torch.cuda.reset_peak_memory_stats()
model(x).square().mean().backward()
opt.step()
show("fused Adam")
print(sorted(opt.state[model.fc1.weight].keys()), len(opt.state_dict()['state']))
del opt, model, x
show("all freed")
