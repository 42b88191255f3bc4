# nn.LSTMCell, nn.GRUCell and nn.RNNCell, as memory: the products with the
# weights, the fused cell kernels' workspaces and states, all saved for
# backward; a cell unrolled over steps as sequence models write it, its
# backward; under no_grad. --events.
import torch
import torch.nn as nn

cell = nn.LSTMCell(72, 136).cuda()
x = torch.randn(29, 72, device='cuda')
h, c = cell(x)
(h.sum() + c.sum()).backward()
del h, c

# unrolled over 12 steps
xs = torch.randn(12, 29, 72, device='cuda')
h = torch.zeros(29, 136, device='cuda')
c = torch.zeros(29, 136, device='cuda')
outs = []
for t in range(12):
    h, c = cell(xs[t], (h, c))
    outs.append(h)
torch.stack(outs).sum().backward()
del outs, h, c

gru = nn.GRUCell(72, 104).cuda()
h = gru(x)
h = gru(x, h)
h.sum().backward()
del h

rnn = nn.RNNCell(72, 88, nonlinearity='relu').cuda()
h = rnn(x)
h.sum().backward()
with torch.no_grad():
    h = rnn(x, h)
    hg = gru(x)
    hl, cl = cell(x)
del h, hg, hl, cl
print(torch.cuda.memory_allocated())
