# Records PyTorch's errors for tensor sizes whose element count or byte
# count overflows int64 (issue 16 item 3). Run on the GPU machine:
#   python3 scripts/probe_sizes.py > testdata/pyrules/size_overflow.txt
# (recorded with PyTorch 2.11 on an H200; the tool gives the same texts)
import torch

cases = [
    ("torch.zeros(4294967296, 4294967296, device='cuda')", lambda: torch.zeros(4294967296, 4294967296, device='cuda')),
    ("torch.zeros([65536]*4, device='cuda')", lambda: torch.zeros([65536] * 4, device='cuda')),
    ("torch.zeros(2**31, 2**31, device='cuda')", lambda: torch.zeros(2**31, 2**31, device='cuda')),
    ("torch.zeros(2**62, device='cuda')", lambda: torch.zeros(2**62, device='cuda')),
    ("torch.zeros(2**61, device='cuda')", lambda: torch.zeros(2**61, device='cuda')),
    ("torch.zeros(2**63, device='cuda')", lambda: torch.zeros(2**63, device='cuda')),
    ("torch.zeros(4294967296, 4294967296)", lambda: torch.zeros(4294967296, 4294967296)),
    ("torch.nn.Linear(4294967296, 4294967296)", lambda: torch.nn.Linear(4294967296, 4294967296)),
    ("torch.zeros(-1, device='cuda')", lambda: torch.zeros(-1, device='cuda')),
]
for src, f in cases:
    try:
        f()
        print(f"{src}\n  ok")
    except BaseException as e:
        msg = str(e).splitlines()[0] if str(e) else ""
        print(f"{src}\n  {type(e).__module__}.{type(e).__qualname__}: {msg[:400]}")
