# itertools, as gpumemrepl runs it (embedded by itertools.go).
class chain:
    def __new__(cls, *iterables):
        return _chain(iterables)

    @staticmethod
    def from_iterable(iterables):
        return _chain(iterables)


def _chain(iterables):
    for it in iterables:
        yield from it


def repeat(obj, times=None):
    if times is None:
        while True:
            yield obj
    for _ in range(times):
        yield obj


def cycle(iterable):
    saved = []
    for x in iterable:
        yield x
        saved.append(x)
    while saved:
        yield from saved


def accumulate(iterable, func=None, *, initial=None):
    it = iter(iterable)
    total = initial
    if initial is None:
        try:
            total = next(it)
        except StopIteration:
            return
    yield total
    for x in it:
        total = total + x if func is None else func(total, x)
        yield total


def starmap(function, iterable):
    for args in iterable:
        yield function(*args)


def takewhile(predicate, iterable):
    for x in iterable:
        if not predicate(x):
            return
        yield x


def dropwhile(predicate, iterable):
    it = iter(iterable)
    for x in it:
        if not predicate(x):
            yield x
            break
    yield from it


def filterfalse(predicate, iterable):
    for x in iterable:
        if not (bool(x) if predicate is None else predicate(x)):
            yield x


def compress(data, selectors):
    for d, s in zip(data, selectors):
        if s:
            yield d


def pairwise(iterable):
    it = iter(iterable)
    try:
        a = next(it)
    except StopIteration:
        return
    for b in it:
        yield a, b
        a = b


def zip_longest(*iterables, fillvalue=None):
    its = [iter(x) for x in iterables]
    if not its:
        return
    while True:
        row = []
        live = 0
        for i, it in enumerate(its):
            if it is None:
                row.append(fillvalue)
                continue
            try:
                row.append(next(it))
                live += 1
            except StopIteration:
                its[i] = None
                row.append(fillvalue)
        if not live:
            return
        yield tuple(row)


def product(*iterables, repeat=1):
    return _rows([tuple(p) for p in iterables] * repeat)


def _rows(pools):
    result = [()]
    for pool in pools:
        result = [r + (y,) for r in result for y in pool]
    yield from result


def permutations(iterable, r=None):
    pool = tuple(iterable)
    n = len(pool)
    r = n if r is None else r
    if r < 0:
        raise ValueError('r must be non-negative')
    return _picks(pool, product(range(n), repeat=r), lambda idx: len(set(idx)) == r)


def combinations(iterable, r):
    if r < 0:
        raise ValueError('r must be non-negative')
    pool = tuple(iterable)
    return _picks(pool, permutations(range(len(pool)), r), lambda idx: sorted(idx) == list(idx))


def combinations_with_replacement(iterable, r):
    if r < 0:
        raise ValueError('r must be non-negative')
    pool = tuple(iterable)
    return _picks(pool, product(range(len(pool)), repeat=r), lambda idx: sorted(idx) == list(idx))


def _picks(pool, indexes, keep):
    for idx in indexes:
        if keep(idx):
            yield tuple(pool[i] for i in idx)


def groupby(iterable, key=None):
    it = iter(iterable)
    keyfunc = (lambda x: x) if key is None else key
    state = {'done': False, 'value': None, 'key': None, 'pending': False}

    def advance():
        try:
            v = next(it)
        except StopIteration:
            state['done'] = True
            return
        state['value'], state['key'], state['pending'] = v, keyfunc(v), True

    def group(k):
        while not state['done'] and state['pending'] and state['key'] == k:
            v = state['value']
            state['pending'] = False
            yield v
            advance()

    advance()
    while not state['done']:
        if not state['pending']:
            advance()
            continue
        k = state['key']
        yield k, group(k)
        while not state['done'] and state['pending'] and state['key'] == k:
            advance()
