# nn.Upsample over F.interpolate and the activations Hardtanh, ReLU6,
# Hardswish, Hardsigmoid and PReLU over theirs, as PyTorch writes them; and the
# functional names that are torch's own ops (F.relu with its inplace=,
# F.relu_, F.sigmoid, F.tanh).


class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) else scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return functional.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                                      recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = 'scale_factor=' + repr(self.scale_factor)
        else:
            info = 'size=' + repr(self.size)
        return info + ', mode=' + repr(self.mode)


def _relu(input, inplace=False):
    import torch
    if inplace:
        return input.relu_()
    return torch.relu(input)


def _relu_(input):
    return input.relu_()


def _sigmoid(input):
    return input.sigmoid()


def _tanh(input):
    return input.tanh()


functional.relu = _relu
functional.relu_ = _relu_
functional.sigmoid = _sigmoid
functional.tanh = _tanh
del _relu, _relu_, _sigmoid, _tanh


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):
        return functional.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return 'min_val={}, max_val={}{}'.format(self.min_val, self.max_val, ', inplace=True' if self.inplace else '')


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def forward(self, input):
        return functional.relu6(input, self.inplace)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class Hardswish(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return functional.hardswish(input, self.inplace)


class Hardsigmoid(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return functional.hardsigmoid(input, self.inplace)


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        import torch
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(torch.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        import torch
        torch.nn.init.constant_(self.weight, self.init)

    def forward(self, input):
        return functional.prelu(input, self.weight)

    def extra_repr(self):
        return f'num_parameters={self.num_parameters}'
