# torch.backends.cudnn.flags: a context in which the flags the session
# reads at each convolution and RNN (enabled, benchmark, deterministic,
# allow_tf32) take the values given, PyTorch's defaults for those not
# given (so flags() alone turns cuDNN off), and are restored after.


class flags:
    def __init__(self, enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
        self._values = {'enabled': enabled, 'benchmark': benchmark, 'benchmark_limit': benchmark_limit,
                        'deterministic': deterministic, 'allow_tf32': allow_tf32}

    def __enter__(self):
        g = globals()
        self._saved = {k: g.get(k, 10) for k in self._values}
        g.update(self._values)

    def __exit__(self, *exc):
        globals().update(self._saved)
        return False
