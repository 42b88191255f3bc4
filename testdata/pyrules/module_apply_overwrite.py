# Module._apply: by default .to()/.half()/.cuda() swap each parameter's
# data in place (param.data = fn(param)), so tensors that held the
# parameter see the new storage; with
# torch.__future__.set_overwrite_module_params_on_conversion(True) the
# module gets new Parameter objects and the old ones keep their storage
# while referenced.
import torch
import torch.nn as nn

m = nn.Linear(1024, 1024).cuda()
w = m.weight
print(torch.cuda.memory_allocated())
m.half()
print(torch.cuda.memory_allocated(), w.dtype, w is m.weight)
y = m(torch.randn(8, 1024, device="cuda", dtype=torch.half)).sum()
m.float()
print(torch.cuda.memory_allocated())
del y
print(torch.cuda.memory_allocated())
torch.__future__.set_overwrite_module_params_on_conversion(True)
m.half()
print(torch.cuda.memory_allocated(), w.dtype, w is m.weight)
del w
print(torch.cuda.memory_allocated())
y = m(torch.randn(8, 1024, device="cuda", dtype=torch.half)).sum()
m.cpu()
print(torch.cuda.memory_allocated())
del y
print(torch.cuda.memory_allocated())
torch.__future__.set_overwrite_module_params_on_conversion(False)
print(torch.__future__.get_overwrite_module_params_on_conversion())
