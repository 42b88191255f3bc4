# torch.distributed as a single process sees it before
# init_process_group: PyTorch is built with it, no group exists, and the
# functions that need the default group say so as PyTorch does (the
# collectives, send and recv, DistributedDataParallel in torch.nn.parallel).
# Process groups themselves are not modelled: init_process_group fails as
# PyTorch's does where its rendezvous lacks what it needs, and is refused
# where it would start one (NCCL's buffers are not the caching
# allocator's, and the tool runs one process).
import os

_no_group = "Default process group has not been initialized, please make sure to call init_process_group."


def is_available():
    return True


def is_initialized():
    return False


def is_torchelastic_launched():
    return False


def get_rank(group=None):
    raise ValueError(_no_group)


def get_world_size(group=None):
    raise ValueError(_no_group)


def get_backend(group=None):
    raise ValueError(_no_group)


def get_default_backend_for_device(device):
    import torch
    kind = torch.device(device).type
    backend = {'cpu': 'gloo', 'cuda': 'nccl', 'xpu': 'xccl', 'mps': 'gloo'}.get(kind)
    if backend is None:
        raise ValueError(f'Default backend not registered for device : {device}')
    return backend


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name='', pg_options=None, device_id=None):
    if store is not None and init_method is not None:
        raise AssertionError('Cannot specify both init_method and store.')
    if store is None and (init_method is None or init_method == 'env://'):
        # the env:// rendezvous reads what the arguments do not give
        need = [] if rank != -1 else ['RANK']
        need += ([] if world_size != -1 else ['WORLD_SIZE']) + ['MASTER_ADDR', 'MASTER_PORT']
        for var in need:
            if var not in os.environ:
                raise ValueError(f'Error initializing torch.distributed using env:// rendezvous: environment variable {var} expected, but not set')
    raise _refusal(NotImplementedError('torch.distributed.init_process_group is not modelled by gpumemrepl: it runs one process, without a '
                                       'process group (NCCL allocates its buffers outside the caching allocator); run the program as a single '
                                       'process (without torchrun\'s RANK), as its non-distributed path does'))


def destroy_process_group(group=None):
    # no default group: PyTorch's assert pg is not None
    raise AssertionError()


def _collective(tensor, *rest, **kwargs):
    # every collective and point-to-point op needs the default group
    import torch
    if not isinstance(tensor, torch.Tensor) and not isinstance(tensor, list):
        raise TypeError(f'Invalid function argument. Expected parameter `tensor` of type torch.Tensor\n             but got {type(tensor)} instead.')
    raise ValueError(_no_group)


all_reduce = broadcast = send = recv = reduce = all_gather = all_gather_into_tensor = _collective
reduce_scatter = reduce_scatter_tensor = all_to_all = all_to_all_single = isend = irecv = gather = scatter = _collective


def barrier(group=None, async_op=False, device_ids=None):
    raise ValueError(_no_group)


class ReduceOp:
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9
