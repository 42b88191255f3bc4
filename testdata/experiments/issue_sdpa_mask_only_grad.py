import torch

q, k, v = (torch.randn((1, 1, 64, 16), device="cuda") for _ in range(3))
mask = torch.randn((1, 1, 64, 64), device="cuda", requires_grad=True)

o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)

o.sum().backward()

print(mask.grad)
