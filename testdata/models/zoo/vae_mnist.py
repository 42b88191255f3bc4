# pytorch/examples' VAE on MNIST-sized inputs: 784-400-20 encoder with
# the reparameterisation trick (randn_like), a 20-400-784 decoder with a
# sigmoid, binary cross entropy summed plus the KL divergence; Adam at
# batch 77, then sampling 64 images under no_grad.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
device = torch.device("cuda")


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


model = VAE().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
batches = [torch.rand(77, 1, 28, 28, device=device) for _ in range(4)]
model.train()
train_loss = 0

for batch_idx, data in enumerate(batches):
    optimizer.zero_grad()
    recon_batch, mu, logvar = model(data)
    loss = loss_function(recon_batch, data, mu, logvar)
    loss.backward()
    train_loss += loss.item()
    optimizer.step()

print(f"average loss {train_loss / (4 * 77):.4f}")
print(f"allocated {torch.cuda.memory_allocated() / 2**20:.2f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.2f} MiB")
with torch.no_grad():
    sample = torch.randn(64, 20).to(device)
    sample = model.decode(sample).cpu()
print(sample.view(64, 1, 28, 28).shape, f"peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB")
