package eval

// itertoolsModule is itertools: count and islice in Go, the rest in
// Python (itertoolsSource).
func itertoolsModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("itertools")
	in.fn(m, "count", "count(start=0, step=1)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("count", args, kw, 0, "start", "step")
		if err != nil {
			return nil, err
		}
		var start, step int64 = 0, 1
		if a[0] != nil {
			if start, err = in.Index(a[0]); err != nil {
				return nil, err
			}
		}
		if a[1] != nil {
			if step, err = in.Index(a[1]); err != nil {
				return nil, err
			}
		}
		return in.newIter(None, func(in *Interp, it *iterObj) (Value, bool, error) {
			it.i++
			return start + (it.i-1)*step, true, nil
		}), nil
	})
	in.fn(m, "islice", "islice(iterable, stop) or islice(iterable, start, stop[, step])", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("islice", args, kw, 2, 4); err != nil {
			return nil, err
		}
		bounds := make([]int64, 0, 3)
		for _, a := range args[1:] {
			if a == None {
				bounds = append(bounds, -1)
				continue
			}
			n, err := in.Index(a)
			if err != nil {
				return nil, err
			}
			bounds = append(bounds, n)
		}
		start, stop, step := int64(0), bounds[0], int64(1)
		if len(bounds) > 1 {
			start, stop = bounds[0], bounds[1]
		}
		if len(bounds) > 2 {
			step = bounds[2]
		}
		src, err := in.Iter(args[0])
		if err != nil {
			return nil, err
		}
		next := start
		it := in.newIter(src, func(in *Interp, it *iterObj) (Value, bool, error) {
			for it.src != nil && (stop < 0 || it.i < stop) {
				v, ok, err := in.Next(it.src)
				if err != nil || !ok {
					return nil, false, err
				}
				it.i++
				if it.i-1 == next {
					next += step
					return v, true, nil
				}
				in.Decref(v)
			}
			return nil, false, nil
		})
		in.Decref(src)
		return it, nil
	})
	return in.execModule(m, itertoolsSource)
}

// itertoolsSource is the rest of itertools (count and islice are Go,
// above), written in Python as generators that take their inputs
// when CPython's objects do: product, permutations and combinations
// read their iterables whole first; the others go item by item.
const itertoolsSource = `
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
    pools = [tuple(p) for p in iterables] * repeat
    result = [()]
    for pool in pools:
        result = [r + (y,) for r in result for y in pool]
    for r in result:
        yield r


def permutations(iterable, r=None):
    pool = tuple(iterable)
    n = len(pool)
    r = n if r is None else r
    if r < 0:
        raise ValueError('r must be non-negative')
    for idx in product(range(n), repeat=r):
        if len(set(idx)) == r:
            yield tuple(pool[i] for i in idx)


def combinations(iterable, r):
    if r < 0:
        raise ValueError('r must be non-negative')
    pool = tuple(iterable)
    n = len(pool)
    for idx in permutations(range(n), r):
        if sorted(idx) == list(idx):
            yield tuple(pool[i] for i in idx)


def combinations_with_replacement(iterable, r):
    if r < 0:
        raise ValueError('r must be non-negative')
    pool = tuple(iterable)
    n = len(pool)
    for idx in product(range(n), repeat=r):
        if sorted(idx) == list(idx):
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
`
