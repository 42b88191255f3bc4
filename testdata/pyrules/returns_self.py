# Conversions that return the same tensor allocate nothing; those that
# copy make a new tensor, and rebinding the name frees the old one.
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20
x = torch.empty(N, device='cuda')
print(f"x: {used()} MiB")
print(f"x.to('cuda') is x: {x.to('cuda') is x}, x.cuda() is x: {x.cuda() is x}")
print(f"x.float() is x: {x.float() is x}, x.contiguous() is x: {x.contiguous() is x}")
print("after: %d MiB" % used())
h = x.to(torch.float16)
print("float16 copy: %d MiB" % used())
h = h.half()
print("half() of float16 is a no-op: %d MiB" % used())
y = x.to('cuda', copy=True)
print("copy=True: %d MiB, y is x: %s" % (used(), y is x))
x = x.cpu().cuda()
print("x = x.cpu().cuda(): %d MiB" % used())
x = x.double()
print("x = x.double(): %d MiB" % used())
z = x.requires_grad_()
print("requires_grad_() returns self: %s, %d MiB" % (z is x, used()))
del x, y, z, h
print("all gone: %d MiB" % used())
