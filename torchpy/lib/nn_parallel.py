# torch.nn.parallel, as gpumemrepl runs it (embedded by eager_nn.go), in
# one process: DistributedDataParallel needs the default process group,
# which never exists here, and fails as PyTorch's does without one;
# DataParallel and data_parallel over one GPU run the module on it (the
# inputs already there are scattered as views of themselves, so nothing is
# allocated); over several GPUs (replicas, a gather) they are refused.


class DistributedDataParallel(Module):
    """DistributedDataParallel(module, device_ids=None, ...): in one process without init_process_group, PyTorch's ValueError (the default process group has not been initialized)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        if process_group is None and device_mesh is None:
            raise ValueError('Default process group has not been initialized, please make sure to call init_process_group.')
        raise _refusal(NotImplementedError('DistributedDataParallel is not modelled by gpumemrepl: it runs one process, without a process group'))


def _device_index(d):
    import torch
    if isinstance(d, int):
        return d
    return torch.device(d).index or 0


def _one_device(device_ids):
    import torch
    if device_ids is None:
        device_ids = list(range(torch.cuda.device_count()))
    if len(device_ids) > 1:
        raise _refusal(NotImplementedError('DataParallel over %d GPUs is not modelled by gpumemrepl: each forward replicates the module '
                                           'on every GPU, scatters the batch and gathers the outputs; give device_ids=[0] to run on one'
                                           % len(device_ids)))
    return torch.device('cuda', _device_index(device_ids[0]))


def _scatter(obj, device):
    # Scatter to one GPU: a tensor already there is its own chunk (a view,
    # no memory); a host tensor is copied on a side stream, not modelled
    import torch
    if isinstance(obj, torch.Tensor):
        if obj.device != device:
            raise _refusal(NotImplementedError('DataParallel of an input on %s is not modelled by gpumemrepl: its scatter copies it '
                                               'to %s on a side stream; move it there first' % (obj.device, device)))
        if obj.requires_grad:
            raise _refusal(NotImplementedError('DataParallel of an input that requires grad is not modelled by gpumemrepl: its '
                                               "scatter's backward gathers the gradient into a copy"))
        return obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(_scatter(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: _scatter(v, device) for k, v in obj.items()}
    return obj


def _check_on(module, device):
    for t in list(module.parameters()) + list(module.buffers()):
        if t.device != device:
            raise RuntimeError(f'module must have its parameters and buffers on device {device} (device_ids[0]) but found '
                               f'one of them on device: {t.device}')


class DataParallel(Module):
    """DataParallel(module, device_ids=None, output_device=None, dim=0): over one GPU, the module moved there and run on the inputs as they are (PyTorch's scatter to one GPU makes views); over several, refused."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        import torch
        self.module = module
        if not torch.cuda.is_available():
            self.device_ids = []
            return
        self.src_device_obj = _one_device(device_ids)
        self.dim = dim
        self.device_ids = [self.src_device_obj.index]
        self.output_device = _device_index(output_device) if output_device is not None else self.device_ids[0]
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        _check_on(self.module, self.src_device_obj)
        return self.module(*_scatter(inputs, self.src_device_obj), **_scatter(kwargs, self.src_device_obj))


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None): DataParallel's forward once."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    device = _one_device(device_ids)
    _check_on(module, device)
    return module(*_scatter(inputs, device), **_scatter(module_kwargs or {}, device))


del Module
