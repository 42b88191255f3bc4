# A two-layer graph convolutional network (Kipf and Welling; tkipf/pygcn
# and pytorch/examples' gcn) on a Cora-sized graph: 2708 nodes, 1433
# features, 7 classes, a dense symmetric-normalised adjacency
# D^-1/2 (A + I) D^-1/2 built on the GPU, dropout, log_softmax and
# nll_loss on the first 140 nodes, Adam with weight decay; five epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
N, FEATURES, HIDDEN, CLASSES = 2708, 1433, 16, 7


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        return torch.mm(adj, support) + self.bias


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout=0.5):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(self.gc2(x, adj), dim=1)


device = torch.device("cuda")
features = (torch.rand(N, FEATURES, device=device) < 0.0127).float()
features = features / features.sum(1, keepdim=True).clamp(min=1)
adj = (torch.rand(N, N, device=device) < 0.0007).float()
adj = ((adj + adj.t()) > 0).float() + torch.eye(N, device=device)
deg_inv_sqrt = adj.sum(1).pow(-0.5)
adj = deg_inv_sqrt.view(-1, 1) * adj * deg_inv_sqrt.view(1, -1)
labels = torch.randint(0, CLASSES, (N,), device=device)
idx_train = torch.arange(140, device=device)
idx_val = torch.arange(200, 500, device=device)
model = GCN(FEATURES, HIDDEN, CLASSES).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
print(f"graph and model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for epoch in range(5):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        output = model(features, adj)
        acc_val = (output[idx_val].max(1)[1] == labels[idx_val]).double().mean()
    print(f"epoch {epoch + 1}: loss_train {loss_train.item():.4f} acc_val {acc_val.item():.4f} allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

print(f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")
