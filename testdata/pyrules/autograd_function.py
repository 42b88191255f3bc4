# Custom autograd Functions (torch.autograd.Function), as memory: what
# the node keeps (save_for_backward's tensors until its backward, ctx
# attributes as long as it lives), the outputs' place in the graph (an
# input returned is a view, mark_dirty, mark_non_differentiable), the
# zeros made for outputs that got no gradient (and none with
# set_materialize_grads(False)), setup_context, once_differentiable, and
# PyTorch's errors. Each case has its own size (rows of 1024 float32,
# 4 KiB a row) so its allocations tell. --events.
import torch
from torch.autograd.function import once_differentiable


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


# the output saved: kept by the node until backward, then only by y
x = torch.ones(256, 1024, device='cuda', requires_grad=True)
y = Exp.apply(x)
print(type(y.grad_fn).__name__, y.grad_fn.needs_input_grad, y.requires_grad, y.is_leaf)
loss = y.sum()
loss.backward()
try:
    loss.backward()
except RuntimeError as e:
    print(str(e)[:80])
del x, y, loss


class KeepOnCtx(torch.autograd.Function):
    # an intermediate saved, and another kept as a ctx attribute: the
    # saved one goes after backward, the attribute only with the node
    @staticmethod
    def forward(ctx, x):
        t = x * 2
        ctx.scratch = x * 3
        ctx.save_for_backward(t)
        return t + 1

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return grad * t


x = torch.ones(384, 1024, device='cuda', requires_grad=True)
z = KeepOnCtx.apply(x)
print(torch.cuda.memory_allocated())
z.sum().backward()
print(torch.cuda.memory_allocated())
del z
print(torch.cuda.memory_allocated())
del x


class Scale(torch.autograd.Function):
    # a non-tensor argument, its gradient None
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.k, None


x = torch.ones(512, 1024, device='cuda', requires_grad=True)
Scale.apply(x, 3.0).sum().backward()
print(x.grad.shape)
del x


class AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


w = torch.ones(640, 1024, device='cuda', requires_grad=True)
h = w * 2
h2 = AddOneInPlace.apply(h)
print(h2 is h, type(h.grad_fn).__name__, h._version)
h2.sum().backward()
del w, h, h2


class Identity(torch.autograd.Function):
    # an input returned as it is: a view of it
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


x = torch.ones(768, 1024, device='cuda', requires_grad=True)
v = Identity.apply(x)
print(v is x, v._base is x, v.data_ptr() == x.data_ptr())
v.sum().backward()
del x, v


class SortLike(torch.autograd.Function):
    # two outputs, one not differentiable; only the first reaches the
    # loss, so backward gets zeros for the second
    @staticmethod
    def forward(ctx, x):
        values = x * 1
        index = torch.zeros(x.shape, dtype=torch.int64, device=x.device)
        ctx.mark_non_differentiable(index)
        return values, index

    @staticmethod
    def backward(ctx, grad_values, grad_index):
        print('grads:', grad_values.shape, grad_index is None or grad_index.shape)
        return grad_values


x = torch.ones(896, 1024, device='cuda', requires_grad=True)
vals, idx = SortLike.apply(x)
print(vals.requires_grad, idx.requires_grad)
vals.sum().backward()
del x, vals, idx


class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        print('ga', ga is None, 'gb', gb is None)
        return ga + gb


x = torch.ones(1024, 1024, device='cuda', requires_grad=True)
a, b = TwoOut.apply(x)
a.sum().backward()
del a, b


class TwoOutNoZeros(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        print('ga', ga is None, 'gb', gb is None)
        return ga if gb is None else ga + gb


a, b = TwoOutNoZeros.apply(x)
a.sum().backward()
del a, b, x


class SetupStyle(torch.autograd.Function):
    @staticmethod
    def forward(x, w):
        return x * w

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, w = inputs
        ctx.save_for_backward(x, w)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad * w, grad * x


x = torch.ones(1152, 1024, device='cuda', requires_grad=True)
w = torch.ones(1152, 1024, device='cuda', requires_grad=True)
SetupStyle.apply(x, w).sum().backward()
print(x.grad.shape, w.grad.shape)
del x, w


class BroadcastGrad(torch.autograd.Function):
    # a gradient bigger than its input is summed to the input's shape
    @staticmethod
    def forward(ctx, b, x):
        return x + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


bias = torch.ones(1024, device='cuda', requires_grad=True)
x = torch.ones(1280, 1024, device='cuda', requires_grad=True)
BroadcastGrad.apply(bias, x).sum().backward()
print(bias.grad.shape)
del bias, x


class WrongCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, grad):
        return grad


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad[0]


x = torch.ones(1408, 1024, device='cuda', requires_grad=True)
try:
    WrongCount.apply(x, x).sum().backward()
except RuntimeError as e:
    print(e)
try:
    WrongShape.apply(x).sum().backward()
except RuntimeError as e:
    print(e)
try:
    Exp()
except Exception as e:
    print(type(e).__name__)
del x

# under no_grad no node is made: the ctx and what it holds go at once
x = torch.ones(1536, 1024, device='cuda', requires_grad=True)
with torch.no_grad():
    z = KeepOnCtx.apply(x)
print(z.requires_grad, z.grad_fn, torch.cuda.memory_allocated())
del z, x
