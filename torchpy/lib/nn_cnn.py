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


class _NormBase(Module):
    # batch and instance norm's weight and bias (when affine), then their
    # running stats (when tracked), as PyTorch's _NormBase makes them
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

    def extra_repr(self):
        return f'{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, track_running_stats={self.track_running_stats}'


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        return self._batch_norm(input)

    def _batch_norm(self, input):
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
        training = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return functional.batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                                     self.weight, self.bias, training, factor, self.eps)


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


class BatchNorm3d(_BatchNorm):
    """BatchNorm3d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True): as BatchNorm2d, of a 5-d input."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f'expected 5D input (got {input.dim()}D input)')


class SyncBatchNorm(_BatchNorm):
    """SyncBatchNorm(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, process_group=None): BatchNorm's weights and buffers; with no process group initialized (the tool models one process, and torch.distributed.is_initialized() is False) PyTorch's forward falls back to F.batch_norm, as here. convert_sync_batchnorm(module) swaps every BatchNorm for one holding the same parameters and buffers (each new layer's own made on the host first, then dropped)."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f'expected at least 2D input (got {input.dim()}D input)')

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError('SyncBatchNorm number of input channels should be non-zero')
        return self._batch_norm(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        import torch
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats, process_group)
            if module.affine:
                with torch.no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, 'qconfig'):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-05):
    # PyTorch's composite: the weights and running stats repeated per
    # sample, batch norm over (1, N*C, ...), the running stats updated with
    # the samples' mean when the input's stats were used (in eval they are
    # not: testdata/pyrules/modules_census_nn.py recorded both)
    if use_input_stats:
        n = input.shape[0]
        for d in input.shape[2:]:
            n *= d
        if n == 1:
            raise ValueError(f'Expected more than 1 spatial element when training, got input size {input.shape}')
    b, c = input.shape[0], input.shape[1]
    weight_, bias_, mean_, var_ = (None if t is None else t.repeat(b) for t in (weight, bias, running_mean, running_var))
    shape = list(input.shape)
    shape[0], shape[1] = 1, b * c
    out = functional.batch_norm(input.contiguous().view(shape), mean_, var_, weight_, bias_, use_input_stats, momentum, eps)
    if use_input_stats and running_mean is not None:
        running_mean.copy_(mean_.view(b, c).mean(0))
    if use_input_stats and running_var is not None:
        running_var.copy_(var_.view(b, c).mean(0))
    return out.view(input.shape)


functional.instance_norm = instance_norm
del instance_norm


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    # PyTorch's Python: the norm, clamped, expanded, then the quotient;
    # each op's rule recorded (testdata/pyrules/ops_pad_interpolate.py)
    if out is not None:
        raise _refusal(NotImplementedError('F.normalize with out= is not modelled by gpumemrepl'))
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


functional.normalize = normalize
del normalize


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    # PyTorch's Python: Gumbel noise (an empty tensor drawn exponential_
    # in place, its log negated), added to the logits, divided by tau,
    # softmax; hard=True the one-hot of its argmax less the soft values
    # detached, plus them (testdata/pyrules/ops_census_misc.py)
    import torch
    gumbels = -torch.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


functional.gumbel_softmax = gumbel_softmax
del gumbel_softmax


class _InstanceNorm(_NormBase):
    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def _apply_instance_norm(self, input):
        return functional.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                                        self.training or not self.track_running_stats,
                                        self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        import warnings
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features ({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this warning by not passing in num_features, which is not used because affine=False")
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _check_input_dim(self, input):
        if input.dim() not in (self._no_batch_dim, self._no_batch_dim + 1):
            raise ValueError(f'expected {self._no_batch_dim}D or {self._no_batch_dim + 1}D input (got {input.dim()}D input)')


class InstanceNorm1d(_InstanceNorm):
    """InstanceNorm1d(num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False): F.instance_norm of a 2-d or 3-d input (estimated where running stats are tracked): PyTorch repeats the weights and running stats per sample and batch-normalizes the batch as one sample of N*C channels (output, and a float32 mean and inverse std per sample's channel, saved)."""
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """InstanceNorm2d(num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False): F.instance_norm of a 3-d or 4-d input (estimated where running stats are tracked): PyTorch repeats the weights and running stats per sample and batch-normalizes the batch as one sample of N*C channels (output, and a float32 mean and inverse std per sample's channel, saved)."""
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """InstanceNorm3d(num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False): F.instance_norm of a 4-d or 5-d input, as InstanceNorm2d."""
    _no_batch_dim = 4


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


def _single(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    # PyTorch's composite: max_pool2d over (..., 1, L), squeezed back
    if input.dim() not in (2, 3):
        raise RuntimeError(f'max_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}')
    k = _single(kernel_size)[0]
    st = k if stride is None or stride == () or stride == [] else _single(stride)[0]
    out = functional.max_pool2d(input.unsqueeze(-2), (1, k), (1, st), (0, _single(padding)[0]), (1, _single(dilation)[0]),
                                ceil_mode=ceil_mode, return_indices=return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    # PyTorch's composite: avg_pool2d over (..., 1, L), squeezed back
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)")
    k = _single(kernel_size)[0]
    st = k if stride is None or stride == () or stride == [] else _single(stride)[0]
    return functional.avg_pool2d(input.unsqueeze(-2), (1, k), (1, st), (0, _single(padding)[0]), ceil_mode, count_include_pad).squeeze(-2)


functional.max_pool1d = max_pool1d
functional.avg_pool1d = avg_pool1d
del max_pool1d, avg_pool1d


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(functional, self._op)(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                             ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, dilation={self.dilation}, ceil_mode={self.ceil_mode}'


class MaxPool1d(_MaxPoolNd):
    """MaxPool1d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False): F.max_pool1d, PyTorch's composite: max_pool2d of the input unsqueezed, its output and int64 indices (saved) squeezed back."""
    _op = 'max_pool1d'


class MaxPool2d(_MaxPoolNd):
    """MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False): F.max_pool2d; the output and int64 indices (saved)."""
    _op = 'max_pool2d'


class MaxPool3d(_MaxPoolNd):
    """MaxPool3d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False): F.max_pool3d; the output and int64 indices (saved), as max_pool2d (estimated)."""
    _op = 'max_pool3d'


class _AvgPoolNd(Module):
    def extra_repr(self):
        return f'kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}'


class AvgPool1d(_AvgPoolNd):
    """AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True): F.avg_pool1d, PyTorch's composite: avg_pool2d of the input unsqueezed, squeezed back; the output."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return functional.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class _AvgPoolDivisor(_AvgPoolNd):
    # AvgPool2d's and AvgPool3d's arguments (with divisor_override)
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(functional, self._op)(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                             self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolDivisor):
    """AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None): F.avg_pool2d; the output."""
    _op = 'avg_pool2d'


class AvgPool3d(_AvgPoolDivisor):
    """AvgPool3d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None): F.avg_pool3d; the output, as avg_pool2d (estimated)."""
    _op = 'avg_pool3d'


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


class AdaptiveMaxPool2d(Module):
    """AdaptiveMaxPool2d(output_size, return_indices=False): F.adaptive_max_pool2d (a None in output_size keeps the input's size); the output and int64 indices of its shape (estimated)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        size = self.output_size
        if isinstance(size, tuple) and None in size:
            size = tuple(input.shape[len(input.shape) - len(size) + i] if n is None else n for i, n in enumerate(size))
        return functional.adaptive_max_pool2d(input, size, self.return_indices)

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


def _adaptive_avg_pool1d(input, output_size):
    # PyTorch's composite: adaptive_avg_pool2d over (..., 1, L), squeezed back
    if input.dim() not in (2, 3):
        raise RuntimeError(f'adaptive_avg_pool1d() argument \'input\' (position 1) must be 2D or 3D, but got {input.dim()}D')
    return functional.adaptive_avg_pool2d(input.unsqueeze(-2), (1, _single(output_size)[0])).squeeze(-2)


def _adaptive_avg_pool3d(input, output_size):
    # to 1 PyTorch takes the mean over the last three dimensions; to other
    # sizes its own kernel, not modelled
    size = (output_size,) * 3 if isinstance(output_size, int) else tuple(output_size)
    if input.dim() not in (4, 5):
        raise RuntimeError(f'adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}')
    if any(n != 1 for n in size):
        raise _refusal(NotImplementedError(f'F.adaptive_avg_pool3d to {size} is not modelled by gpumemrepl (its kernel was not recorded); to 1 it is a mean'))
    # the mean over the last three dimensions (MeanBackward1), held to
    # testdata/pyrules/modules_census_nn.py statement by statement
    return input.mean((-3, -2, -1), keepdim=True)


def _feature_dropout(input, p, training, inplace):
    # PyTorch's feature_dropout: one draw a channel (noise of shape
    # [N, C, 1, ...], Bernoulli, scaled), multiplied into the input (held
    # to testdata/pyrules/modules_census_nn.py statement by statement)
    import torch
    if p < 0.0 or p > 1.0:
        raise ValueError(f'dropout probability has to be between 0 and 1, but got {p}')
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = torch.zeros((), device=input.device, dtype=input.dtype)
    else:
        noise = torch.empty(list(input.shape[:2]) + [1] * (input.dim() - 2), device=input.device, dtype=input.dtype)
        noise.bernoulli_(1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input.mul(noise)


def _dropout1d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (2, 3):
        raise RuntimeError(f'dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).')
    batched = input.dim() == 3
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _feature_dropout(input, p, training, inplace)
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


def _dropout2d(input, p=0.5, training=True, inplace=False):
    import warnings
    if input.dim() not in (3, 4):
        warnings.warn(f'dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will result in an error in a future release. To retain the behavior and silence this warning, please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).')
    if input.dim() == 3:
        warnings.warn('dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.')
    return _feature_dropout(input, p, training, inplace)


def _dropout3d(input, p=0.5, training=True, inplace=False):
    import warnings
    if input.dim() not in (4, 5):
        warnings.warn(f'dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will result in an error in a future release. To retain the behavior and silence this warning, please use dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).')
    batched = input.dim() == 5
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _feature_dropout(input, p, training, inplace)
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


functional.adaptive_avg_pool1d = _adaptive_avg_pool1d
functional.adaptive_avg_pool3d = _adaptive_avg_pool3d
functional.dropout1d = _dropout1d
functional.dropout2d = _dropout2d
functional.dropout3d = _dropout3d
del _adaptive_avg_pool1d, _adaptive_avg_pool3d, _dropout1d, _dropout2d, _dropout3d


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return getattr(functional, self._op)(input, self.output_size)

    def extra_repr(self):
        return f'output_size={self.output_size}'


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """AdaptiveAvgPool1d(output_size): F.adaptive_avg_pool1d, PyTorch's composite: adaptive_avg_pool2d of the input unsqueezed, squeezed back."""
    _op = 'adaptive_avg_pool1d'


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """AdaptiveAvgPool3d(output_size): F.adaptive_avg_pool3d; to 1 a mean over the last three dimensions, as PyTorch takes it (estimated); to other sizes refused."""
    _op = 'adaptive_avg_pool3d'


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f'dropout probability has to be between 0 and 1, but got {p}')
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return getattr(functional, self._op)(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f'p={self.p}, inplace={self.inplace}'


class Dropout1d(_DropoutNd):
    """Dropout1d(p=0.5, inplace=False): F.dropout1d, a channel dropped whole (estimated): a float noise of one value a channel, then the input times it (the noise saved)."""
    _op = 'dropout1d'


class Dropout2d(_DropoutNd):
    """Dropout2d(p=0.5, inplace=False): F.dropout2d, a channel dropped whole (estimated): a float noise of one value a channel, then the input times it (the noise saved)."""
    _op = 'dropout2d'


class Dropout3d(_DropoutNd):
    """Dropout3d(p=0.5, inplace=False): F.dropout3d, a channel dropped whole (estimated): a float noise of one value a channel, then the input times it (the noise saved)."""
    _op = 'dropout3d'


class _PadNd(Module):
    # the padding modules over F.pad: padding an int (the same on every
    # side) or the 2n sides
    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = (padding,) * (2 * self._n) if isinstance(padding, int) else tuple(padding)
        if value is not None:
            self.value = value

    def forward(self, input):
        if self._mode == 'constant':
            return functional.pad(input, self.padding, 'constant', self.value)
        return functional.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f'{self.padding}'


class _ConstantPadNd(_PadNd):
    _mode = 'constant'

    def extra_repr(self):
        return f'padding={self.padding}, value={self.value}'


class ConstantPad1d(_ConstantPadNd):
    """ConstantPad1d(padding, value): F.pad(input, padding, 'constant', value) (estimated)."""
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """ConstantPad2d(padding, value): F.pad(input, padding, 'constant', value) (estimated)."""
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """ConstantPad3d(padding, value): F.pad(input, padding, 'constant', value) (estimated)."""
    _n = 3


class ZeroPad1d(ConstantPad1d):
    """ZeroPad1d(padding): F.pad with zeros (estimated)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f'{self.padding}'


class ZeroPad2d(ConstantPad2d):
    """ZeroPad2d(padding): F.pad with zeros (estimated)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f'{self.padding}'


class ZeroPad3d(ConstantPad3d):
    """ZeroPad3d(padding): F.pad with zeros (estimated)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f'{self.padding}'


class ReflectionPad1d(_PadNd):
    """ReflectionPad1d(padding): F.pad(input, padding, 'reflect') (estimated; its backward refused)."""
    _n, _mode = 1, 'reflect'


class ReflectionPad2d(_PadNd):
    """ReflectionPad2d(padding): F.pad(input, padding, 'reflect') (estimated; its backward refused)."""
    _n, _mode = 2, 'reflect'


class ReflectionPad3d(_PadNd):
    """ReflectionPad3d(padding): F.pad(input, padding, 'reflect') (estimated; its backward refused)."""
    _n, _mode = 3, 'reflect'


class ReplicationPad1d(_PadNd):
    """ReplicationPad1d(padding): F.pad(input, padding, 'replicate') (estimated; its backward refused)."""
    _n, _mode = 1, 'replicate'


class ReplicationPad2d(_PadNd):
    """ReplicationPad2d(padding): F.pad(input, padding, 'replicate') (estimated; its backward refused)."""
    _n, _mode = 2, 'replicate'


class ReplicationPad3d(_PadNd):
    """ReplicationPad3d(padding): F.pad(input, padding, 'replicate') (estimated; its backward refused)."""
    _n, _mode = 3, 'replicate'


class PixelShuffle(Module):
    """PixelShuffle(upscale_factor): F.pixel_shuffle, one output (estimated)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return functional.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f'upscale_factor={self.upscale_factor}'


class PixelUnshuffle(Module):
    """PixelUnshuffle(downscale_factor): F.pixel_unshuffle, one output (estimated)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return functional.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f'downscale_factor={self.downscale_factor}'


def _local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    # PyTorch's composite: the squares averaged over size neighbouring
    # channels (padded, pooled), scaled, raised to beta; the input divided
    # by it
    d = input.dim()
    if d < 3:
        raise ValueError(f'Expected 3D or higher dimensionality input (got {d} dimensions)')
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if d == 3:
        div = div.unsqueeze(1)
        div = functional.pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = functional.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = functional.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = functional.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


functional.local_response_norm = _local_response_norm
del _local_response_norm


class LocalResponseNorm(Module):
    """LocalResponseNorm(size, alpha=0.0001, beta=0.75, k=1.0): F.local_response_norm, PyTorch's composite (the squares padded and average-pooled across channels, scaled, raised to beta, divided into the input); estimated through F.pad's and the 3-d pooling's rules."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return functional.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return '{size}, alpha={alpha}, beta={beta}, k={k}'.format(**self.__dict__)
