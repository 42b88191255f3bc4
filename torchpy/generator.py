# torch.Generator: a random number generator as model code handles it:
# seeded, passed as generator= to the random ops, its state read and
# set. The tool draws no random numbers, so a generator is its device
# and seed; its state is the tensor PyTorch returns (host memory: 5056
# bytes for the CPU's, 16 for a CUDA device's). A CUDA generator takes
# no device memory.


class Generator:
    __module__ = "torch._C"

    def __init__(self, device="cpu"):
        import torch
        self.device = torch.device(device) if isinstance(device, (str, int)) else device
        if self.device.type == "cuda" and self.device.index is None:
            self.device = torch.device("cuda", torch.cuda.current_device())
        self._seed = 67280421310721

    def manual_seed(self, seed):
        self._seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        # PyTorch draws a nondeterministic seed; the tool has no entropy to
        # match it, so it takes the next seed in order
        self._seed = (self._seed + 1) & 0xFFFFFFFFFFFFFFFF
        return self._seed

    def get_state(self):
        import torch
        if self.device.type == "cuda":
            return torch.cuda.get_rng_state(self.device)
        return torch.get_rng_state()

    def set_state(self, new_state):
        import torch
        if not isinstance(new_state, torch.Tensor) or new_state.dtype != torch.uint8:
            raise TypeError("expected a torch.ByteTensor, but got %s" % type(new_state).__name__)
        return self
