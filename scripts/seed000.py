import torch
#%%
a = torch.zeros([256,1024,1024], device= 'cuda')
#%%
b = torch.zeros([256,1024,1024], device= 'cuda')
#%%
b = b.to('cpu')
#%%
c = torch.zeros([256,1024,1024], device= 'cuda')
#%%
c = torch.zeros([256,1024,1024], device= 'cuda')
#%%
d = torch.zeros([256,1024,1024], device= 'cuda')
#%%
del d
#%%
e = torch.zeros([256,1024,1024], device= 'cpu')
#%%
e = e.to('cuda')
#%%
torch.cuda.empty_cache()
#%%
del a, b, c, e
#%%
torch.cuda.empty_cache()
