# io, as gpumemrepl runs it (embedded by io.go).
class StringIO:
    def __init__(self, initial_value='', newline='\n'):
        if initial_value is None:
            initial_value = ''
        if not isinstance(initial_value, str):
            raise TypeError(f'initial_value must be str or None, not {type(initial_value).__name__}')
        self._text = initial_value
        self._pos = 0
        self.closed = False

    def _check(self):
        if self.closed:
            raise ValueError('I/O operation on closed file.')

    def write(self, s):
        self._check()
        if not isinstance(s, str):
            raise TypeError(f'string argument expected, got {type(s).__name__!r}')
        if self._pos > len(self._text):
            self._text += '\0' * (self._pos - len(self._text))
        self._text = self._text[:self._pos] + s + self._text[self._pos + len(s):]
        self._pos += len(s)
        return len(s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def getvalue(self):
        self._check()
        return self._text

    def read(self, size=-1):
        self._check()
        end = len(self._text) if size is None or size < 0 else min(self._pos + size, len(self._text))
        out = self._text[self._pos:end]
        self._pos = max(self._pos, end)
        return out

    def readline(self, size=-1):
        self._check()
        end = self._text.find('\n', self._pos)
        end = len(self._text) if end < 0 else end + 1
        if size is not None and size >= 0:
            end = min(end, self._pos + size)
        out = self._text[self._pos:end]
        self._pos = max(self._pos, end)
        return out

    def readlines(self):
        return list(self)

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def seek(self, pos, whence=0):
        self._check()
        if whence == 0:
            if pos < 0:
                raise ValueError(f'Negative seek position {pos}')
            self._pos = pos
        elif whence == 1:
            if pos != 0:
                raise OSError("Can't do nonzero cur-relative seeks")
        elif whence == 2:
            if pos != 0:
                raise OSError("Can't do nonzero end-relative seeks")
            self._pos = len(self._text)
        else:
            raise ValueError(f'Invalid whence ({whence}, should be 0, 1 or 2)')
        return self._pos

    def tell(self):
        self._check()
        return self._pos

    def truncate(self, size=None):
        self._check()
        size = self._pos if size is None else size
        self._text = self._text[:size]
        return size

    def flush(self):
        self._check()

    def close(self):
        self.closed = True

    def readable(self):
        return True

    def writable(self):
        return True

    def seekable(self):
        return True

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, *exc):
        self.close()
