# torch.accelerator, as gpumemrepl runs it (embedded by accelerator.go).

def is_available():
    import torch
    return torch.cuda.is_available()


def current_accelerator(check_available=False):
    import torch
    if torch.cuda.is_available():
        return torch.device('cuda')
    return None


def device_count():
    import torch
    return torch.cuda.device_count()


def current_device_index():
    import torch
    return torch.cuda.current_device()


current_device_idx = current_device_index


def set_device_index(device):
    import torch
    torch.cuda.set_device(device)


set_device_idx = set_device_index


def synchronize(device=None):
    import torch
    torch.cuda.synchronize(device)


class device_index:
    def __init__(self, device):
        self.idx = device
        self.prev = None

    def __enter__(self):
        import torch
        if self.idx is not None:
            self.prev = torch.cuda.current_device()
            torch.cuda.set_device(self.idx)

    def __exit__(self, *exc):
        import torch
        if self.prev is not None:
            torch.cuda.set_device(self.prev)
        return False


def empty_cache():
    import torch
    torch.cuda.empty_cache()


def memory_stats(device_index=None):
    import torch
    return torch.cuda.memory_stats(device_index)


def memory_allocated(device_index=None):
    import torch
    return torch.cuda.memory_allocated(device_index)


def max_memory_allocated(device_index=None):
    import torch
    return torch.cuda.max_memory_allocated(device_index)


def memory_reserved(device_index=None):
    import torch
    return torch.cuda.memory_reserved(device_index)


def max_memory_reserved(device_index=None):
    import torch
    return torch.cuda.max_memory_reserved(device_index)


def reset_peak_memory_stats(device_index=None):
    import torch
    torch.cuda.reset_peak_memory_stats(device_index)


def reset_accumulated_memory_stats(device_index=None):
    import torch
    torch.cuda.reset_accumulated_memory_stats(device_index)
