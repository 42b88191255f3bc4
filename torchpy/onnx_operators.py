# torch.onnx.operators: shape_as_tensor, torch._shape_as_tensor's other name.


def shape_as_tensor(x):
    import torch
    return torch._shape_as_tensor(x)
