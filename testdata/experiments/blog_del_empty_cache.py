import torch

# ... your PyTorch code that allocates GPU memory ...

# For example, a large tensor
x = torch.randn(10000, 10000, device='cuda')

# When you no longer need 'x'
del x
torch.cuda.empty_cache()
print("GPU memory freed!")
