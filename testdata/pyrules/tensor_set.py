# Tensor.set_(): the tensor takes another's storage (or a fresh empty
# one); its old storage goes when nothing else holds it, views of it
# keep it.
import torch

a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(2048, 1024, device="cuda")
print(torch.cuda.memory_allocated())
a.set_(b)
print(torch.cuda.memory_allocated(), a.shape)
del b
print(torch.cuda.memory_allocated())
c = a[:10]
a.set_()
print(torch.cuda.memory_allocated(), a.shape)
del c
print(torch.cuda.memory_allocated())
d = torch.randn(512, 1024, device="cuda")
a.set_(d.untyped_storage(), 0, (256, 1024))
print(torch.cuda.memory_allocated(), a.shape)
del d
print(torch.cuda.memory_allocated())
a.set_(torch.empty(4096, device="cuda").untyped_storage())
print(torch.cuda.memory_allocated(), a.shape)
