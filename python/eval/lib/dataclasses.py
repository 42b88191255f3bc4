# dataclasses, as gpumemrepl runs it (embedded by dataclasses.go).
class FrozenInstanceError(AttributeError):
    pass


class _MissingType:
    def __repr__(self):
        return 'MISSING'


MISSING = _MissingType()


class _KW_ONLY_TYPE:
    pass


KW_ONLY = _KW_ONLY_TYPE()


class InitVar:
    def __init__(self, type):
        self.type = type

    def __repr__(self):
        name = self.type.__name__ if isinstance(self.type, type) else repr(self.type)
        return f'dataclasses.InitVar[{name}]'

    def __class_getitem__(cls, type):
        return InitVar(type)


def _is_initvar(t):
    if isinstance(t, str):
        return t.startswith('InitVar') or t.startswith('dataclasses.InitVar')
    return t is InitVar or isinstance(t, InitVar)


def _is_kw_only(t):
    if isinstance(t, str):
        return t in ('KW_ONLY', 'dataclasses.KW_ONLY')
    return t is KW_ONLY


class Field:
    def __init__(self, default, default_factory, init, repr, hash, compare, kw_only):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.kw_only = kw_only
        self.initvar = False

    def __repr__(self):
        return (f'Field(name={self.name!r},type={self.type!r},default={self.default!r},'
                f'default_factory={self.default_factory!r},init={self.init!r},repr={self.repr!r},'
                f'hash={self.hash!r},compare={self.compare!r},kw_only={self.kw_only!r})')


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None,
          compare=True, metadata=None, kw_only=MISSING):
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError('cannot specify both default and default_factory')
    return Field(default, default_factory, init, repr, hash, compare, kw_only)


def _is_classvar(t):
    if isinstance(t, str):
        return t.startswith('ClassVar') or t.startswith('typing.ClassVar')
    return getattr(t, '_name', None) == 'ClassVar'


def _has_default(f):
    return f.default is not MISSING or f.default_factory is not MISSING


def _collect(cls, kw_only):
    fields = {}
    for b in cls.__mro__[-1:0:-1]:
        base = b.__dict__.get('__dataclass_fields__')
        if base is not None:
            for f in base.values():
                fields[f.name] = f
    for name, typ in cls.__dict__.get('__annotations__', {}).items():
        if _is_classvar(typ):
            continue
        if _is_kw_only(typ):
            # the fields after the KW_ONLY pseudo-field are keyword-only
            kw_only = True
            continue
        default = cls.__dict__.get(name, MISSING)
        if isinstance(default, Field):
            f = default
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        else:
            f = Field(default, MISSING, True, True, None, True, MISSING)
        f.name = name
        f.type = typ
        f.initvar = _is_initvar(typ)
        if f.kw_only is MISSING:
            f.kw_only = kw_only
        if not f.initvar and f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(f'mutable default {type(f.default)} for field {name} is not allowed: use default_factory')
        fields[name] = f
    return fields


def _make_init(cls, fields):
    qual = cls.__qualname__
    inits = [f for f in fields.values() if f.init]
    positional = [f for f in inits if not f.kw_only]
    names = [f.name for f in inits]
    seen_default = False
    for f in positional:
        if _has_default(f):
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument '{f.name}' follows default argument")

    def __init__(self, *args, **kwargs):
        if len(args) > len(positional):
            total = len(positional) + 1
            least = 1 + len([f for f in positional if not _has_default(f)])
            takes = f'{total} positional argument' if least == total else f'from {least} to {total} positional argument'
            s = '' if total == 1 else 's'
            raise TypeError(f'{qual}.__init__() takes {takes}{s} but {len(args) + 1} were given')
        values = {}
        for f, v in zip(positional, args):
            values[f.name] = v
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{qual}.__init__() got an unexpected keyword argument '{k}'")
            if k in values:
                raise TypeError(f"{qual}.__init__() got multiple values for argument '{k}'")
            values[k] = v
        missing = [f.name for f in inits if f.name not in values and not _has_default(f)]
        if missing:
            s = 's' if len(missing) > 1 else ''
            quoted = [f"'{n}'" for n in missing]
            listed = quoted[0] if len(quoted) == 1 else ', '.join(quoted[:-1]) + ' and ' + quoted[-1]
            raise TypeError(f'{qual}.__init__() missing {len(missing)} required positional argument{s}: {listed}')
        initvars = []
        for f in fields.values():
            if f.initvar:
                initvars.append(values.pop(f.name) if f.name in values else f.default)
                continue
            if f.name in values:
                v = values.pop(f.name)
            elif f.default_factory is not MISSING:
                v = f.default_factory()
            elif f.init:
                v = f.default
            else:
                continue
            object.__setattr__(self, f.name, v)
            del v
        post = getattr(self, '__post_init__', None)
        if post is not None:
            post(*initvars)
    return __init__


def _values(self, fields, which):
    return tuple(getattr(self, f.name) for f in fields.values() if getattr(f, which) and not f.initvar)


_repr_running = set()


def _make_compare(fields, op):
    def compare(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        a, b = _values(self, fields, 'compare'), _values(other, fields, 'compare')
        if op == 'eq':
            return a == b
        if op == 'lt':
            return a < b
        if op == 'le':
            return a <= b
        if op == 'gt':
            return a > b
        return a >= b
    return compare


def _process(cls, init, repr, eq, order, unsafe_hash, frozen, kw_only):
    fields = _collect(cls, kw_only)
    cls.__dataclass_fields__ = fields
    if init and '__init__' not in cls.__dict__:
        cls.__init__ = _make_init(cls, fields)
    if repr and '__repr__' not in cls.__dict__:
        def __repr__(self):
            key = id(self)
            if key in _repr_running:
                return '...'
            _repr_running.add(key)
            try:
                shown = [f'{f.name}={getattr(self, f.name)!r}' for f in fields.values() if f.repr and not f.initvar]
            finally:
                _repr_running.discard(key)
            return f'{self.__class__.__qualname__}(' + ', '.join(shown) + ')'
        cls.__repr__ = __repr__
    if eq and '__eq__' not in cls.__dict__:
        cls.__eq__ = _make_compare(fields, 'eq')
    if order:
        if not eq:
            raise ValueError('eq must be true if order is true')
        for op in ('lt', 'le', 'gt', 'ge'):
            setattr(cls, f'__{op}__', _make_compare(fields, op))
    if frozen:
        def __setattr__(self, name, value):
            if name in fields:
                raise FrozenInstanceError(f"cannot assign to field '{name}'")
            object.__setattr__(self, name, value)

        def __delattr__(self, name):
            if name in fields:
                raise FrozenInstanceError(f"cannot delete field '{name}'")
            object.__delattr__(self, name)
        cls.__setattr__ = __setattr__
        cls.__delattr__ = __delattr__
    if unsafe_hash or (eq and frozen):
        def __hash__(self):
            return hash(tuple(getattr(self, f.name) for f in fields.values()
                              if not f.initvar and (f.compare if f.hash is None else f.hash)))
        cls.__hash__ = __hash__
    elif eq and '__hash__' not in cls.__dict__:
        cls.__hash__ = None
    cls.__match_args__ = tuple(f.name for f in fields.values() if f.init and not f.kw_only and not f.initvar)
    return cls


def dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False,
              frozen=False, match_args=True, kw_only=False, slots=False, weakref_slot=False):
    if slots:
        raise _refusal(NotImplementedError('dataclass(slots=True) is not modelled by gpumemrepl'))

    def wrap(c):
        return _process(c, init, repr, eq, order, unsafe_hash, frozen, kw_only)
    if cls is None:
        return wrap
    return wrap(cls)


def is_dataclass(obj):
    c = obj if isinstance(obj, type) else type(obj)
    return hasattr(c, '__dataclass_fields__')


def fields(class_or_instance):
    if not is_dataclass(class_or_instance):
        raise TypeError('must be called with a dataclass type or instance')
    return tuple(f for f in class_or_instance.__dataclass_fields__.values() if not f.initvar)


def _plain(obj, factory):
    if is_dataclass(obj) and not isinstance(obj, type):
        return factory([(f.name, _plain(getattr(obj, f.name), factory)) for f in fields(obj)])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_plain(v, factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_plain(k, factory), _plain(v, factory)) for k, v in obj.items())
    if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return obj
    raise _refusal(NotImplementedError(f'dataclasses deep-copies a {type(obj).__name__} value (copy.deepcopy): not modelled by gpumemrepl'))


def asdict(obj, *, dict_factory=dict):
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError('asdict() should be called on dataclass instances')
    return _plain(obj, dict_factory)


def astuple(obj, *, tuple_factory=tuple):
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError('astuple() should be called on dataclass instances')
    return tuple_factory(v for k, v in _plain(obj, list))


def replace(obj, /, **changes):
    for f in fields(obj):
        if f.init and f.name not in changes and not f.initvar:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)
