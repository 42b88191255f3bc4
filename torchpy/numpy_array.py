# Tensor.numpy() and torch.from_numpy: NumPy arrays as model code makes
# them of host tensors. PyTorch's numpy() makes no copy: the array is a
# view of the tensor's host memory and keeps it alive, and from_numpy
# gives a tensor of that same memory back. So here an ndarray holds the
# tensor's storage (through a detached alias) and makes no memory of its
# own; it has NumPy's shape, dtype, size, nbytes and tolist. The tool
# has no numpy module: `import numpy` stays an error.


class _dtype:
    __module__ = "numpy"

    def __init__(self, name, itemsize):
        self.name = name
        self.itemsize = itemsize

    def __repr__(self):
        return "dtype('%s')" % self.name

    def __str__(self):
        return self.name

    def __eq__(self, other):
        return str(self) == str(other)

    def __hash__(self):
        return hash(self.name)


class ndarray:
    __module__ = "numpy"

    def __init__(self, tensor):
        self._tensor = tensor
        self.shape = tuple(tensor.shape)
        name = str(tensor.dtype)[len("torch."):]
        self.dtype = _dtype(name, tensor.element_size())
        self.ndim = len(self.shape)
        self.size = tensor.numel()
        self.itemsize = tensor.element_size()
        self.nbytes = self.size * self.itemsize

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def tolist(self):
        return self._tensor.tolist()

    def __repr__(self):
        return "array(%r, dtype=%s)" % (self.tolist(), self.dtype)


def _numpy(tensor, force=False):
    if force:
        tensor = tensor.detach().cpu()
    if tensor.device.type != "cpu":
        raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first." % tensor.device)
    if tensor.requires_grad:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    return ndarray(tensor.detach())


def from_numpy(ndarray_):
    if not isinstance(ndarray_, ndarray):
        raise TypeError("expected np.ndarray (got %s)" % type(ndarray_).__name__)
    return ndarray_._tensor.detach()
