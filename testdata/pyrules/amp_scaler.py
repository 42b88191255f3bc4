# torch.amp.GradScaler('cuda') over an fp16 autocast model, with SGD
# (momentum) and with AdamW: scale() makes the scale and the growth
# tracker on first use (a float32 and an int32 0-dim tensor), unscale_
# its inverse and found_inf, step() unscales when not yet done and runs
# the optimizer, update() drops found_inf; get_scale() reads the scale.
# init_scale and the learning rates are small so that no value
# overflows in fp16 and every step runs (the tool computes no values).
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-6, momentum=0.9)
scaler = torch.amp.GradScaler('cuda', init_scale=8.0)
x = torch.randn(512, 1024, device='cuda')
print(scaler.get_scale(), scaler.is_enabled())
with torch.autocast('cuda', dtype=torch.float16):
    loss = model(x).sum()
print(loss.dtype)
scaled = scaler.scale(loss)
print(scaled.dtype, scaler.get_scale())
scaled.backward()
del scaled
scaler.unscale_(opt)
scaler.step(opt)
scaler.update()
print(scaler.get_scale())
del loss
opt.zero_grad()

def step():
    opt.zero_grad(set_to_none=True)
    with torch.autocast('cuda', dtype=torch.float16):
        loss = model(x).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()

step()
step()
print(torch.cuda.memory_allocated())
opt = torch.optim.AdamW(model.parameters(), lr=1e-6)
scaler = torch.cuda.amp.GradScaler(init_scale=8.0)
step()
step()
for i in range(2):
    step()
print(scaler.get_scale(), torch.cuda.memory_allocated())
