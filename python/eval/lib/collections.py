# collections, as gpumemrepl runs it (embedded by collections.go).
def _copy_or(self, other):
    # OrderedDict's and defaultdict's d | other: a copy of d's own type
    if not isinstance(other, dict):
        return NotImplemented
    new = self.copy()
    new.update(other)
    return new

class OrderedDict(dict):
    def __repr__(self):
        if not self:
            return f'{type(self).__name__}()'
        return f'{type(self).__name__}({list(self.items())!r})'

    def keys(self):
        return _odict_view(self, 'keys')

    def values(self):
        return _odict_view(self, 'values')

    def items(self):
        return _odict_view(self, 'items')

    def move_to_end(self, key, last=True):
        value = dict.pop(self, key)
        if last:
            dict.__setitem__(self, key, value)
            return
        rest = list(self.items())
        dict.clear(self)
        dict.__setitem__(self, key, value)
        for k, v in rest:
            dict.__setitem__(self, k, v)

    def popitem(self, last=True):
        if not self:
            raise KeyError('dictionary is empty')
        key = next(reversed(self)) if last else next(iter(self))
        return key, dict.pop(self, key)

    def __eq__(self, other):
        if isinstance(other, OrderedDict):
            return dict.__eq__(self, other) and list(self) == list(other)
        return dict.__eq__(self, other)

    __hash__ = None

    def copy(self):
        return type(self)(self)

    __or__ = _copy_or

    def __ror__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        new = type(self)(other)
        new.update(self)
        return new

    def __ior__(self, other):
        self.update(other)
        return self

class defaultdict(dict):
    def __init__(self, default_factory=None, *args, **kwargs):
        if default_factory is not None and not callable(default_factory):
            raise TypeError('first argument must be callable or None')
        dict.__init__(self, *args, **kwargs)
        self.default_factory = default_factory

    def __missing__(self, key):
        if self.default_factory is None:
            raise KeyError(key)
        value = self.default_factory()
        self[key] = value
        return value

    def __repr__(self):
        return f'{type(self).__name__}({self.default_factory!r}, {dict.__repr__(self)})'

    def copy(self):
        return type(self)(self.default_factory, self)

    __copy__ = copy

    __or__ = _copy_or

    def __ror__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        new = type(self)(self.default_factory, other)
        new.update(self)
        return new

class Counter(dict):
    def __init__(self, iterable=None, /, **kwds):
        dict.__init__(self)
        self.update(iterable, **kwds)

    def __missing__(self, key):
        return 0

    def total(self):
        return sum(self.values())

    def most_common(self, n=None):
        items = sorted(self.items(), key=lambda kv: kv[1], reverse=True)
        return items if n is None else items[:n]

    def elements(self):
        for k, n in self.items():
            for _ in range(n):
                yield k

    def update(self, iterable=None, /, **kwds):
        if iterable is not None:
            if isinstance(iterable, dict):
                for k, n in iterable.items():
                    self[k] = self[k] + n
            else:
                for k in iterable:
                    self[k] = self[k] + 1
        if kwds:
            self.update(kwds)

    def subtract(self, iterable=None, /, **kwds):
        if iterable is not None:
            if isinstance(iterable, dict):
                for k, n in iterable.items():
                    self[k] = self[k] - n
            else:
                for k in iterable:
                    self[k] = self[k] - 1
        if kwds:
            self.subtract(kwds)

    def copy(self):
        return type(self)(self)

    def __repr__(self):
        if not self:
            return f'{type(self).__name__}()'
        return f'{type(self).__name__}({{' + ', '.join(f'{k!r}: {v!r}' for k, v in self.most_common()) + '})'

    def _keep(self, pairs):
        out = Counter()
        for k, n in pairs:
            if n > 0:
                out[k] = n
        return out

    def __add__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        keys = list(self) + [k for k in other if k not in self]
        return self._keep((k, self[k] + other[k]) for k in keys)

    def __sub__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        keys = list(self) + [k for k in other if k not in self]
        return self._keep((k, self[k] - other[k]) for k in keys)

    def __or__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        keys = list(self) + [k for k in other if k not in self]
        return self._keep((k, max(self[k], other[k])) for k in keys)

    def __and__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return self._keep((k, min(self[k], other[k])) for k in self)

def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
    if isinstance(field_names, str):
        field_names = field_names.replace(',', ' ').split()
    field_names = tuple(map(str, field_names))
    typename = str(typename)
    seen = set()
    for name in (typename,) + field_names:
        if not name.isidentifier():
            raise ValueError(f'Type names and field names must be valid identifiers: {name!r}')
    for name in field_names:
        if name.startswith('_'):
            raise ValueError(f'Field names cannot start with an underscore: {name!r}')
        if name in seen:
            raise ValueError(f'Encountered duplicate field name: {name!r}')
        seen.add(name)
    defaults = tuple(defaults) if defaults is not None else ()
    if len(defaults) > len(field_names):
        raise TypeError('Got more default values than field names')
    field_defaults = dict(zip(field_names[len(field_names) - len(defaults):], defaults))
    nfields = len(field_names)

    class _Tuple(tuple):
        _fields = field_names
        _field_defaults = field_defaults

        def __new__(cls, *args, **kwargs):
            if len(args) > nfields:
                raise TypeError(f'{typename}.__new__() takes {nfields + 1} positional arguments but {len(args) + 1} were given')
            values = dict(zip(field_names, args))
            for k, v in kwargs.items():
                if k not in field_names:
                    raise TypeError(f"{typename}.__new__() got an unexpected keyword argument '{k}'")
                if k in values:
                    raise TypeError(f"{typename}.__new__() got multiple values for argument '{k}'")
                values[k] = v
            missing = [n for n in field_names if n not in values and n not in field_defaults]
            if missing:
                s = 's' if len(missing) > 1 else ''
                quoted = [f"'{n}'" for n in missing]
                listed = quoted[0] if len(quoted) == 1 else ', '.join(quoted[:-1]) + ' and ' + quoted[-1]
                raise TypeError(f'{typename}.__new__() missing {len(missing)} required positional argument{s}: {listed}')
            return tuple.__new__(cls, tuple(values[n] if n in values else field_defaults[n] for n in field_names))

        @classmethod
        def _make(cls, iterable):
            result = tuple.__new__(cls, iterable)
            if len(result) != nfields:
                raise TypeError(f'Expected {nfields} arguments, got {len(result)}')
            return result

        def _replace(self, /, **kwds):
            result = self._make(kwds.pop(n, v) for n, v in zip(field_names, self))
            if kwds:
                raise ValueError(f'Got unexpected field names: {list(kwds)!r}')
            return result

        def __repr__(self):
            return f'{self.__class__.__name__}(' + ', '.join(f'{n}={v!r}' for n, v in zip(field_names, self)) + ')'

        def _asdict(self):
            return dict(zip(self._fields, self))

        def __getnewargs__(self):
            return tuple(self)

    for i, name in enumerate(field_names):
        setattr(_Tuple, name, property(lambda self, i=i: self[i]))
    _Tuple.__name__ = typename
    _Tuple.__qualname__ = typename
    _Tuple.__module__ = _caller_module() if module is None else module
    return _Tuple
