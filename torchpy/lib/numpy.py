# numpy, as gpumemrepl runs it (embedded by numpy.go): only what model
# code computes with it around torch on the host, where its arrays live
# (PyTorch's programs use numpy on the CPU, so it takes no GPU memory).
# Whisper's sinusoids take np.log of a number and index by np.newaxis;
# the rest of numpy is refused (names.go's note for the module).
import math as _math

newaxis = None


def log(x):
    """log(x): the natural logarithm of a number, as a float (numpy's float64 is a float); -inf at 0, nan below it."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise _refusal(NotImplementedError(f"numpy.log of a {type(x).__name__} is not modelled by gpumemrepl: its numpy takes a number (numpy's arrays live on the host)"))
    if x == 0:
        return -_math.inf
    if x < 0 or x != x:
        return _math.nan
    return _math.log(x)
