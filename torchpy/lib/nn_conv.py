# torch.nn, as gpumemrepl runs it (embedded by module_conv.go).
def _ntuple(v, n):
    # an int repeated n times, or the sequence as a tuple
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    # a subclass's _n is its number of spatial dimensions
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode='zeros', device=None, dtype=None):
        super().__init__()
        import torch
        n = self._n
        if groups <= 0:
            raise ValueError('groups must be a positive integer')
        if in_channels % groups != 0:
            raise ValueError('in_channels must be divisible by groups')
        if out_channels % groups != 0:
            raise ValueError('out_channels must be divisible by groups')
        if isinstance(padding, str):
            if padding not in ('valid', 'same'):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == 'same' and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in ('zeros', 'reflect', 'replicate', 'circular'):
            raise ValueError(f"padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got padding_mode='{padding_mode}'")
        if padding_mode != 'zeros':
            raise _refusal(NotImplementedError(f"{type(self).__name__}(padding_mode='{padding_mode}') is not modelled by gpumemrepl"))
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding
        self.dilation = _ntuple(dilation, n)
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = Parameter(torch.randn((out_channels, in_channels // groups) + self.kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.randn(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter('bias', None)

    def extra_repr(self):
        s = f'{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}'
        if self.padding != (0,) * len(self.kernel_size):
            s += f', padding={self.padding}'
        if self.dilation != (1,) * len(self.dilation):
            s += f', dilation={self.dilation}'
        if self.output_padding != (0,) * len(self.output_padding):
            s += f', output_padding={self.output_padding}'
        if self.groups != 1:
            s += f', groups={self.groups}'
        if self.bias is None:
            s += ', bias=False'
        return s

    def forward(self, input):
        conv = (functional.conv1d, functional.conv2d, functional.conv3d)[self._n - 1]
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros'): weight then bias; forward F.conv1d (cuDNN's, from the table of recorded configurations)."""
    _n = 1


class Conv2d(_ConvNd):
    """Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros'): weight then bias; forward F.conv2d (cuDNN's, from the table of recorded configurations)."""
    _n = 2


class Conv3d(_ConvNd):
    """Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros'): weight then bias; forward F.conv3d (cuDNN's, from the table of recorded configurations)."""
    _n = 3


class _ConvTransposeNd(_ConvNd):
    # the weight is [in_channels, out_channels // groups, *kernel_size]
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode='zeros', device=None, dtype=None):
        if padding_mode != 'zeros':
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected padding {padding!r}")
        Module.__init__(self)
        import torch
        n = self._n
        if groups <= 0:
            raise ValueError('groups must be a positive integer')
        if in_channels % groups != 0:
            raise ValueError('in_channels must be divisible by groups')
        if out_channels % groups != 0:
            raise ValueError('out_channels must be divisible by groups')
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = True
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = Parameter(torch.randn((in_channels, out_channels // groups) + self.kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.randn(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter('bias', None)

    def _output_padding(self, input, output_size):
        # output_padding that makes the output output_size, as PyTorch's ConvTransposeNd computes it
        if output_size is None:
            return self.output_padding
        n = self._n
        output_size = list(output_size)
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or {n + 2} elements (got {len(output_size)})")
        lows, highs = [], []
        for d in range(n):
            low = (input.size(d + input.dim() - n) - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] * (self.kernel_size[d] - 1) + 1
            lows.append(low)
            highs.append(low + self.stride[d] - 1)
        for d in range(n):
            if not lows[d] <= output_size[d] <= highs[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {lows} to {highs} (for an input of {list(input.size())[2:]})")
        return tuple(output_size[d] - lows[d] for d in range(n))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        conv = (functional.conv_transpose1d, functional.conv_transpose2d, functional.conv_transpose3d)[self._n - 1]
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros'): weight [in, out/groups, k] then bias; forward F.conv_transpose1d (cuDNN's: recorded configurations, others estimated)."""
    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros'): weight [in, out/groups, kh, kw] then bias; forward F.conv_transpose2d (cuDNN's: recorded configurations, others estimated)."""
    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """ConvTranspose3d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros'): weight [in, out/groups, kd, kh, kw] then bias; forward F.conv_transpose3d (cuDNN's: recorded configurations, others estimated)."""
    _n = 3
