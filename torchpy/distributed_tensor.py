# torch.distributed.tensor's placements, as tensor-parallel plans name
# them; a DTensor needs a device mesh, which needs a process group, which
# the tool, running one process, never has.


class Placement:
    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False


class Replicate(Placement):
    def is_replicate(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return -1

    def __repr__(self):
        return 'Replicate()'


class Shard(Placement):
    def __init__(self, dim):
        self.dim = dim

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __eq__(self, other):
        return isinstance(other, Shard) and other.dim == self.dim

    def __hash__(self):
        return hash(self.dim)

    def __repr__(self):
        return f'Shard(dim={self.dim})'
