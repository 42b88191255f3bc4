import torch
tensor = torch.rand(3, 3, device='cuda')
tensor = torch.rand(5, 5, device='cuda')
del tensor
torch.cuda.empty_cache()
