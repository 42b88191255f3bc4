import torch
for i in range(10):
    a = torch.rand(1000, 1000, i + 1, device='cuda:0')
    print(torch.cuda.max_memory_allocated(), torch.cuda.max_memory_cached())
    del a  # now a is not in scope anymore
