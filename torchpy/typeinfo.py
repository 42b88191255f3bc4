# torch.finfo and torch.iinfo: what a dtype can hold, PyTorch 2.11's
# figures (testdata/pyrules/census_python.py), and torch._assert.

# bits, eps, max, smallest normal, resolution
_floats = {
    "float32": (32, 1.1920928955078125e-07, 3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06),
    "float16": (16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001),
    "bfloat16": (16, 0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 0.01),
    "float64": (64, 2.220446049250313e-16, 1.7976931348623157e+308, 2.2250738585072014e-308, 1e-15),
}
_ints = {"uint8": (8, 0), "int8": (8, 1), "int16": (16, 1), "int32": (32, 1), "int64": (64, 1)}


class finfo:
    def __init__(self, type=None):
        name = "float32" if type is None else _dtype_name(type)
        if name not in _floats:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        self.bits, self.eps, self.max, self.tiny, self.resolution = _floats[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = name

    def __repr__(self):
        return "finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, dtype=%s)" % (
            self.resolution, self.min, self.max, self.eps, self.smallest_normal, self.tiny, self.dtype)


class iinfo:
    def __init__(self, type):
        name = _dtype_name(type)
        if name not in _ints:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        self.bits, signed = _ints[name]
        self.max = (1 << (self.bits - signed)) - 1
        self.min = -(1 << (self.bits - 1)) if signed else 0
        self.dtype = name

    def __repr__(self):
        return "iinfo(min=%g, max=%g, dtype=%s)" % (self.min, self.max, self.dtype)


def _dtype_name(t):
    s = str(t)
    if not s.startswith("torch."):
        raise TypeError("finfo(): argument 'type' (position 1) must be torch.dtype, not %s" % type(t).__name__)
    return s[len("torch."):]


def _assert(condition, message):
    assert condition, message


pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")
