# pytorch/examples' fast_neural_style TransformerNet: reflection-padded
# convolutions, InstanceNorm2d with affine parameters, five residual
# blocks, upsampling by F.interpolate before a convolution; a training
# step with a content loss (MSE against the input, no VGG) at batch 4 on
# 128x128 images with Adam, then stylising one 250x333 image under
# no_grad.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)


class ConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        return self.conv2d(self.reflection_pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        return out + residual


class UpsampleConvLayer(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        if self.upsample:
            x = F.interpolate(x, mode="nearest", scale_factor=self.upsample)
        return self.conv2d(self.reflection_pad(x))


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvLayer(3, 32, kernel_size=9, stride=1)
        self.in1 = nn.InstanceNorm2d(32, affine=True)
        self.conv2 = ConvLayer(32, 64, kernel_size=3, stride=2)
        self.in2 = nn.InstanceNorm2d(64, affine=True)
        self.conv3 = ConvLayer(64, 128, kernel_size=3, stride=2)
        self.in3 = nn.InstanceNorm2d(128, affine=True)
        self.res = nn.Sequential(*[ResidualBlock(128) for _ in range(5)])
        self.deconv1 = UpsampleConvLayer(128, 64, kernel_size=3, stride=1, upsample=2)
        self.in4 = nn.InstanceNorm2d(64, affine=True)
        self.deconv2 = UpsampleConvLayer(64, 32, kernel_size=3, stride=1, upsample=2)
        self.in5 = nn.InstanceNorm2d(32, affine=True)
        self.deconv3 = ConvLayer(32, 3, kernel_size=9, stride=1)
        self.relu = nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        return self.deconv3(y)


transformer = TransformerNet().cuda()
optimizer = torch.optim.Adam(transformer.parameters(), 1e-3)
mse_loss = nn.MSELoss()
x = torch.rand(4, 3, 128, 128, device="cuda") * 255
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for batch_id in range(2):
    optimizer.zero_grad()
    y = transformer(x)
    content_loss = 1e5 * mse_loss(y, x)
    content_loss.backward()
    optimizer.step()
    print(f"batch {batch_id}: content {content_loss.item():.1f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

transformer.eval()
content_image = torch.rand(1, 3, 252, 332, device="cuda") * 255
with torch.no_grad():
    output = transformer(content_image).cpu()
print(output.shape, f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
