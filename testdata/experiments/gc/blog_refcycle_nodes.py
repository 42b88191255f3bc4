# pytorch.org/blog/understanding-gpu-memory-2/: two Nodes that point at
# each other, each holding a CUDA tensor: the tensors build up until
# the cycle collector runs, then go at once (the blog's leak()).
import torch


def leak(tensor_size, num_iter=300, device="cuda:0"):
    class Node:
        def __init__(self, T):
            self.tensor = T
            self.link = None

    for _ in range(num_iter):
        A = torch.zeros(tensor_size, device=device)
        B = torch.zeros(tensor_size, device=device)
        a, b = Node(A), Node(B)
        a.link, b.link = b, a


leak(256 * 1024)
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
leak(256 * 1024, num_iter=1000)
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
