# Matrix products beyond matrix @ matrix, each statement on its own so
# the peaks show what backward makes: a matrix times a vector (mv) and
# its backward, twice (the second accumulates into .grad); a batch of
# matrices times a matrix (matmul folds it into one mm) and its
# backward, with and without the batch requiring grad.
import torch

W = torch.randn(100, 100, device="cuda", requires_grad=True)
v = torch.randn(100, device="cuda")
out = W @ v
L = out.sum()
L.backward()
torch.cuda.reset_peak_memory_stats()
out = W @ v
L = out.sum()
L.backward()
del out, L
torch.cuda.reset_peak_memory_stats()
x = torch.randn(128, 32, 1024, device="cuda")
w = torch.randn(1024, 32, device="cuda", requires_grad=True)
y = x.matmul(w)
loss = y.sum()
loss.backward()
torch.cuda.reset_peak_memory_stats()
y = x @ w
loss = y.sum()
loss.backward()
del y, loss
torch.cuda.reset_peak_memory_stats()
xg = torch.randn(16, 64, 256, device="cuda", requires_grad=True)
w2 = torch.randn(256, 128, device="cuda", requires_grad=True)
y2 = xg @ w2
s2 = y2.sum()
s2.backward()
del y2, s2
torch.cuda.reset_peak_memory_stats()
w3 = torch.randn(256, 128, device="cuda")
y3 = torch.matmul(xg, w3)
y3.sum().backward()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
