import gc
import torch


class Garbage:
  def __init__(self, obj):
    self.obj = obj
    self.cycle = self


gc.collect()
for i in range(100):
  Garbage(torch.empty(1024 * 100, 1024).cuda())
  print(i)
