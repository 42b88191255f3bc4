# A mixed-precision training loop for an image classifier, as the PyTorch
# AMP docs write it with gradient clipping: a VGG-style CNN (conv, BN,
# ReLU, max pooling) on 3x48x48 images at batch 37, torch.autocast with
# float16, GradScaler: scaler.scale(loss).backward(), scaler.unscale_ so
# clip_grad_norm_ sees true gradients, scaler.step and scaler.update;
# SGD with nesterov momentum, three steps, then autocast evaluation.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda"


def vgg_block(c_in, c_out):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True),
        nn.Conv2d(c_out, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
    )


model = nn.Sequential(
    vgg_block(3, 32), vgg_block(32, 64), vgg_block(64, 128),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.25), nn.Linear(128, 43),
).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
scaler = torch.amp.GradScaler("cuda")
images = torch.randn(37, 3, 48, 48, device=device)
labels = torch.randint(0, 43, (37,), device=device)
print(f"model and data: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for step in range(3):
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        output = model(images)
        loss = F.cross_entropy(output, labels)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step}: loss {loss.item():.3f}, scale {scaler.get_scale()}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

model.eval()
with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.float16):
    preds = model(images).argmax(dim=1)
print(f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
