# The legacy tensor types (torch.cuda.HalfTensor, torch.FloatTensor, ...):
# constructors by size and by data, x.type(T) and x.type('name'),
# isinstance; torch.Tensor(...); torch.isclose with a negative tolerance.
import torch

used = lambda: torch.cuda.memory_allocated()
a = torch.cuda.HalfTensor(1024, 1024)
print(f"HalfTensor(1024, 1024): {used()} {a.dtype} {a.device} {a.type()}")
b = torch.cuda.FloatTensor([[1, 2], [3, 4]])
print(b, b.type(), used())
c = torch.cuda.LongTensor(3, 5)
print(c.dtype, c.shape, used())
d = torch.FloatTensor(2, 3)
print(d.dtype, d.device, d.shape, torch.DoubleTensor([1.5]).dtype, torch.LongTensor([1, 2]), torch.ByteTensor(2).dtype, torch.BoolTensor([True]), torch.IntTensor([3]).dtype)
print(torch.cuda.HalfTensor, torch.cuda.FloatTensor.dtype if hasattr(torch.cuda.FloatTensor, 'dtype') else '', isinstance(b, torch.cuda.FloatTensor), isinstance(b, torch.FloatTensor), isinstance(d, torch.FloatTensor))
g = torch.ones(1024, 1024, device='cuda')
e = g.type(torch.cuda.HalfTensor)
print(f"type(cuda.HalfTensor): {used()} {e.dtype} {e.type()}")
f = g.type('torch.cuda.DoubleTensor')
print(f"type('torch.cuda.DoubleTensor'): {used()} {f.dtype}")
h = g.type(torch.FloatTensor)
print(f"type(FloatTensor): {used()} {h.device} {g.type(torch.cuda.FloatTensor) is g}")
i = torch.cuda.BFloat16Tensor(4)
print(i.dtype, torch.cuda.IntTensor([1, 2]).type(), torch.cuda.BoolTensor(2).dtype, torch.cuda.ByteTensor(2).dtype, torch.cuda.CharTensor(2).dtype, torch.cuda.ShortTensor(2).dtype)
j = torch.Tensor(2, 3)
print(j.dtype, j.shape, torch.Tensor([1, 2]), torch.Tensor().shape, torch.Tensor(torch.Size([2, 2])).shape)
del a, b, c, e, f, h, i
print(used())
x = torch.ones(3, device='cuda')
try:
    torch.isclose(x, x, rtol=-1)
except Exception as err:
    print(type(err).__name__, err)
try:
    torch.isclose(x, x, atol=-1e-3)
except Exception as err:
    print(type(err).__name__, err)
try:
    torch.allclose(x, x, rtol=-0.5)
except Exception as err:
    print(type(err).__name__, err)
try:
    torch.cuda.HalfTensor(2, device='cpu')
except Exception as err:
    print(type(err).__name__, err)
try:
    torch.cuda.FloatTensor('x')
except Exception as err:
    print(type(err).__name__, err)
