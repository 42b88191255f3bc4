# torch.distributed.fsdp in one process: FullyShardedDataParallel needs
# the default process group, which never exists here, and fails as
# PyTorch's does without one; its option classes are PyTorch's.


class ShardingStrategy:
    # PyTorch's enum, its members numbered as there
    FULL_SHARD = 1
    SHARD_GRAD_OP = 2
    NO_SHARD = 3
    HYBRID_SHARD = 4
    _HYBRID_SHARD_ZERO2 = 5


class CPUOffload:
    def __init__(self, offload_params=False):
        self.offload_params = offload_params

    def __repr__(self):
        return f'CPUOffload(offload_params={self.offload_params})'


class FullyShardedDataParallel:
    """FullyShardedDataParallel(module, process_group=None, ...): in one process without init_process_group, PyTorch's ValueError (the default process group has not been initialized)."""

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None, auto_wrap_policy=None,
                 backward_prefetch=None, mixed_precision=None, ignored_modules=None, param_init_fn=None, device_id=None,
                 sync_module_states=False, forward_prefetch=False, limit_all_gathers=True, use_orig_params=False,
                 ignored_states=None, device_mesh=None):
        if process_group is None and device_mesh is None:
            raise ValueError('Default process group has not been initialized, please make sure to call init_process_group.')
        raise _refusal(NotImplementedError('FullyShardedDataParallel is not modelled by gpumemrepl: it runs one process, without a process group'))
