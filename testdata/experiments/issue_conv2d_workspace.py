import torch as th

# kernel.shape = (64,128,6,6)
small_memory_kernel = th.nn.Conv2d(128,64,6,1,3).cuda() # after this: 525MiB from nvidia-smi

#kernel.shape = (64,128,7,7)
BUG_MEMORY_KERNEL = th.nn.Conv2d(128,64,7,1,3).cuda() # after this: 527MiB

x = th.randn((1,128,768,1024)).cuda() # 911MiB

y = small_memory_kernel(x) # 1117MiB
del y
import gc
gc.collect()
th.cuda.empty_cache() # 917MiB

'''
HERE IT GOES
'''
y = BUG_MEMORY_KERNEL(x) # 19925MiB

th.cuda.empty_cache() # 1109MiB
