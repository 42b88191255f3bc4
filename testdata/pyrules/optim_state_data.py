# The optimizer's state is keyed by the Parameter object: after
# model.cpu() and back (.data swapped both times), the same keys hold,
# and the state's tensors stay where they were made.
import torch
import torch.nn as nn

model = nn.Linear(1024, 1024).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model(torch.randn(32, 1024, device="cuda")).sum().backward()
opt.step()
print(torch.cuda.memory_allocated())
model.cpu()
print(torch.cuda.memory_allocated(), model.weight.grad.device)
model.cuda()
print(torch.cuda.memory_allocated(), model.weight in opt.state)
model.zero_grad(set_to_none=True)
print(torch.cuda.memory_allocated())
