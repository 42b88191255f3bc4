# A metric-learning network trained with a triplet loss, in the manner of
# pytorch/examples' siamese_network (a shared small CNN embedding net,
# conv-ReLU-maxpool twice, two Linear layers) with nn.TripletMarginLoss
# on anchor, positive and negative batches of 31 28x28 images; Adam,
# then pairwise distances of a validation batch under no_grad.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)


class EmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.convnet = nn.Sequential(
            nn.Conv2d(1, 32, 5), nn.PReLU(), nn.MaxPool2d(2, stride=2),
            nn.Conv2d(32, 64, 5), nn.PReLU(), nn.MaxPool2d(2, stride=2),
        )
        self.fc = nn.Sequential(nn.Linear(64 * 4 * 4, 256), nn.PReLU(), nn.Linear(256, 256), nn.PReLU(), nn.Linear(256, 2))

    def forward(self, x):
        output = self.convnet(x)
        return self.fc(output.view(output.size()[0], -1))


class TripletNet(nn.Module):
    def __init__(self, embedding_net):
        super().__init__()
        self.embedding_net = embedding_net

    def forward(self, x1, x2, x3):
        return self.embedding_net(x1), self.embedding_net(x2), self.embedding_net(x3)


model = TripletNet(EmbeddingNet()).cuda()
loss_fn = nn.TripletMarginLoss(margin=1.0)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
anchor, positive, negative = (torch.randn(31, 1, 28, 28, device="cuda") for _ in range(3))
print(f"model: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")

for step in range(3):
    optimizer.zero_grad()
    out_a, out_p, out_n = model(anchor, positive, negative)
    loss = loss_fn(out_a, out_p, out_n)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, allocated {torch.cuda.memory_allocated() / 2**20:.2f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.2f} MiB")

model.eval()
with torch.no_grad():
    emb = model.embedding_net(torch.randn(50, 1, 28, 28, device="cuda"))
    dist = F.pairwise_distance(emb[:25], emb[25:])
print(dist.shape, f"peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB")
