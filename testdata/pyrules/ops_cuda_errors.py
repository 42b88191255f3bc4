# torch.cuda's functions given a device that is not there, or not a
# CUDA device: PyTorch's exceptions and messages, word for word.
import torch


def show(f, *args):
    try:
        r = f(*args)
        print(f.__name__, args, '->', r if not hasattr(r, 'total_memory') else r.name)
    except Exception as e:
        print(f.__name__, args, '->', type(e).__name__ + ':', e)


show(torch.cuda.get_device_properties, 2**70)
show(torch.cuda.get_device_properties, -1)
show(torch.cuda.get_device_properties, 9)
show(torch.cuda.get_device_properties, 'cuda:9')
show(torch.cuda.get_device_properties, 'cpu')
show(torch.cuda.get_device_properties, torch.device('cpu'))
show(torch.cuda.get_device_properties, 'cuda')
show(torch.cuda.get_device_properties, 'gpu')
show(torch.cuda.get_device_properties, 1.5)
show(torch.cuda.get_device_properties, None)
show(torch.cuda.get_device_name, 9)
show(torch.cuda.get_device_name, 'cpu')
show(torch.cuda.get_device_name, -1)
show(torch.cuda.get_device_capability, 9)
show(torch.cuda.get_device_capability, 'cpu')
show(torch.cuda.set_device, 9)
show(torch.cuda.set_device, -1)
show(torch.cuda.set_device, 'cpu')
show(torch.cuda.memory_allocated, 9)
show(torch.cuda.memory_allocated, 'cpu')
show(torch.cuda.memory_reserved, -1)
show(torch.cuda.max_memory_allocated, 2**70)
show(torch.cuda.mem_get_info, 9)
show(torch.cuda.memory_stats, 9)
show(torch.cuda.reset_peak_memory_stats, 9)
show(torch.cuda.synchronize, 9)
show(torch.cuda.synchronize, 'cpu')
show(torch.device, 'cuda:9')
show(torch.device, 'cuda:-1')
show(torch.device, 'gpu')
show(torch.device, 'cuda', -1)
show(lambda: torch.zeros(2, device='cuda:9'))
print(torch.cuda.get_device_properties(0).name, torch.cuda.get_device_properties('cuda').major, torch.cuda.get_device_properties(torch.device('cuda', 0)).minor)
