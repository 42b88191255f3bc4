# Packed sequences, as memory: pack_padded_sequence (the blocks copied,
# the packed data, batch_sizes on the host; enforce_sorted=False sorting
# and gathering first), an LSTM and a GRU on packed input and their
# backward, pad_packed_sequence, pad_sequence, pack_sequence, and
# PyTorch's errors. --events.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence

lstm = nn.LSTM(48, 96, batch_first=True).cuda()
x = torch.randn(6, 25, 48, device='cuda', requires_grad=True)
lengths = [25, 21, 21, 14, 9, 3]
packed = pack_padded_sequence(x, lengths, batch_first=True)
print(packed.data.shape, packed.batch_sizes)
out, (h, c) = lstm(packed)
padded, lens = pad_packed_sequence(out, batch_first=True)
print(padded.shape, lens)
padded.sum().backward()
print(x.grad.shape)
del packed, out, h, c, padded, lens

# time-major, unsorted
xt = torch.randn(25, 6, 48, device='cuda')
gru = nn.GRU(48, 64, num_layers=2).cuda()
packed = pack_padded_sequence(xt, [9, 25, 3, 21, 14, 21], enforce_sorted=False)
print(packed.sorted_indices, packed.unsorted_indices)
out, h = gru(packed)
padded, lens = pad_packed_sequence(out, total_length=30)
print(padded.shape, lens, h.shape)
padded.sum().backward()
del packed, out, h, padded, lens

# pad_sequence and pack_sequence of a list of sequences
seqs = [torch.randn(n, 48, device='cuda') for n in (17, 12, 12, 5)]
batch = pad_sequence(seqs, batch_first=True)
print(batch.shape)
ps = pack_sequence(seqs)
print(ps.batch_sizes)
with torch.no_grad():
    out, _ = lstm(ps)
del batch, ps, out

try:
    pack_padded_sequence(x, [3, 25, 21, 21, 14, 9], batch_first=True)
except RuntimeError as e:
    print(e)
print(torch.cuda.memory_allocated())
