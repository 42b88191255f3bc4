# torch.cuda.memory_cached and max_memory_cached: their deprecation
# warnings (run with plain python3 too: ops_cuda_warn.stderr is what it
# printed there, once per line or each call); get_device_name and
# get_device_properties of a device index past int64.
import torch

x = torch.zeros(1024, 1024, device='cuda')
print(torch.cuda.memory_cached())
print(torch.cuda.max_memory_cached())
for _ in range(2):
    print(torch.cuda.memory_cached())
print(torch.cuda.memory_cached(0))
print(torch.cuda.max_memory_cached(device=0))
try:
    torch.cuda.get_device_name(2**70)
except Exception as e:
    print(f"{type(e).__name__}: {e}")
try:
    torch.cuda.get_device_properties(2**70)
except Exception as e:
    print(f"{type(e).__name__}: {e}")
try:
    torch.cuda.get_device_name(7)
except Exception as e:
    print(f"{type(e).__name__}: {e}")
try:
    torch.cuda.memory_allocated(2**70)
except Exception as e:
    print(f"{type(e).__name__}: {e}")
