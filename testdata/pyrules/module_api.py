# nn.Module's API over a user class: registration (parameters, buffers
# persistent or not, submodules in ModuleList/ModuleDict/Sequential), the
# named_* walks and their order, state_dict (detached views: no memory),
# load_state_dict (copies in place: no new memory, from the GPU or the
# host), train/eval, requires_grad_, zero_grad, apply, add_module,
# register_parameter, Sequential's indexing. Recorded with --events.
import torch
from torch import nn

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(1024, 1024)
        self.act = nn.ReLU()
        self.blocks = nn.ModuleList([nn.Linear(1024, 512), nn.Linear(512, 1024)])
        self.heads = nn.ModuleDict({'a': nn.Linear(1024, 256), 'b': nn.Identity()})
        self.register_buffer('mask', torch.ones(1024, 1024))
        self.register_buffer('scratch', torch.zeros(256, 1024), persistent=False)
        self.scale = nn.Parameter(torch.ones(1024))

    def forward(self, x):
        x = self.act(self.fc1(x)) * self.scale
        for block in self.blocks:
            x = block(x)
        return self.heads['a'](self.heads['b'](x))


net = Net()
print([n for n, _ in net.named_parameters()])
print([n for n, _ in net.named_buffers()], len(list(net.buffers())))
print([n for n, _ in net.named_children()], len(list(net.children())))
print([n for n, _ in net.named_modules()], len(list(net.modules())))
print(list(net.state_dict().keys()))
print(net.training, net.eval() is net, net.training, net.blocks[0].training, net.train().training)
print(len(net.blocks), len(net.heads), list(net.heads.keys()), type(net.blocks[-1]).__name__)
net.cuda()
show("net.cuda()")
x = torch.ones(64, 1024, device='cuda')
out = net(x)
show("forward")
out.sum().backward()
show("backward")
del out
sd = net.state_dict()
show("state_dict()")
print(sd['fc1.weight'].requires_grad, sd['fc1.weight'].data_ptr() == net.fc1.weight.data_ptr())
net.load_state_dict(sd)
show("load_state_dict(same)")
host = {k: v.cpu() for k, v in sd.items()}
del sd
show("a host copy")
result = net.load_state_dict(host)
show("load_state_dict(host)")
print(result.missing_keys, result.unexpected_keys)
del host, result
net.zero_grad(set_to_none=False)
show("zero_grad(False)")
net.zero_grad()
show("zero_grad()")
net.requires_grad_(False)
print(net.fc1.weight.requires_grad, all(not p.requires_grad for p in net.parameters()))
out = net(x)
show("forward, no grad needed")
del out
net.requires_grad_()
kinds = []
net.apply(lambda m: kinds.append(type(m).__name__))
print(kinds)
net.add_module('extra', nn.Linear(1024, 1024, device='cuda'))
show("add_module")
net.register_parameter('bias2', None)
net.register_parameter('bias3', nn.Parameter(torch.zeros(1024, device='cuda')))
print([n for n, _ in net.named_parameters()][-3:], net.bias2)
show("register_parameter")
del net.extra
show("del net.extra")
seq = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 16)).cuda()
print(len(seq), type(seq[0]).__name__, type(seq[-1]).__name__, [type(m).__name__ for m in seq])
head = seq[1:]
print(type(head).__name__, len(head), head[1] is seq[2])
show("Sequential")
y = seq(x)
show("Sequential forward")
del y, head, seq, x
del net
show("all freed")
