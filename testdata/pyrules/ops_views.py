# Views allocate nothing: unsqueeze, squeeze, permute, narrow, chunk,
# unbind, detach, .data and indexing with None and ...; their strides and
# offsets; contiguous() of a permuted view and clone() of a narrowed one
# copy; a narrowed view keeps its whole base.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.empty(64, 1024, 32, device='cuda')
u = x.unsqueeze(1)
print(f"unsqueeze: {used()} {tuple(u.shape)} {u.stride()}")
s = u.squeeze(1)
s0 = torch.empty(1, 1000, 1, device='cuda').squeeze()
print(f"squeeze: {used()} {s.stride()} {tuple(s0.shape)}")
p = x.permute(2, 0, 1)
print(f"permute: {used()} {p.stride()} {p.is_contiguous()}")
n = x.narrow(1, 100, 300)
print(f"narrow: {used()} {n.stride()} {n.storage_offset()} {n.is_contiguous()}")
parts = x.chunk(3, dim=1)
print(f"chunk: {used()} {len(parts)} {tuple(parts[-1].shape)} {parts[-1].storage_offset()}")
rows = x.unbind(0)
print(f"unbind: {used()} {len(rows)} {rows[5].storage_offset()} {rows[5].stride()}")
del parts, rows
d = x.detach()
dd = x.data
print(f"detach and data: {used()} {d.data_ptr() == x.data_ptr()}")
i = x[None, ..., 3]
j = x[..., None]
k = x[1, None, :, 2]
print(f"None and ...: {used()} {tuple(i.shape)} {i.stride()} {tuple(j.shape)} {tuple(k.shape)} {k.storage_offset()}")
print(f"sizes: {x.element_size()} {x.untyped_storage().nbytes()} {n.untyped_storage().nbytes()}")
c = p.contiguous()
print(f"contiguous of permute copies: {used()} {c.stride()}")
cl = n.clone()
print(f"clone of narrow: {used()} {cl.stride()} {cl.is_contiguous()}")
del c, cl
pc = x.permute(0, 2, 1).clone()
print(f"clone of a permute: {used()} {pc.stride()}")
t3 = x.transpose(0, 2)
print(f"transpose: {used()} {t3.stride()} {t3.is_contiguous()}")
del u, s, s0, p, n, d, dd, i, j, k, pc, t3
kept = torch.empty(5000, device='cuda').narrow(0, 10, 20)
print(f"narrow keeps its base: {used()}")
del x, kept
print(f"end: {used()}")
