# pytorch/pytorch#51883: a lambda in a class keeps the object alive in a
# cycle, and with it the tensor passed in; memory grows until the
# collector runs, then drops (the 1144 MiB steps, smaller here).
import torch


class Class1(object):
    def __init__(self, x0):
        self.x0 = x0
        self.obj2 = Class2()
        self._leak_fcn = lambda: self.obj2.fcn()


class Class2(object):
    def fcn(self):
        pass


def fcn(x0):
    obj1 = Class1(x0)
    return x0


def test_fcn():
    shape = (500000, 3)
    y0 = torch.randn(shape).to(torch.double).to(torch.device("cuda"))
    y = fcn(y0)
    return y


for i in range(300):
    test_fcn()
    torch.cuda.empty_cache()
    print("memory allocated: %f MiB" % float(torch.cuda.memory_allocated() / 1024 ** 2))
