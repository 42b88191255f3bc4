# Llama's rotary embedding through complex numbers: torch.outer, torch.polar,
# view_as_complex of a float copy, a complex product, view_as_real, flatten,
# type_as, and its backward, in float32 and from bfloat16.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
xq = torch.randn(4, 256, 8, 64, device='cuda', requires_grad=True)
freqs = 1.0 / (10000 ** (torch.arange(0, 64, 2, device='cuda')[: 32].float() / 64))
t = torch.arange(256, device='cuda')
print(f"setup: {used()}")
freqs = torch.outer(t, freqs).float()
print(f"outer: {used()} {freqs.shape}")
freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
print(f"polar: {used()} {freqs_cis.dtype}")
xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
print(f"view_as_complex: {used()} {xq_.dtype} {xq_.shape} {xq_.grad_fn.name()}")
prod = xq_ * freqs_cis.view(1, 256, 1, 32)
print(f"complex product: {used()} {prod.dtype}")
out = torch.view_as_real(prod).flatten(3)
print(f"view_as_real: {used()} {out.shape} {out.grad_fn.name()}")
y = out.type_as(xq)
print(f"type_as: {used()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"backward: {used()} {peak()}")
del y, out, prod, xq_
h = torch.randn(4, 256, 8, 64, device='cuda', dtype=torch.bfloat16, requires_grad=True)
hq = torch.view_as_complex(h.float().reshape(4, 256, 8, 32, 2))
hout = torch.view_as_real(hq * freqs_cis.view(1, 256, 1, 32)).flatten(3).type_as(h)
print(f"bf16 rope: {used()} {hout.dtype}")
torch.cuda.reset_peak_memory_stats()
hout.sum().backward()
print(f"bf16 rope backward: {used()} {peak()}")
del hq, hout, h, xq, freqs, freqs_cis, t
print(f"end: {used()}")
