# A grad_fn's class is named as its node (SumBackward0, of module
# builtins), one class a name, and torch.autograd.graph.Node is its base.
import torch
x = torch.zeros(4, 4, device='cuda', requires_grad=True)
y = (x * 2).sum()
g = y.grad_fn
print(type(g).__name__, type(g), type(g).__module__, type(g).__qualname__)
print(isinstance(g, torch.autograd.graph.Node), issubclass(type(g), torch.autograd.graph.Node))
print(type(g.next_functions[0][0]).__name__, type(x.grad_fn))
print(type(g) is type((x * 3).sum().grad_fn))
print(repr(g)[:20])
