# torch.layout: how a tensor's elements are stored. Every tensor the tool
# models is dense (torch.strided); the sparse layouts are named, never made.


class layout:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return 'torch.' + self._name


strided = layout('strided')
sparse_coo = layout('sparse_coo')
