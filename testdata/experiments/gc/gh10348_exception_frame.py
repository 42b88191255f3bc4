# pytorch/pytorch#10348: exceptions raised and caught during training
# keep memory: a caught exception kept in a local of the frame it went
# through (frame -> exception -> traceback -> frame) holds that frame's
# tensors until the collector runs.
import torch

w = torch.randn(1024, 1024, device="cuda", requires_grad=True)


def step(i):
    x = torch.randn(256, 1024, device="cuda")
    h = (x @ w).relu()
    error = None
    try:
        if i % 2 == 0:
            raise ValueError("skip this batch")
        h.sum().backward()
    except ValueError as e:
        error = e
    return error is None


for i in range(120):
    step(i)
    print(i, torch.cuda.memory_allocated())
