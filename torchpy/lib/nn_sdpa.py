# torch.nn.attention, as gpumemrepl runs it (embedded by eager_nn.go):
# SDPBackend and sdpa_kernel. F.scaled_dot_product_attention picks its
# backend as PyTorch 2.11 does on the H200 with every backend enabled
# (engine/attention.go: cuDNN's for float16 and bfloat16, the
# memory-efficient kernel's for float32, the math backend where neither
# applies); sdpa_kernel leaves that pick alone when it enables those three
# backends, and refuses to narrow it (the flash kernel, or the math backend
# alone, are not modelled).


class SDPBackend:
    # PyTorch's enum of the backends, its members by value
    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __repr__(self):
        return f'<SDPBackend.{self.name}: {self.value}>'

    def __int__(self):
        return self.value

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        return isinstance(other, SDPBackend) and other.value == self.value


for _name, _value in (('ERROR', -1), ('MATH', 0), ('FLASH_ATTENTION', 1), ('EFFICIENT_ATTENTION', 2),
                      ('CUDNN_ATTENTION', 3), ('OVERRIDEABLE', 4)):
    setattr(SDPBackend, _name, SDPBackend(_name, _value))
del _name, _value


class sdpa_kernel:
    """sdpa_kernel(backends, set_priority=False): a context in which F.scaled_dot_product_attention uses only backends. The tool models PyTorch's pick with cuDNN's, the memory-efficient and the math backends enabled; a list that enables them leaves it as it is, one that narrows it is refused."""

    def __init__(self, backends, set_priority=False):
        if not isinstance(backends, (list, SDPBackend)):
            raise AssertionError('Backend must be an instance of SDPBackend or a list of SDPBackend instances')
        self.backends = [backends] if isinstance(backends, SDPBackend) else list(backends)
        self.set_priority = set_priority

    def __enter__(self):
        needed = (SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH)
        missing = [b.name for b in needed if b not in self.backends]
        if missing or self.set_priority:
            raise _refusal(NotImplementedError('sdpa_kernel(%r%s) is not modelled by gpumemrepl: it models the backend PyTorch picks '
                                               'with CUDNN_ATTENTION, EFFICIENT_ATTENTION and MATH enabled, and this %s'
                                               % (self.backends, ', set_priority=True' if self.set_priority else '',
                                                  'sets their priority' if not missing else 'leaves out ' + ', '.join(missing))))
        return None

    def __exit__(self, *exc):
        return False


del Module
