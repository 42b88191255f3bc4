#!/usr/bin/env python3
"""The convolutions of the common image networks, as data: for each family
(torchvision's and timm's ResNet, ResNeXt and Wide ResNet, VGG, MobileNet V2
and V3, EfficientNet B0-B4, DenseNet, ConvNeXt, a U-Net, DCGAN, the ViT and
Swin patch embeddings, CIFAR's ResNet) the distinct convolution layers one
forward and backward runs at a given input resolution, written out from the
published architectures (layer widths, kernels, strides, groups, whether
the layer has a bias). No PyTorch needed: scripts/probe_conv_grid.py takes
its grid from here, and --check there compares these lists with
torchvision's own models on the GPU machine.

    python3 scripts/conv_networks.py [--count]

Each layer is a dict: c (input channels), k (output channels), h, w (input
size), r (kernel, square), stride, pad, groups, bias, transposed (a 2x2
ConvTranspose2d: the U-Net's, DCGAN's), first (its input is the image:
autograd asks no input gradient).
"""
import math
import sys

RESOLUTIONS = [32, 64, 96, 128, 224, 256, 384, 512]


def out_size(h, r, stride, pad, dil=1):
    """A convolution's output size along one dimension."""
    return (h + 2 * pad - dil * (r - 1) - 1) // stride + 1


class Net:
    """Collects a network's layers as it is walked at one resolution."""

    def __init__(self, res):
        self.h = res
        self.layers = []

    def conv(self, c, k, r, stride=1, pad=None, groups=1, bias=False, h=None, first=False):
        """A conv of input size h (the walk's current size by default);
        returns its output size and makes it the current one."""
        h = self.h if h is None else h
        pad = (r - 1) // 2 if pad is None else pad
        self.layers.append(dict(c=c, k=k, h=h, w=h, r=r, stride=stride, pad=pad, groups=groups, bias=bias,
                                transposed=False, first=first))
        self.h = out_size(h, r, stride, pad)
        return self.h

    def up(self, c, k, r=2, stride=2, pad=0, bias=True, first=False):
        """A ConvTranspose2d (the U-Net's: 2x2, stride 2, a bias)."""
        self.layers.append(dict(c=c, k=k, h=self.h, w=self.h, r=r, stride=stride, pad=pad, groups=1, bias=bias,
                                transposed=True, first=first))
        self.h = (self.h - 1) * stride - 2 * pad + r

    def pool(self, r=2, stride=2, pad=0, ceil=False):
        """A max or average pool."""
        if ceil:
            self.h = -(-(self.h + 2 * pad - r) // stride) + 1
        else:
            self.h = out_size(self.h, r, stride, pad)


def resnet(res, blocks, bottleneck, groups=1, width_per_group=64):
    """torchvision's ResNet (v1.5: a bottleneck's stride on its 3x3)."""
    n = Net(res)
    n.conv(3, 64, 7, 2, 3, first=True)
    n.pool(3, 2, 1)
    cin = 64
    for i, (planes, count) in enumerate(zip([64, 128, 256, 512], blocks)):
        for b in range(count):
            stride = 2 if i > 0 and b == 0 else 1
            h = n.h
            if bottleneck:
                width = planes * width_per_group // 64 * groups
                n.conv(cin, width, 1, 1, 0)
                n.conv(width, width, 3, stride, 1, groups)
                n.conv(width, planes * 4, 1, 1, 0)
                out = planes * 4
            else:
                n.conv(cin, planes, 3, stride, 1)
                n.conv(planes, planes, 3, 1, 1)
                out = planes
            if stride != 1 or cin != out:
                n.conv(cin, out, 1, stride, 0, h=h)
            cin = out
    return n.layers


def resnet_cifar(res):
    """The CIFAR ResNet-18 of tutorials: a 3x3 stem, no max pool."""
    n = Net(res)
    n.conv(3, 64, 3, 1, 1, first=True)
    cin = 64
    for i, planes in enumerate([64, 128, 256, 512]):
        for b in range(2):
            stride = 2 if i > 0 and b == 0 else 1
            h = n.h
            n.conv(cin, planes, 3, stride, 1)
            n.conv(planes, planes, 3, 1, 1)
            if stride != 1 or cin != planes:
                n.conv(cin, planes, 1, stride, 0, h=h)
            cin = planes
    return n.layers


VGG16 = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]
VGG11 = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]


def vgg(res, cfg):
    """torchvision's VGG (3x3 convs with a bias, 2x2 max pools)."""
    n = Net(res)
    cin = 3
    for v in cfg:
        if v == "M":
            n.pool()
        else:
            n.conv(cin, v, 3, 1, 1, bias=True, first=cin == 3)
            cin = v
    return n.layers


def divisible(v, d=8):
    """torchvision's _make_divisible: v to a multiple of d, not below 90%."""
    new = max(d, int(v + d / 2) // d * d)
    return new + d if new < 0.9 * v else new


def mobilenet_v2(res):
    """torchvision's MobileNetV2 (width 1.0)."""
    n = Net(res)
    n.conv(3, 32, 3, 2, 1, first=True)
    cin = 32
    for t, c, count, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                           (6, 320, 1, 1)]:
        for i in range(count):
            hidden = cin * t
            if t != 1:
                n.conv(cin, hidden, 1, 1, 0)
            n.conv(hidden, hidden, 3, s if i == 0 else 1, 1, groups=hidden)
            n.conv(hidden, c, 1, 1, 0)
            cin = c
    n.conv(320, 1280, 1, 1, 0)
    return n.layers


MBV3_LARGE = [(3, 16, 16, False, 1), (3, 64, 24, False, 2), (3, 72, 24, False, 1), (5, 72, 40, True, 2),
              (5, 120, 40, True, 1), (5, 120, 40, True, 1), (3, 240, 80, False, 2), (3, 200, 80, False, 1),
              (3, 184, 80, False, 1), (3, 184, 80, False, 1), (3, 480, 112, True, 1), (3, 672, 112, True, 1),
              (5, 672, 160, True, 2), (5, 960, 160, True, 1), (5, 960, 160, True, 1)]
MBV3_SMALL = [(3, 16, 16, True, 2), (3, 72, 24, False, 2), (3, 88, 24, False, 1), (5, 96, 40, True, 2),
              (5, 240, 40, True, 1), (5, 240, 40, True, 1), (5, 120, 48, True, 1), (5, 144, 48, True, 1),
              (5, 288, 96, True, 2), (5, 576, 96, True, 1), (5, 576, 96, True, 1)]


def mobilenet_v3(res, blocks, last):
    """torchvision's MobileNetV3 (Large or Small): blocks of (kernel,
    expanded, out, squeeze-excitation, stride); SE's two 1x1 convs with a
    bias on the pooled 1x1 map."""
    n = Net(res)
    n.conv(3, 16, 3, 2, 1, first=True)
    cin = 16
    for r, exp, out, se, s in blocks:
        if exp != cin:
            n.conv(cin, exp, 1, 1, 0)
        n.conv(exp, exp, r, s, (r - 1) // 2, groups=exp)
        if se:
            sq = divisible(exp // 4)
            h = n.h
            n.conv(exp, sq, 1, 1, 0, bias=True, h=1)
            n.conv(sq, exp, 1, 1, 0, bias=True, h=1)
            n.h = h
        n.conv(exp, out, 1, 1, 0)
        cin = out
    n.conv(cin, last, 1, 1, 0)
    return n.layers


EFFNET_B0 = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
             (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
EFFNET_SCALE = {"b0": (1.0, 1.0), "b1": (1.0, 1.1), "b2": (1.1, 1.2), "b3": (1.2, 1.4), "b4": (1.4, 1.8)}


def efficientnet(res, variant):
    """torchvision's EfficientNet B0-B4: MBConv (expand 1x1, depthwise,
    squeeze-excitation of input/4 channels, project 1x1), widths and depths
    scaled."""
    width, depth = EFFNET_SCALE[variant]
    n = Net(res)
    stem = divisible(32 * width)
    n.conv(3, stem, 3, 2, 1, first=True)
    cin = stem
    for t, r, s, _, c, count in EFFNET_B0:
        out = divisible(c * width)
        for i in range(int(math.ceil(count * depth))):
            hidden = divisible(cin * t)
            if t != 1:
                n.conv(cin, hidden, 1, 1, 0)
            n.conv(hidden, hidden, r, s if i == 0 else 1, (r - 1) // 2, groups=hidden)
            sq = max(1, cin // 4)
            h = n.h
            n.conv(hidden, sq, 1, 1, 0, bias=True, h=1)
            n.conv(sq, hidden, 1, 1, 0, bias=True, h=1)
            n.h = h
            n.conv(hidden, out, 1, 1, 0)
            cin = out
    n.conv(cin, 4 * divisible(320 * width), 1, 1, 0)
    return n.layers


def densenet(res, blocks, growth=32, stem=64):
    """torchvision's DenseNet: per layer a 1x1 to 4*growth and a 3x3 to
    growth, transitions 1x1 halving the channels then a 2x2 average pool."""
    n = Net(res)
    n.conv(3, stem, 7, 2, 3, first=True)
    n.pool(3, 2, 1)
    c = stem
    for i, count in enumerate(blocks):
        for _ in range(count):
            n.conv(c, 4 * growth, 1, 1, 0)
            n.conv(4 * growth, growth, 3, 1, 1)
            c += growth
        if i < len(blocks) - 1:
            n.conv(c, c // 2, 1, 1, 0)
            c //= 2
            n.pool()
    return n.layers


def convnext(res, dims):
    """ConvNeXt (torchvision's and timm's): a 4x4 stride-4 stem, 7x7
    depthwise convs, 2x2 stride-2 downsampling, all with a bias (the MLPs
    are Linear layers)."""
    n = Net(res)
    n.conv(3, dims[0], 4, 4, 0, bias=True, first=True)
    for i, d in enumerate(dims):
        if i > 0:
            n.conv(dims[i - 1], d, 2, 2, 0, bias=True)
        n.conv(d, d, 7, 1, 3, groups=d, bias=True)
    return n.layers


def unet(res, classes=2):
    """milesial's U-Net: double 3x3 convs without bias (BatchNorm after),
    2x2 max pools, ConvTranspose2d(2, stride 2) up, a 1x1 head."""
    n = Net(res)
    widths = [64, 128, 256, 512, 1024]
    sizes = []
    cin = 3
    for i, c in enumerate(widths):
        if i > 0:
            n.pool()
        n.conv(cin, c, 3, 1, 1, first=i == 0)
        n.conv(c, c, 3, 1, 1)
        sizes.append(n.h)
        cin = c
    for c in reversed(widths[:-1]):
        n.up(cin, c)
        n.h = sizes[widths.index(c)]  # padded to the skip's size
        n.conv(2 * c, c, 3, 1, 1)
        n.conv(c, c, 3, 1, 1)
        cin = c
    n.conv(64, classes, 1, 1, 0, bias=True)
    return n.layers


def dcgan(res):
    """pytorch/examples' DCGAN at 64x64 (nz 100, ngf = ndf = 64): the
    generator's transposed 4x4 convolutions from the 1x1 noise, the
    discriminator's 4x4 stride-2 ones, none with a bias."""
    if res != 64:
        return []
    g = Net(1)
    cin = 100
    for i, c in enumerate([512, 256, 128, 64, 3]):
        g.up(cin, c, 4, 1 if i == 0 else 2, 0 if i == 0 else 1, bias=False, first=i == 0)
        cin = c
    d = Net(64)
    cin = 3
    for i, c in enumerate([64, 128, 256, 512]):
        d.conv(cin, c, 4, 2, 1, first=i == 0)
        cin = c
    d.conv(512, 1, 4, 1, 0)
    return g.layers + d.layers


def patch_embed(res, patch, dim):
    """A ViT's or Swin's patch embedding: one conv, kernel = stride = patch."""
    n = Net(res)
    if res % patch:
        return []
    n.conv(3, dim, patch, patch, 0, bias=True, first=True)
    return n.layers


FAMILIES = {
    "resnet18": lambda r: resnet(r, [2, 2, 2, 2], False),
    "resnet34": lambda r: resnet(r, [3, 4, 6, 3], False),
    "resnet50": lambda r: resnet(r, [3, 4, 6, 3], True),
    "resnext50_32x4d": lambda r: resnet(r, [3, 4, 6, 3], True, 32, 4),
    "wide_resnet50_2": lambda r: resnet(r, [3, 4, 6, 3], True, 1, 128),
    "resnet18_cifar": resnet_cifar,
    "vgg16": lambda r: vgg(r, VGG16),
    "vgg11": lambda r: vgg(r, VGG11),
    "mobilenet_v2": mobilenet_v2,
    "mobilenet_v3_large": lambda r: mobilenet_v3(r, MBV3_LARGE, 960),
    "mobilenet_v3_small": lambda r: mobilenet_v3(r, MBV3_SMALL, 576),
    "efficientnet_b0": lambda r: efficientnet(r, "b0"),
    "efficientnet_b1": lambda r: efficientnet(r, "b1"),
    "efficientnet_b2": lambda r: efficientnet(r, "b2"),
    "efficientnet_b3": lambda r: efficientnet(r, "b3"),
    "efficientnet_b4": lambda r: efficientnet(r, "b4"),
    "densenet121": lambda r: densenet(r, [6, 12, 24, 16]),
    "convnext_tiny": lambda r: convnext(r, [96, 192, 384, 768]),
    "convnext_base": lambda r: convnext(r, [128, 256, 512, 1024]),
    "unet": unet,
    "dcgan": dcgan,
    "vit_b_16": lambda r: patch_embed(r, 16, 768),
    "vit_s_16": lambda r: patch_embed(r, 16, 384),
    "vit_ti_16": lambda r: patch_embed(r, 16, 192),
    "vit_b_32": lambda r: patch_embed(r, 32, 768),
    "swin_t": lambda r: patch_embed(r, 4, 96),
}


def layer_key(l):
    """A layer's configuration without its batch."""
    return tuple(sorted(l.items()))


def distinct(families=None, resolutions=RESOLUTIONS):
    """The distinct layers of the families over the resolutions, each with
    the families that run it: {key: set(names)}."""
    out = {}
    for name in families or FAMILIES:
        for res in resolutions:
            for l in FAMILIES[name](res):
                if l["h"] < 1:
                    continue
                out.setdefault(layer_key(l), set()).add(name)
    return out


def main():
    d = distinct()
    if "--count" in sys.argv:
        for name in FAMILIES:
            mine = distinct([name])
            print(f"{name:20s} {len(mine):5d} layers over {len(RESOLUTIONS)} resolutions")
        print(f"{'all':20s} {len(d):5d}")
        return
    for key in sorted(d):
        print(dict(key), sorted(d[key]))


if __name__ == "__main__":
    main()
