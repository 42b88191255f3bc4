import torch
import torch.nn as nn

# 创建一个小张量并放到 GPU 上
tensor = torch.tensor([1., 2., 3.]).cuda()

# 释放缓存的显存（张量还在，所以什么也释放不了）
torch.cuda.empty_cache()

# 一个全连接层和一批输入
model = nn.Linear(1000, 1000).cuda()
inputs = torch.randn(1000, 1000).cuda()

# 前向传播（默认会记录计算图）
outputs = model(inputs)
del outputs

# 使用 torch.no_grad()：不记录计算图，节省显存
with torch.no_grad():
    outputs = model(inputs)
del outputs

# 更大的模型：Linear(1000, 4000) -> ReLU -> Linear(4000, 1000)
m2 = nn.Sequential(nn.Linear(1000, 4000), nn.ReLU(), nn.Linear(4000, 1000)).cuda()

# 前向 + 反向传播
y = m2(inputs)
y.sum().backward()
del y

# 把梯度设为 None，释放梯度占用的显存
m2.zero_grad(set_to_none=True)

# 推理时用 no_grad
with torch.no_grad():
    y = m2(inputs)
del y

# 最后清空缓存
torch.cuda.empty_cache()
