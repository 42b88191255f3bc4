# Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks and
# save_on_cpu), as memory: what a node keeps when a hook packs its saved
# tensors (the hook's value instead of the tensor: with save_on_cpu a host
# copy, so the GPU storage goes with its last other reference), what
# unpacking makes in backward (save_on_cpu: a GPU copy per saved tensor,
# freed as the node's backward returns), retain_graph, nesting, the hooks
# with a custom Function's ctx.saved_tensors, and PyTorch's errors. Each
# case has its own size (rows of 1024 float32, 4 KiB a row). --events.
import torch
import torch.nn.functional as F
from torch.autograd.graph import saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks

packed = []


def pack_clone(t):
    packed.append(tuple(t.shape))
    return t.clone()


def unpack_same(t):
    return t


# identity hooks keep what autograd keeps; clone hooks keep a copy each
x = torch.ones(256, 1024, device='cuda', requires_grad=True)
with saved_tensors_hooks(lambda t: t, lambda t: t):
    y = (x * 2).relu().sin()
print(torch.cuda.memory_allocated())
y.sum().backward()
del y
with saved_tensors_hooks(pack_clone, unpack_same):
    y = (x * 2).relu().sin()
print(packed, torch.cuda.memory_allocated())
y.sum().backward()
print(torch.cuda.memory_allocated())
del x, y

# save_on_cpu: the saved activations of a small MLP on the host
w1 = torch.ones(1024, 768, device='cuda', requires_grad=True)
w2 = torch.ones(512, 1024, device='cuda', requires_grad=True)
inp = torch.ones(384, 768, device='cuda')
with save_on_cpu():
    h = F.relu(F.linear(inp, w1))
    out = F.linear(h, w2).sum()
print(torch.cuda.memory_allocated())
del h
print(torch.cuda.memory_allocated())
out.backward()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
del out

# pinned
torch.cuda.reset_peak_memory_stats()
with save_on_cpu(pin_memory=True):
    h = F.relu(F.linear(inp, w1))
    out = F.linear(h, w2).sum()
del h
print(torch.cuda.memory_allocated())
out.backward()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
del out

# retain_graph: the packed copies stay, and a second backward unpacks
# them again
with save_on_cpu(pin_memory=True):
    out = (F.linear(inp, w1) * 3).tanh().sum()
out.backward(retain_graph=True)
out.backward()
del out, w1, w2, inp

# nested: the innermost hooks pack
x = torch.ones(640, 1024, device='cuda', requires_grad=True)
with save_on_cpu():
    with saved_tensors_hooks(pack_clone, unpack_same):
        y = x.exp()
print(packed[-1], torch.cuda.memory_allocated())
y.sum().backward()
del y


# a custom Function's saved tensors go through the hooks too, unpacked
# when its backward reads ctx.saved_tensors
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return 2 * grad * t


with save_on_cpu(pin_memory=True):
    y = Square.apply(x * 1)
print(torch.cuda.memory_allocated())
y.sum().backward()
del y, x

# errors
x = torch.ones(768, 1024, device='cuda', requires_grad=True)
try:
    with saved_tensors_hooks(lambda t: t.add_(1), unpack_same):
        y = x * x
except RuntimeError as e:
    print(str(e)[:60])
try:
    with saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.exp()
    y.sum().backward()
except TypeError as e:
    print(e)
try:
    with disable_saved_tensors_hooks('hooks are off here'):
        with save_on_cpu():
            pass
except RuntimeError as e:
    print(e)
del x
print(torch.cuda.memory_allocated())
