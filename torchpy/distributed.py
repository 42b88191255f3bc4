# torch.distributed as a single process sees it before
# init_process_group: PyTorch is built with it, no group exists, and the
# functions that need the default group say so as PyTorch does. Process
# groups themselves (init_process_group, collectives, DDP, FSDP) are not
# modelled.

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
