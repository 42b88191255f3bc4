# nn.LSTM, nn.GRU and nn.RNN on cuDNN, as memory: the weights flattened
# into one buffer at .cuda() (and again at .to()), each forward's output,
# h_n, c_n, workspace and reserve space, backward's zeros, data and weight
# passes and the weights' gradients (views of one buffer with biases), in
# train and eval mode, under no_grad, inference_mode and autocast, with
# batch_first, bidirectional, several layers, dropout between them (the
# dropout state), proj_size, a hidden state given or not, retain_graph,
# weights not flat, .half(). Each case its own sizes so its allocations
# tell. --events.
import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(96, 160, num_layers=2)
lstm.cuda()
print(len({p.untyped_storage().data_ptr() for p in lstm.parameters()}), torch.cuda.max_memory_allocated())
x = torch.randn(23, 7, 96, device='cuda')
out, (h, c) = lstm(x)
print(out.shape, h.shape, c.shape)
out.sum().backward()
print(len({p.grad.untyped_storage().data_ptr() for p in lstm.parameters()}))
lstm.zero_grad()
del out, h, c

# a hidden state given, and only h_n used: zeros for output's and c_n's
h0 = torch.zeros(2, 7, 160, device='cuda')
c0 = torch.zeros(2, 7, 160, device='cuda')
out, (h, c) = lstm(x, (h0, c0))
h.sum().backward()
del out, h, c

# eval under grad (no reserve), then its backward fails
lstm.eval()
out, (h, c) = lstm(x)
try:
    out.sum().backward()
except RuntimeError as e:
    print(e)
del out, h, c
lstm.train()

# train mode under no_grad and inference_mode: the reserve made and freed
with torch.no_grad():
    out, _ = lstm(x)
del out
with torch.inference_mode():
    out, _ = lstm(x)
del out

# retain_graph: the reserve copied, backward twice
out, _ = lstm(x)
out.sum().backward(retain_graph=True)
out.sum().backward()
del out, lstm

# batch_first, bidirectional GRU with dropout: the input copied, the
# dropout state made once
gru = nn.GRU(48, 112, num_layers=3, batch_first=True, bidirectional=True, dropout=0.25).cuda()
xb = torch.randn(5, 31, 48, device='cuda', requires_grad=True)
out, h = gru(xb)
print(out.shape, h.shape, out.is_contiguous())
(out.sum() + h.sum()).backward()
print(xb.grad.shape)
out, h = gru(xb)
out.sum().backward()
torch.manual_seed(1)
out, h = gru(xb)
del out, h, gru, xb

# RNN relu without biases: the gradients copied out of their buffer
rnn = nn.RNN(40, 72, nonlinearity='relu', bias=False).cuda()
out, h = rnn(torch.randn(17, 3, 40, device='cuda'))
out.sum().backward()
print(len({p.grad.untyped_storage().data_ptr() for p in rnn.parameters()}))
del out, h, rnn

# proj_size
lp = nn.LSTM(64, 144, proj_size=48).cuda()
out, (h, c) = lp(torch.randn(19, 6, 64, device='cuda'))
print(out.shape, h.shape, c.shape)
out.sum().backward()
del out, h, c, lp

# unbatched input
cell_in = torch.randn(13, 56, device='cuda')
g1 = nn.GRU(56, 88).cuda()
out, h = g1(cell_in)
print(out.shape, h.shape)
del out, h

# weights not flat: copied for the call, with a warning
ws = [p.detach().clone().requires_grad_() for p in g1.parameters()]
out, h = torch.gru(torch.randn(9, 2, 56, device='cuda'), torch.zeros(1, 2, 88, device='cuda'), ws, True, 1, 0.0, True, False, False)
out.sum().backward()
del out, h, ws

# .half(): flattened again in float16
g1.half()
out, h = g1(torch.randn(11, 4, 56, device='cuda', dtype=torch.float16))
out.float().sum().backward()
del out, h, g1

# under autocast
la = nn.LSTM(80, 128).cuda()
with torch.autocast('cuda'):
    out, (h, c) = la(torch.randn(21, 5, 80, device='cuda'))
print(out.dtype)
out.float().sum().backward()
print(la.weight_ih_l0.grad.dtype)
del out, h, c, la
print(torch.cuda.memory_allocated())
