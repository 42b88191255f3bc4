# issue 35: model.cpu() after a forward that saved the weight frees the
# CUDA weight in PyTorch: the graph saved the Parameter itself, whose
# storage Module._apply swapped (param.data = fn(param)), so no holder
# keeps the CUDA copy.
import torch
import torch.nn as nn

model = nn.Linear(1024, 1024).cuda()
x = torch.randn(64, 1024, device="cuda", requires_grad=True)
y = model(x).sum()
print(torch.cuda.memory_allocated())
model.cpu()
print(torch.cuda.memory_allocated(), model.weight.device)
del y
print(torch.cuda.memory_allocated())
model.cuda()
print(torch.cuda.memory_allocated())
