# A grad mode as a decorator: the function is wrapped in a Python
# function, as PyTorch wraps it, so a decorated method still binds its
# instance (@torch.no_grad() on a model's generate), and the arguments
# live in the wrapper's *args until the call returns.
import functools


def _decorate(mode, fn):
    @functools.wraps(fn)
    def decorate_context(*args, **kwargs):
        with mode:
            return fn(*args, **kwargs)
    return decorate_context
