# torch.nn.init, as gpumemrepl runs it (embedded by nninit.go).
import math
import warnings


def calculate_gain(nonlinearity, param=None):
    if nonlinearity in ('linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d',
                        'conv_transpose3d', 'sigmoid'):
        return 1
    if nonlinearity == 'tanh':
        return 5.0 / 3
    if nonlinearity == 'relu':
        return math.sqrt(2.0)
    if nonlinearity == 'leaky_relu':
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f'negative_slope {param} not a valid number')
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == 'selu':
        return 3.0 / 4
    raise ValueError(f'Unsupported nonlinearity {nonlinearity}')


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError('Fan in and fan out can not be computed for tensor with fewer than 2 dimensions')
    field = 1
    for d in tensor.shape[2:]:
        field *= d
    return tensor.size(1) * field, tensor.size(0) * field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ('fan_in', 'fan_out'):
        raise ValueError(f'Mode {mode} not supported, please use one of fan_in, fan_out')
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == 'fan_in' else fan_out


def _filled(tensor, fill, *args):
    import torch
    with torch.no_grad():
        getattr(tensor, fill)(*args)
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    return _filled(tensor, 'uniform_', a, b)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    return _filled(tensor, 'normal_', mean, std)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn('mean is more than 2 std from [a, b] in nn.init.trunc_normal_. '
                      'The distribution of values may be incorrect.', stacklevel=2)
    return _filled(tensor, 'uniform_', -1.0, 1.0)


def constant_(tensor, val):
    return _filled(tensor, 'fill_', val)


def ones_(tensor):
    return _filled(tensor, 'fill_', 1.0)


def zeros_(tensor):
    return _filled(tensor, 'zero_')


def eye_(tensor):
    if tensor.dim() != 2:
        raise ValueError('Only tensors with 2 dimensions are supported')
    _filled(tensor, 'zero_')
    _forget_values(tensor)
    return tensor


def dirac_(tensor, groups=1):
    if tensor.dim() not in (3, 4, 5):
        raise ValueError('Only tensors with 3, 4, or 5 dimensions are supported')
    if tensor.size(0) % groups != 0:
        raise ValueError('dim 0 must be divisible by groups')
    _filled(tensor, 'zero_')
    _forget_values(tensor)
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _filled(tensor, 'uniform_', -bound, bound)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return _filled(tensor, 'normal_', 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    if 0 in tensor.shape:
        warnings.warn('Initializing zero-element tensors is a no-op')
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return _filled(tensor, 'uniform_', -bound, bound)


def kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None):
    if 0 in tensor.shape:
        warnings.warn('Initializing zero-element tensors is a no-op')
        return tensor
    return _filled(tensor, 'normal_', 0.0, _kaiming_std(tensor, a, mode, nonlinearity))


def orthogonal_(tensor, gain=1, generator=None):
    raise _refusal(NotImplementedError('torch.nn.init.orthogonal_ is not modelled by gpumemrepl (its QR temporaries were not recorded)'))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    raise _refusal(NotImplementedError('torch.nn.init.sparse_ is not modelled by gpumemrepl'))
