# A DLRM-style recommender (facebookresearch/dlrm's dlrm_s_pytorch.py):
# 13 dense features through a bottom MLP, 26 categorical features through
# nn.EmbeddingBag tables (mode "sum", three ids a bag, offsets), the
# pairwise dot-product interaction (bmm of the stacked vectors, the lower
# triangle picked by index), a top MLP to one logit, BCEWithLogits; SGD
# at batch 129.
import torch
import torch.nn as nn

torch.manual_seed(123)
BATCH, DENSE, EMB_DIM, IDS_PER_BAG = 129, 13, 16, 3
TABLE_SIZES = [1460, 583, 10131227 // 1000, 2202608 // 1000, 305, 24, 12517, 633, 3, 93145 // 10, 5683, 8351593 // 1000, 3194,
               27, 14992, 5461306 // 1000, 10, 5652, 2173, 4, 7046547 // 1000, 18, 15, 286181 // 10, 105, 142572 // 10]


def mlp(sizes, sigmoid_layer=-1):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1], bias=True))
        layers.append(nn.Sigmoid() if i == sigmoid_layer else nn.ReLU())
    return nn.Sequential(*layers)


class DLRM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb_l = nn.ModuleList([nn.EmbeddingBag(n, EMB_DIM, mode="sum") for n in TABLE_SIZES])
        self.bot_l = mlp([DENSE, 512, 256, 64, EMB_DIM])
        num_fea = len(TABLE_SIZES) + 1
        num_int = num_fea * (num_fea - 1) // 2 + EMB_DIM
        self.top_l = mlp([num_int, 512, 256, 1], sigmoid_layer=-1)
        li, lj = torch.tril_indices(num_fea, num_fea, offset=-1)
        self.register_buffer("li", li, persistent=False)
        self.register_buffer("lj", lj, persistent=False)

    def interact_features(self, x, ly):
        (batch_size, d) = x.shape
        T = torch.cat([x] + ly, dim=1).view((batch_size, -1, d))
        Z = torch.bmm(T, torch.transpose(T, 1, 2))
        Zflat = Z[:, self.li, self.lj]
        return torch.cat([x] + [Zflat], dim=1)

    def forward(self, dense_x, lS_o, lS_i):
        x = self.bot_l(dense_x)
        ly = [self.emb_l[k](lS_i[k], lS_o[k]) for k in range(len(self.emb_l))]
        z = self.interact_features(x, ly)
        return self.top_l(z)


model = DLRM().cuda()
print(f"tables and MLPs: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.BCEWithLogitsLoss()
dense_x = torch.rand(BATCH, DENSE, device="cuda")
lS_o = [torch.arange(0, BATCH * IDS_PER_BAG, IDS_PER_BAG, device="cuda") for _ in TABLE_SIZES]
lS_i = [torch.randint(0, n, (BATCH * IDS_PER_BAG,), device="cuda") for n in TABLE_SIZES]
target = torch.randint(0, 2, (BATCH, 1), device="cuda").float()

for it in range(2):
    logits = model(dense_x, lS_o, lS_i)
    loss = loss_fn(logits, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"iter {it}: loss {loss.item():.4f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

with torch.no_grad():
    scores = torch.sigmoid(model(dense_x, lS_o, lS_i))
print(f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
