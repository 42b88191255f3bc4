# pytorch/pytorch#47589: the optimizer and a LambdaLR whose lambda reads
# self.lr are attributes of the same object: each Foo is a cycle that
# holds Adam's state until the collector runs.
import torch

weight = torch.nn.Linear(100, 100).to("cuda")


class Foo:
    def __init__(self):
        self.lr = 1.0
        self.op = torch.optim.Adam(weight.parameters())
        self.sc = torch.optim.lr_scheduler.LambdaLR(self.op, lr_lambda=lambda s: self.lr)

    def run(self):
        loss = weight(torch.randn(32, 100).to("cuda")).mean()
        self.op.zero_grad()
        loss.backward()
        self.sc.step()
        self.op.step()


for i in range(40):
    Foo().run()
    print(i, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
