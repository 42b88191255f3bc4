# torch.nn.utils, as gpumemrepl runs it (embedded by nninit.go).
def _grads(parameters):
    import torch
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    import torch
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if len(grads) == 0:
        return torch.tensor(0.0)
    if error_if_nonfinite:
        raise _refusal(NotImplementedError('clip_grad_norm_(error_if_nonfinite=True) is not modelled by gpumemrepl: '
                                           'it branches on the norm, a value the tool does not compute'))
    return _clip_grad_norm(grads, norm_type, foreach is not False and all(g.is_cuda for g in grads))


def clip_grad_value_(parameters, clip_value, foreach=None):
    import torch
    clip_value = float(clip_value)
    with torch.no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def skip_init(module_cls, *args, **kwargs):
    import torch
    if not issubclass(module_cls, torch.nn.Module):
        raise RuntimeError(f'Expected a Module; got {module_cls}')
    final_device = kwargs.pop('device', 'cpu')
    kwargs['device'] = 'meta'
    return module_cls(*args, **kwargs).to_empty(device=final_device)


def parameters_to_vector(parameters):
    raise _refusal(NotImplementedError('torch.nn.utils.parameters_to_vector is not modelled by gpumemrepl'))


def vector_to_parameters(vec, parameters):
    raise _refusal(NotImplementedError('torch.nn.utils.vector_to_parameters is not modelled by gpumemrepl'))


class WeightNorm:
    # the forward pre-hook weight_norm registers: before each forward the
    # weight is made again from its direction (NAME_v) and magnitude
    # (NAME_g), replacing the one before
    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        import torch
        return torch._weight_norm(getattr(module, self.name + '_v'), getattr(module, self.name + '_g'), self.dim)

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name='weight', dim=0):
    import torch
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            raise RuntimeError(f'Cannot register two weight_norm hooks on the same parameter {name}')
    fn = WeightNorm(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + '_g', torch.nn.Parameter(torch.norm_except_dim(weight, 2, fn.dim).data))
    module.register_parameter(name + '_v', torch.nn.Parameter(weight.data))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def remove_weight_norm(module, name='weight'):
    import torch
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            weight = hook.compute_weight(module)
            delattr(module, name)
            del module._parameters[name + '_g']
            del module._parameters[name + '_v']
            setattr(module, name, torch.nn.Parameter(weight.data))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
