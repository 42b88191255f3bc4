# torch.nn, as gpumemrepl runs it (embedded by module_containers.go).
class _IncompatibleKeys:
    def __init__(self, missing_keys, unexpected_keys):
        self.missing_keys = missing_keys
        self.unexpected_keys = unexpected_keys

    def __iter__(self):
        return iter((self.missing_keys, self.unexpected_keys))

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return '<All keys matched successfully>'
        return f'_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})'


def _index(container, idx):
    n = len(container)
    if not -n <= idx < n:
        raise IndexError(f'index {idx} is out of range')
    return str(idx % n)


def _key(container, idx):
    # the key of the idx-th module (Sequential indexes by position)
    keys = list(container._modules.keys())
    n = len(keys)
    if not -n <= idx < n:
        raise IndexError(f'index {idx} is out of range')
    return keys[idx % n]


class _Indexed(Module):
    # what Sequential and ModuleList share
    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class Sequential(_Indexed):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], dict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(dict(list(self._modules.items())[idx]))
        return self._modules[_key(self, idx)]

    def __setitem__(self, idx, module):
        setattr(self, _key(self, idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, _key(self, idx))
        modules = list(self._modules.values())
        self._modules.clear()
        for i, module in enumerate(modules):
            self._modules[str(i)] = module

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(_Indexed):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[_index(self, idx)]

    def __setitem__(self, idx, module):
        setattr(self, _index(self, idx), module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def extend(self, modules):
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        if isinstance(modules, (dict, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
        else:
            for key, module in modules:
                self[key] = module


class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__([self[i] for i in range(len(self))[idx]])
        return getattr(self, _index(self, idx))

    def __setitem__(self, idx, param):
        if not _is_parameter(param):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def __iadd__(self, params):
        return self.extend(params)

    def append(self, value):
        i = len(self)
        self._size += 1
        self[i] = value
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return _parameter_lines(enumerate(self))


def _parameter_lines(items):
    lines = []
    for k, p in items:
        size = 'x'.join(str(d) for d in p.shape)
        device = f' ({p.device})' if p.device.type == 'cuda' else ''
        kind = 'Parameter' if _is_parameter(p) else 'Tensor'
        lines.append(f'  ({k}): {kind} containing: [{p.dtype} of size {size}{device}]')
    return '\n'.join(lines)


class ParameterDict(Module):
    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, param):
        if not _is_parameter(param):
            param = Parameter(param)
        setattr(self, key, param)

    def __delitem__(self, key):
        delattr(self, key)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        items = parameters.items() if isinstance(parameters, (dict, ParameterDict)) else parameters
        for key, param in items:
            self[key] = param

    def extra_repr(self):
        return _parameter_lines(self.items())


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        shape = tuple(input.shape)
        start = self.start_dim % len(shape)
        end = self.end_dim % len(shape)
        n = 1
        for d in shape[start:end + 1]:
            n *= d
        return input.reshape(*shape[:start], n, *shape[end + 1:])

    def extra_repr(self):
        return f'start_dim={self.start_dim}, end_dim={self.end_dim}'


class Tanh(Module):
    def forward(self, input):
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input):
        return input.sigmoid()


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        if self.inplace:
            return functional.silu(input, inplace=True)
        return functional.silu(input)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class Mish(Module):
    """Mish(inplace=False): F.mish, a new tensor, its input saved (estimated)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return functional.mish(input, inplace=self.inplace)

    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


class ELU(Module):
    """ELU(alpha=1.0, inplace=False): F.elu, a new tensor, its input saved."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return functional.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f'alpha={self.alpha}, inplace=True' if self.inplace else f'alpha={self.alpha}'


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        if self.inplace:
            return functional.leaky_relu(input, self.negative_slope, True)
        return functional.leaky_relu(input, self.negative_slope)

    def extra_repr(self):
        return f'negative_slope={self.negative_slope}' + (', inplace=True' if self.inplace else '')
