import torch, sys

weight = torch.nn.Linear(100, 100).to("cuda")


class Foo:
    def __init__(self):
        sys._debugmallocstats()
        self.lr = 1.0
        sys._debugmallocstats()
        self.op = torch.optim.Adam(weight.parameters())
        sys._debugmallocstats()
        self.sc = torch.optim.lr_scheduler.LambdaLR(self.op, lr_lambda=lambda s: self.lr)
        sys._debugmallocstats()

    def run(self):
        loss = weight(torch.randn(32, 100).to("cuda")).mean()
        sys._debugmallocstats()
        self.op.zero_grad()
        sys._debugmallocstats()
        loss.backward()
        sys._debugmallocstats()
        self.sc.step()
        sys._debugmallocstats()
        self.op.step()
        sys._debugmallocstats()


for i in range(40):
    Foo().run()
    sys._debugmallocstats()
    print(i, torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
    sys._debugmallocstats()
