# PointNet classification (fxia22/pointnet.pytorch's model.py): an input
# transform network (STN3d) and a feature transform (STNkd, k=64), shared
# per-point MLPs as Conv1d with kernel 1 and BatchNorm1d, max pooling over
# the points, a classifier with dropout, log_softmax and nll_loss plus the
# feature-transform regulariser; Adam at batch 14 x 1111 points.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class STNkd(nn.Module):
    def __init__(self, k=64):
        super().__init__()
        self.conv1 = nn.Conv1d(k, 64, 1)
        self.conv2 = nn.Conv1d(64, 128, 1)
        self.conv3 = nn.Conv1d(128, 1024, 1)
        self.fc1 = nn.Linear(1024, 512)
        self.fc2 = nn.Linear(512, 256)
        self.fc3 = nn.Linear(256, k * k)
        self.bn1, self.bn2, self.bn3 = nn.BatchNorm1d(64), nn.BatchNorm1d(128), nn.BatchNorm1d(1024)
        self.bn4, self.bn5 = nn.BatchNorm1d(512), nn.BatchNorm1d(256)
        self.k = k

    def forward(self, x):
        batchsize = x.size()[0]
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.relu(self.bn3(self.conv3(x)))
        x = torch.max(x, 2, keepdim=True)[0]
        x = x.view(-1, 1024)
        x = F.relu(self.bn4(self.fc1(x)))
        x = F.relu(self.bn5(self.fc2(x)))
        x = self.fc3(x)
        iden = torch.eye(self.k, device=x.device).flatten().view(1, self.k * self.k).repeat(batchsize, 1)
        x = x + iden
        return x.view(-1, self.k, self.k)


class PointNetfeat(nn.Module):
    def __init__(self):
        super().__init__()
        self.stn = STNkd(k=3)
        self.conv1 = nn.Conv1d(3, 64, 1)
        self.conv2 = nn.Conv1d(64, 128, 1)
        self.conv3 = nn.Conv1d(128, 1024, 1)
        self.bn1, self.bn2, self.bn3 = nn.BatchNorm1d(64), nn.BatchNorm1d(128), nn.BatchNorm1d(1024)
        self.fstn = STNkd(k=64)

    def forward(self, x):
        trans = self.stn(x)
        x = torch.bmm(x.transpose(2, 1), trans).transpose(2, 1)
        x = F.relu(self.bn1(self.conv1(x)))
        trans_feat = self.fstn(x)
        x = torch.bmm(x.transpose(2, 1), trans_feat).transpose(2, 1)
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.bn3(self.conv3(x))
        x = torch.max(x, 2, keepdim=True)[0]
        return x.view(-1, 1024), trans_feat


class PointNetCls(nn.Module):
    def __init__(self, k=40):
        super().__init__()
        self.feat = PointNetfeat()
        self.fc1 = nn.Linear(1024, 512)
        self.fc2 = nn.Linear(512, 256)
        self.fc3 = nn.Linear(256, k)
        self.dropout = nn.Dropout(p=0.3)
        self.bn1, self.bn2 = nn.BatchNorm1d(512), nn.BatchNorm1d(256)

    def forward(self, x):
        x, trans_feat = self.feat(x)
        x = F.relu(self.bn1(self.fc1(x)))
        x = F.relu(self.bn2(self.dropout(self.fc2(x))))
        return F.log_softmax(self.fc3(x), dim=1), trans_feat


def feature_transform_regularizer(trans):
    d = trans.size()[1]
    I = torch.eye(d, device=trans.device)[None, :, :]
    return torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - I, dim=(1, 2)))


classifier = PointNetCls(k=40).cuda()
optimizer = torch.optim.Adam(classifier.parameters(), lr=0.001, betas=(0.9, 0.999))
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
points = torch.randn(14, 1111, 3, device="cuda")
target = torch.randint(0, 40, (14,), device="cuda")
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for i in range(2):
    pts = points.transpose(2, 1)
    optimizer.zero_grad()
    classifier.train()
    pred, trans_feat = classifier(pts)
    loss = F.nll_loss(pred, target) + feature_transform_regularizer(trans_feat) * 0.001
    loss.backward()
    optimizer.step()
    pred_choice = pred.data.max(1)[1]
    correct = pred_choice.eq(target.data).cpu().sum()
    print(f"[{i}] loss {loss.item():.3f} accuracy {correct.item() / 14:.3f} allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

scheduler.step()
print(f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
