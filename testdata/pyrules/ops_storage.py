# How people show that views share storage: _base, _is_view(),
# is_set_to, untyped_storage().data_ptr() and data_ptr(); none allocates.
import torch

x = torch.zeros(1024, 1024, device='cuda')
v = x.view(-1)
s = x[1:]
t = x.t()
c = x.clone()
print(x._base is None, v._base is x, s._base is x, t._base is x, c._base is None, v[2:]._base is x)
print(x._is_view(), v._is_view(), s._is_view(), t._is_view(), c._is_view(), x.detach()._is_view(), x[...]._is_view())
print(x.is_set_to(x), v.is_set_to(x), x.is_set_to(v), x.view(1024, 1024).is_set_to(x), c.is_set_to(x))
print(x.untyped_storage().data_ptr() == v.untyped_storage().data_ptr(), s.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), c.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
print(s.data_ptr() - x.data_ptr(), x.data_ptr() == v.data_ptr(), t.data_ptr() == x.data_ptr())
print(x.untyped_storage().nbytes(), s.untyped_storage().nbytes(), s.untyped_storage().size())
d = x.detach()
print(d._base is None, d.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
h = torch.ones(4, 4)
print(h[1:]._base is h, h._is_view(), h[1:]._is_view(), h.is_set_to(h), h[0].untyped_storage().data_ptr() == h.untyped_storage().data_ptr())
y = x.reshape(-1)
print(y._base is x, x.t().reshape(-1)._base is None, x.contiguous() is x, x.t().contiguous()._base is None)
