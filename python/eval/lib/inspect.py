# inspect, as gpumemrepl runs it (embedded by inspect.go).
class _empty:
    pass


class Parameter:
    POSITIONAL_ONLY = 0
    POSITIONAL_OR_KEYWORD = 1
    VAR_POSITIONAL = 2
    KEYWORD_ONLY = 3
    VAR_KEYWORD = 4
    empty = _empty

    def __init__(self, name, kind, *, default=_empty, annotation=_empty):
        self._name = name
        self._kind = kind
        self._default = default
        self._annotation = annotation

    @property
    def name(self):
        return self._name

    @property
    def kind(self):
        return self._kind

    @property
    def default(self):
        return self._default

    @property
    def annotation(self):
        return self._annotation

    def __str__(self):
        s = self._name
        if self._kind == 2:
            s = '*' + s
        elif self._kind == 4:
            s = '**' + s
        if self._default is not _empty:
            s += '=' + repr(self._default)
        return s

    def __repr__(self):
        return f'<Parameter "{self}">'


class Signature:
    empty = _empty

    def __init__(self, parameters=None, *, return_annotation=_empty):
        self._parameters = {p.name: p for p in (parameters or [])}
        self._return_annotation = return_annotation

    @property
    def parameters(self):
        return dict(self._parameters)

    @property
    def return_annotation(self):
        return self._return_annotation

    def __str__(self):
        parts = []
        slash = False
        star = False
        for p in self._parameters.values():
            if p.kind == 0:
                slash = True
            elif slash:
                parts.append('/')
                slash = False
            if p.kind == 3 and not star:
                parts.append('*')
                star = True
            if p.kind == 2:
                star = True
            parts.append(str(p))
        if slash:
            parts.append('/')
        return '(' + ', '.join(parts) + ')'

    def __repr__(self):
        return f'<Signature {self}>'


def _params_of(obj):
    if not callable(obj):
        raise TypeError(f'{obj!r} is not a callable object')
    params = _function_params(obj, _empty)
    if params is not None:
        return params
    if isinstance(obj, type):
        own = obj.__dict__.get('__signature_params__')
        if own is not None:
            return [(p[0], p[1], p[2] if len(p) > 2 else _empty) for p in own]
        init = getattr(obj, '__init__', None)
        params = _function_params(init, _empty)
        if params is not None:
            return params[1:]
    if hasattr(obj, '__func__'):
        params = _function_params(obj.__func__, _empty)
        if params is not None:
            return params[1:]
    raise ValueError(f'no signature found for {obj!r}')


def signature(obj):
    return Signature([Parameter(n, k, default=d) for n, k, d in _params_of(obj)])


def isclass(object):
    return isinstance(object, type)


def isfunction(object):
    return type(object).__name__ == 'function'


def ismethod(object):
    return type(object).__name__ == 'method'

