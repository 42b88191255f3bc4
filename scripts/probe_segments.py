# Stages of a PyTorch process on the GPU, one statement each, to run under
# scripts/record_script.py --addresses: each row's "maps" shows the device
# address space the CUDA driver and the libraries reserved during the
# statement, beside the caching allocator's segments (its events carry
# their addresses). Its recording and what it shows: testdata/segments.
import torch
import torch.nn.functional as F

a = torch.empty(512, 1024, device='cuda')
b = torch.zeros(512, 1024, device='cuda')
c = a + b
h = torch.cuda.current_blas_handle()
m = a @ torch.ones(1024, 4096, device='cuda')
lin = F.linear(a, torch.ones(4096, 1024, device='cuda'), torch.ones(4096, device='cuda'))
hb = a.bfloat16() @ torch.ones(1024, 4096, device='cuda', dtype=torch.bfloat16)
w = torch.ones(1024, 1024, device='cuda', requires_grad=True)
(a @ w).sum().backward()
g = F.gelu(m)
big = [torch.empty(n << 20, dtype=torch.uint8, device='cuda') for n in (2, 20, 32, 64, 2, 20, 32, 16, 16)]
del big
torch.cuda.empty_cache()
big = [torch.empty(n << 20, dtype=torch.uint8, device='cuda') for n in (32, 32, 32, 20, 20, 2, 2, 64)]
