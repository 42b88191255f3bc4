class WeakValueDictionary:
    def __init__(self, other=()):
        self._data = {}
        for k, v in dict(other).items():
            self[k] = v

    def __setitem__(self, key, value):
        me = ref(self)

        def remove(wr, key=key):
            d = me()
            if d is not None and d._data.get(key) is wr:
                del d._data[key]

        self._data[key] = ref(value, remove)

    def __getitem__(self, key):
        o = self._data[key]()
        if o is None:
            raise KeyError(key)
        return o

    def __delitem__(self, key):
        del self._data[key]

    def __contains__(self, key):
        wr = self._data.get(key)
        return wr is not None and wr() is not None

    def __len__(self):
        return len(self._data)

    def __iter__(self):
        return iter(self.keys())

    def get(self, key, default=None):
        wr = self._data.get(key)
        o = None if wr is None else wr()
        return default if o is None else o

    def pop(self, key, *default):
        wr = self._data.pop(key, None)
        o = None if wr is None else wr()
        if o is None:
            if default:
                return default[0]
            raise KeyError(key)
        return o

    def keys(self):
        return [k for k, wr in self._data.items() if wr() is not None]

    def values(self):
        return [o for o in (wr() for wr in self._data.values()) if o is not None]

    def items(self):
        return [(k, o) for k, o in ((k, wr()) for k, wr in self._data.items()) if o is not None]

    def clear(self):
        self._data.clear()

    def __repr__(self):
        return "<WeakValueDictionary at %#x>" % id(self)
