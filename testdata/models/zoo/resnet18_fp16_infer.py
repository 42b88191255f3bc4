# ResNet-18 (torchvision's BasicBlock) converted to half precision for
# inference at batch 5 on 160x160 images, as a deployment script does:
# model.half().eval(), inference_mode, softmax and the top-5 classes.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)), inplace=True)
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            x = self.downsample(x)
        return F.relu(out + x, inplace=True)


class ResNet18(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        blocks, inplanes = [], 64
        for planes, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            blocks += [BasicBlock(inplanes, planes, stride), BasicBlock(planes, planes)]
            inplanes = planes
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


model = ResNet18().cuda().half().eval()
print(f"model: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")
batch = torch.rand(5, 3, 160, 160, device="cuda")
mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1)
batch = ((batch - mean) / std).half()

with torch.inference_mode():
    logits = model(batch)
    probs = torch.softmax(logits.float(), dim=1)
    top5 = probs.topk(5, dim=1)

print(top5.indices.shape, top5.values.dtype)
print(f"allocated {torch.cuda.memory_allocated() / 2**20:.2f} MiB, peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.2f} MiB")
del logits, probs
torch.cuda.empty_cache()
print(f"after empty_cache: reserved {torch.cuda.memory_reserved() / 2**20:.2f} MiB")
