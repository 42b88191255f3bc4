# torch.as_tensor: a tensor given as it is when it already has the dtype
# and device asked for, else its .to(...) (a copy, as the recorded
# Tensor.to makes); other data is torch.tensor(data).


def as_tensor(data, dtype=None, device=None):
    import torch
    if isinstance(data, torch.Tensor):
        return data.to(device=data.device if device is None else device, dtype=data.dtype if dtype is None else dtype)
    return torch.tensor(data, dtype=dtype, device=device)
