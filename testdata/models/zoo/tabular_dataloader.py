# A tabular classifier trained from a DataLoader, as tutorials write it:
# a TensorDataset on the host, DataLoader(batch_size=333, shuffle=True,
# pin_memory=True) whose last batch is short, each batch moved with
# .to(device, non_blocking=True), an MLP with BatchNorm1d and Dropout,
# Adam and a OneCycleLR schedule; one epoch, then evaluation under
# no_grad over the whole set.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
X = torch.randn(1100, 54)
y = torch.randint(0, 7, (1100,))
dataset = TensorDataset(X, y)
loader = DataLoader(dataset, batch_size=333, shuffle=True, pin_memory=True)

model = nn.Sequential(
    nn.Linear(54, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(256, 7),
).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=len(loader))
print(f"model: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")

model.train()
running_loss = 0.0
for xb, yb in loader:
    xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
    optimizer.zero_grad()
    loss = F.cross_entropy(model(xb), yb)
    loss.backward()
    optimizer.step()
    scheduler.step()
    running_loss += loss.item() * xb.size(0)

print(f"train loss {running_loss / len(dataset):.4f}, allocated {torch.cuda.memory_allocated() / 2**20:.2f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.2f} MiB")
model.eval()
correct = 0
with torch.no_grad():
    for xb, yb in DataLoader(dataset, batch_size=512):
        xb, yb = xb.to(device), yb.to(device)
        correct += (model(xb).argmax(1) == yb).sum().item()
print(f"accuracy {correct / len(dataset):.3f}, peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB")
