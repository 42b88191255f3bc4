import torch
F = torch.nn.functional
Linear = torch.nn.Linear
Sequential = torch.nn.Sequential
ReLU = torch.nn.ReLU
GELU = torch.nn.GELU
SGD = torch.optim.SGD
Adam = torch.optim.Adam
AdamW = torch.optim.AdamW
