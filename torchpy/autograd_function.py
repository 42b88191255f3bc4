# torch.autograd.function: custom autograd Functions, as PyTorch 2.11
# declares them (torch/autograd/function.py). What PyTorch's C++ does
# (THPFunction_apply: the forward under no_grad, the outputs wired into
# the graph, save_for_backward's tensors saved; ctx.saved_tensors) is
# _function_apply and _saved_tensors, over the engine (customfn.go).
import functools
import warnings


class FunctionCtx:
    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs):
        warnings.warn('mark_shared_storage is deprecated. Tensors with shared storages are automatically tracked. '
                      'Note that calls to `set_()` are not tracked', DeprecationWarning, stacklevel=2)

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardCFunction(FunctionCtx):
    """The context of a custom Function's call, and its node (grad_fn): apply runs the class's backward."""

    def apply(self, *args):
        backward_fn = self._forward_cls.backward
        vjp_fn = self._forward_cls.vjp
        if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                               "You should only implement one of them.")
        user_fn = vjp_fn if vjp_fn is not Function.vjp else backward_fn
        return user_fn(self, *args)

    @property
    def saved_tensors(self):
        return _saved_tensors(self)

    @property
    def saved_variables(self):
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return _saved_tensors(self)

    def name(self):
        return type(self).__name__


class _SingleLevelFunction:
    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError('You must implement the forward function for custom autograd.Function.')

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError('setup_context is not implemented.')

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError('You must implement either the backward or vjp method for your custom '
                                  'autograd.Function to use it with backward mode AD.')

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError('You must implement the jvp function for custom autograd.Function to use it '
                                  'with forward mode AD.')


class Function(_SingleLevelFunction):
    """Function: subclass it with staticmethods forward(ctx, *args) (or forward(*args) and setup_context(ctx, inputs, output)) and backward(ctx, *grads); call it as MyFn.apply(*args)."""

    def __init_subclass__(cls, **kwargs):
        # PyTorch's FunctionMeta: the class of the call's context, named
        # after the Function (its node's name)
        class _Backward(BackwardCFunction):
            _forward_cls = cls
        _Backward.__name__ = _Backward.__qualname__ = cls.__name__ + 'Backward'
        cls._backward_cls = _Backward
        super().__init_subclass__(**kwargs)

    def __init__(self, *args, **kwargs):
        warnings.warn(f'{self.__class__} should not be instantiated. Methods on autograd functions are all static, '
                      'so you should invoke them on the class itself. Instantiating an autograd function will raise '
                      'an error in a future version of PyTorch.', DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError('Legacy autograd function with non-static forward method is deprecated. Please use '
                           'new-style autograd function with static forward method. (Example: '
                           'https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)')

    generate_vmap_rule = False

    @classmethod
    def apply(cls, *args, **kwargs):
        setup = cls.setup_context is not _SingleLevelFunction.setup_context
        if setup:
            args = _positional(cls.forward, args, kwargs)
        elif kwargs:
            raise TypeError('apply() takes no keyword arguments')
        return _function_apply(cls, args, setup)


def _positional(fn, args, kwargs):
    # forward's positional parameters, from args, kwargs and their
    # defaults, as setup_context's inputs (Signature.bind and
    # apply_defaults, then .args)
    import inspect
    params = [p for p in inspect.signature(fn).parameters.values() if p.kind in (0, 1)]
    if len(args) > len(params):
        raise TypeError('too many positional arguments')
    out = list(args)
    for p in params[len(args):]:
        if p.name in kwargs:
            out.append(kwargs[p.name])
        elif p.default is not inspect.Parameter.empty:
            out.append(p.default)
        else:
            raise TypeError(f"missing a required argument: '{p.name}'")
    return tuple(out)


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


def once_differentiable(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        import torch
        with torch.no_grad():
            outputs = fn(ctx, *args)
        if not torch.is_grad_enabled():
            return outputs
        if any(isinstance(arg, torch.Tensor) and arg.requires_grad for arg in args):
            raise _refusal(NotImplementedError('once_differentiable under create_graph=True is not modelled by gpumemrepl'))
        return outputs
    return wrapper
