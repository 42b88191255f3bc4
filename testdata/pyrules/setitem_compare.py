# Writing into a tensor through an index (a number or a tensor, of the
# same device or the host) allocates nothing on the GPU; a comparison
# makes a bool tensor of the broadcast shape; a chained comparison in an
# assert frees the first result before making the second.
import torch

t = torch.ones(256, 1024, device="cuda")
v = t.view(-1)
v[0] = -1
t[0] = 2
t[0][1] = 3
t[1:3] = 0
src = torch.zeros(1024, device="cuda")
t[5] = src
c = torch.zeros(1024)
t[6] = c
e = v[0] == t[0][0]
f = t == 2
g = t == src
assert v[0] == t[0][0] == 2
del e, f, g
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
