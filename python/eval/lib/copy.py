# copy, as gpumemrepl runs it (embedded by copy.go).
class Error(Exception):
    pass


error = Error

_atomic = (type(None), int, float, bool, str, bytes, type, range, type(len),
           type(lambda: 0), property, type(Ellipsis), type(NotImplemented))


def _refuse(x):
    raise _refusal(NotImplementedError(f'copying an object of type {type(x).__name__} is not modelled by gpumemrepl'))


def _own(cls, name):
    # whether a class other than object defines name
    for k in cls.__mro__:
        if k is not object and name in k.__dict__:
            return True
    return False


def _slots(cls):
    names = []
    for k in cls.__mro__:
        s = k.__dict__.get('__slots__', ())
        names.extend([s] if isinstance(s, str) else s)
    return [n for n in names if n not in ('__dict__', '__weakref__')]


def _state(x):
    # what CPython's object.__reduce_ex__ takes: __getstate__'s, else the
    # instance dict and the slots' values
    if _own(type(x), '__getstate__'):
        return x.__getstate__()
    d = x.__dict__ if hasattr(x, '__dict__') else None
    slots = {n: getattr(x, n) for n in _slots(type(x)) if hasattr(x, n)}
    if slots:
        return (d or None, slots)
    return d or None


def _set_state(y, state):
    if state is None:
        return
    setstate = getattr(y, '__setstate__', None)
    if setstate is not None:
        setstate(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        y.__dict__.update(state)
    if slots:
        for k, v in slots.items():
            setattr(y, k, v)


def _reconstruct(x, memo, func, args, state=None, listiter=None, dictiter=None):
    deep = memo is not None
    if deep and args:
        args = deepcopy(args, memo)
    y = func(*args)
    if deep:
        memo[id(x)] = y
    if state is not None:
        if deep:
            state = deepcopy(state, memo)
        _set_state(y, state)
    if listiter is not None:
        for item in listiter:
            y.append(deepcopy(item, memo) if deep else item)
    if dictiter is not None:
        for k, v in dictiter:
            y[deepcopy(k, memo) if deep else k] = deepcopy(v, memo) if deep else v
    return y


def _generic(x, memo):
    # an instance: its class's own __reduce_ex__ or __reduce__ if it has
    # one, else made with __new__ and given its state, as object's does
    cls = type(x)
    for name in ('__reduce_ex__', '__reduce__'):
        if _own(cls, name):
            rv = x.__reduce_ex__(4) if name == '__reduce_ex__' else x.__reduce__()
            if isinstance(rv, str):
                return x
            return _reconstruct(x, memo, *rv)
    if not isinstance(x, object) or type(cls) is not type and not isinstance(cls, type):
        _refuse(x)
    value = _value(x)
    if isinstance(value, (set, frozenset)):
        # set's own __reduce__: the class called with the items
        return _reconstruct(x, memo, cls, (list(value),), _state(x))
    if value is not None and not isinstance(value, (list, dict)):
        # int, float, str, tuple: __getnewargs__ gives the value
        return _reconstruct(x, memo, cls.__new__, (cls, value), _state(x))
    try:
        y = cls.__new__(cls)
    except TypeError:
        _refuse(x)
    if memo is not None:
        memo[id(x)] = y
    state = _state(x)
    if memo is not None and state is not None:
        state = deepcopy(state, memo)
    _set_state(y, state)
    if isinstance(value, list):
        for item in value:
            y.append(deepcopy(item, memo) if memo is not None else item)
    elif isinstance(value, dict):
        for k, v in value.items():
            y[deepcopy(k, memo) if memo is not None else k] = deepcopy(v, memo) if memo is not None else v
    return y


def copy(x):
    cls = type(x)
    if cls in _atomic or cls in (tuple, frozenset) or isinstance(x, _atomic) and _value(x) is None:
        return x
    if cls is list:
        return list(x)
    if cls is dict:
        return dict(x)
    if cls is set:
        return set(x)
    copier = getattr(cls, '__copy__', None)
    if copier is not None:
        return copier(x)
    y = _embedded_copy(x, None)
    if y is not NotImplemented:
        return y
    return _generic(x, None)


def _keep_alive(x, memo):
    try:
        memo[id(memo)].append(x)
    except KeyError:
        memo[id(memo)] = [x]


def deepcopy(x, memo=None, _nil=[]):
    if memo is None:
        memo = {}
    d = id(x)
    y = memo.get(d, _nil)
    if y is not _nil:
        return y
    cls = type(x)
    if cls in _atomic or isinstance(x, _atomic) and _value(x) is None:
        return x
    if cls is list:
        y = []
        memo[d] = y
        for a in x:
            y.append(deepcopy(a, memo))
    elif cls is tuple:
        items = [deepcopy(a, memo) for a in x]
        try:
            return memo[d]
        except KeyError:
            pass
        same = True
        for a, b in zip(x, items):
            if a is not b:
                same = False
                break
        y = x if same else tuple(items)
    elif cls is dict:
        y = {}
        memo[d] = y
        for k, v in x.items():
            y[deepcopy(k, memo)] = deepcopy(v, memo)
    elif cls in (set, frozenset):
        y = cls(deepcopy(a, memo) for a in x)
    else:
        copier = getattr(x, '__deepcopy__', None)
        if copier is not None:
            y = copier(memo)
        else:
            y = _embedded_deepcopy(x, memo)
            if y is NotImplemented:
                y = _generic(x, memo)
    if y is not x:
        memo[d] = y
        _keep_alive(x, memo)
    return y
