# torch.nn, as gpumemrepl runs it (embedded by module_cnn.go).
def _weight_and_bias(module, n, affine, device, dtype):
    # a norm layer's weight (ones) and bias (zeros), or None for both
    import torch
    if affine:
        module.weight = Parameter(torch.ones(n, device=device, dtype=dtype))
        module.bias = Parameter(torch.zeros(n, device=device, dtype=dtype))
    else:
        module.register_parameter('weight', None)
        module.register_parameter('bias', None)


class _BatchNorm(Module):
    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        super().__init__()
        import torch
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _weight_and_bias(self, num_features, affine, device, dtype)
        if track_running_stats:
            self.register_buffer('running_mean', torch.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer('running_var', torch.ones(num_features, device=device, dtype=dtype))
            self.register_buffer('num_batches_tracked', torch.tensor(0, dtype=torch.long, device=device))
        else:
            self.register_buffer('running_mean', None)
            self.register_buffer('running_var', None)
            self.register_buffer('num_batches_tracked', None)

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
        training = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return functional.batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                                     self.weight, self.bias, training, factor, self.eps)

    def extra_repr(self):
        return f'{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, track_running_stats={self.track_running_stats}'


class BatchNorm1d(_BatchNorm):
    """BatchNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True): weight, bias, then the buffers running_mean, running_var, num_batches_tracked (int64); forward F.batch_norm of a 2-d or 3-d input."""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f'expected 2D or 3D input (got {input.dim()}D input)')


class BatchNorm2d(_BatchNorm):
    """BatchNorm2d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True): weight, bias, then the buffers running_mean, running_var, num_batches_tracked (int64); forward F.batch_norm of a 4-d input (cuDNN's in training: output, save_mean and save_invstd saved)."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f'expected 4D input (got {input.dim()}D input)')


class GroupNorm(Module):
    """GroupNorm(num_groups, num_channels, eps=1e-05, affine=True): weight and bias; forward F.group_norm: the output, mean and rstd saved."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError('num_channels must be divisible by num_groups')
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _weight_and_bias(self, num_channels, affine, device, dtype)

    def forward(self, input):
        return functional.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f'{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}'


class MaxPool2d(Module):
    """MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False): F.max_pool2d; the output and int64 indices (saved)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return functional.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                     ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, dilation={self.dilation}, ceil_mode={self.ceil_mode}'


class AvgPool2d(Module):
    """AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None): F.avg_pool2d; the output."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return functional.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                     self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}'


class AdaptiveAvgPool2d(Module):
    """AdaptiveAvgPool2d(output_size): F.adaptive_avg_pool2d (a None in output_size keeps the input's size); to 1, a mean over the last two dimensions."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        size = self.output_size
        if isinstance(size, tuple) and None in size:
            # a None keeps the input's size there
            size = tuple(input.shape[len(input.shape) - len(size) + i] if n is None else n for i, n in enumerate(size))
        return functional.adaptive_avg_pool2d(input, size)

    def extra_repr(self):
        return f'output_size={self.output_size}'


class ReLU(Module):
    """ReLU(inplace=False): F.relu, a new tensor (its result saved); inplace=True: input.relu_(), no memory."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        if self.inplace:
            return input.relu_()
        return functional.relu(input)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class _AlongDim(Module):
    # Softmax and LogSoftmax: the functional form named _op along dim
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return getattr(functional, self._op)(input, self.dim)

    def extra_repr(self):
        return f'dim={self.dim}'


class Softmax(_AlongDim):
    """Softmax(dim=None): F.softmax along dim; its result saved."""
    _op = 'softmax'


class LogSoftmax(_AlongDim):
    """LogSoftmax(dim=None): F.log_softmax along dim; its result saved."""
    _op = 'log_softmax'
