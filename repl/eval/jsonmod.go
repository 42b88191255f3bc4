package eval

// jsonSource is json, written in Python: dumps and dump with CPython's
// output byte for byte (separators, indent, sort_keys, ensure_ascii,
// allow_nan, default, skipkeys; float reprs, Infinity and NaN), and
// loads and load of JSON text (objects as dicts in order, numbers as int
// or float). A value of another type is CPython's TypeError ("Object of
// type Tensor is not JSON serializable") unless default= turns it into
// one.
const jsonSource = `
class JSONDecodeError(ValueError):
    def __init__(self, msg, doc, pos):
        lineno = doc.count('\n', 0, pos) + 1
        colno = pos - doc.rfind('\n', 0, pos)
        ValueError.__init__(self, f'{msg}: line {lineno} column {colno} (char {pos})')
        self.msg = msg
        self.doc = doc
        self.pos = pos
        self.lineno = lineno
        self.colno = colno


_escapes = {'"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f'}


def _string(s, ascii_only):
    out = ['"']
    for c in s:
        e = _escapes.get(c)
        if e is not None:
            out.append(e)
            continue
        n = ord(c)
        if n < 0x20 or (ascii_only and n > 0x7e):
            if n > 0xffff:
                n -= 0x10000
                out.append(f'\\u{0xd800 | (n >> 10):04x}\\u{0xdc00 | (n & 0x3ff):04x}')
            else:
                out.append(f'\\u{n:04x}')
        else:
            out.append(c)
    out.append('"')
    return ''.join(out)


def _float(f, allow_nan):
    if f != f:
        text = 'NaN'
    elif f == float('inf'):
        text = 'Infinity'
    elif f == -float('inf'):
        text = '-Infinity'
    else:
        return float.__repr__(f)
    if not allow_nan:
        raise ValueError('Out of range float values are not JSON compliant')
    return text


class JSONEncoder:
    def __init__(self, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True,
                 sort_keys=False, indent=None, separators=None, default=None):
        self.skipkeys = skipkeys
        self.ensure_ascii = ensure_ascii
        self.allow_nan = allow_nan
        self.sort_keys = sort_keys
        if indent is not None and not isinstance(indent, str):
            indent = ' ' * indent
        self.indent = indent
        if separators is not None:
            self.item_separator, self.key_separator = separators
        elif indent is not None:
            self.item_separator, self.key_separator = ',', ': '
        else:
            self.item_separator, self.key_separator = ', ', ': '
        if default is not None:
            self.default = default

    def default(self, o):
        raise TypeError(f'Object of type {o.__class__.__name__} is not JSON serializable')

    def encode(self, o):
        out = []
        self._encode(o, 0, out, [])
        return ''.join(out)

    def _scalar(self, o):
        if isinstance(o, str):
            return _string(o, self.ensure_ascii)
        if o is None:
            return 'null'
        if o is True:
            return 'true'
        if o is False:
            return 'false'
        if isinstance(o, int):
            return int.__repr__(o)
        if isinstance(o, float):
            return _float(o, self.allow_nan)
        return None

    def _key(self, k):
        # a key is a string as itself; a number, bool or None as its JSON
        if isinstance(k, str):
            return k
        return self._scalar(k)

    def _encode(self, o, level, out, stack):
        s = self._scalar(o)
        if s is not None:
            out.append(s)
            return
        if isinstance(o, (list, tuple)):
            items = list(o)
            opener, closer = '[', ']'
        elif isinstance(o, dict):
            items = list(o.items())
            opener, closer = '{', '}'
        else:
            for seen in stack:
                if seen is o:
                    raise ValueError('Circular reference detected')
            stack.append(o)
            self._encode(self.default(o), level, out, stack)
            stack.pop()
            return
        for seen in stack:
            if seen is o:
                raise ValueError('Circular reference detected')
        if not items:
            out.append(opener + closer)
            return
        stack.append(o)
        out.append(opener)
        if self.indent is not None:
            level += 1
            sep = self.item_separator + '\n' + self.indent * level
            out.append('\n' + self.indent * level)
        else:
            sep = self.item_separator
        if opener == '{':
            pairs = []
            for k, v in items:
                key = self._key(k)
                if key is None:
                    if self.skipkeys:
                        continue
                    raise TypeError(f'keys must be str, int, float, bool or None, not {k.__class__.__name__}')
                pairs.append((key, v))
            if self.sort_keys:
                pairs.sort(key=lambda kv: kv[0])
            first = True
            for key, v in pairs:
                if not first:
                    out.append(sep)
                first = False
                out.append(_string(key, self.ensure_ascii) + self.key_separator)
                self._encode(v, level, out, stack)
        else:
            first = True
            for v in items:
                if not first:
                    out.append(sep)
                first = False
                self._encode(v, level, out, stack)
        if self.indent is not None:
            level -= 1
            out.append('\n' + self.indent * level)
        out.append(closer)
        stack.pop()


def dumps(obj, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None,
          indent=None, separators=None, default=None, sort_keys=False, **kw):
    enc = (cls or JSONEncoder)(skipkeys=skipkeys, ensure_ascii=ensure_ascii, check_circular=check_circular,
                               allow_nan=allow_nan, indent=indent, separators=separators, default=default,
                               sort_keys=sort_keys, **kw)
    return enc.encode(obj)


def dump(obj, fp, **kw):
    fp.write(dumps(obj, **kw))


class _Parser:
    def __init__(self, s):
        self.s = s
        self.i = 0

    def fail(self, msg, pos=None):
        raise JSONDecodeError(msg, self.s, self.i if pos is None else pos)

    def ws(self):
        s, i = self.s, self.i
        while i < len(s) and s[i] in ' \t\n\r':
            i += 1
        self.i = i

    def value(self):
        self.ws()
        s, i = self.s, self.i
        if i >= len(s):
            self.fail('Expecting value')
        c = s[i]
        if c == '{':
            return self.obj()
        if c == '[':
            return self.arr()
        if c == '"':
            return self.string()
        for word, v in (('null', None), ('true', True), ('false', False), ('NaN', float('nan')),
                        ('Infinity', float('inf')), ('-Infinity', -float('inf'))):
            if s.startswith(word, i):
                self.i = i + len(word)
                return v
        return self.number()

    def number(self):
        s, i = self.s, self.i
        j = i
        if j < len(s) and s[j] == '-':
            j += 1
        if j >= len(s) or not s[j].isdigit():
            self.fail('Expecting value')
        if s[j] == '0':
            j += 1
        else:
            while j < len(s) and s[j].isdigit():
                j += 1
        is_float = False
        if j + 1 < len(s) and s[j] == '.' and s[j + 1].isdigit():
            is_float = True
            j += 1
            while j < len(s) and s[j].isdigit():
                j += 1
        if j < len(s) and s[j] in 'eE':
            k = j + 1
            if k < len(s) and s[k] in '+-':
                k += 1
            if k < len(s) and s[k].isdigit():
                is_float = True
                j = k
                while j < len(s) and s[j].isdigit():
                    j += 1
        self.i = j
        text = s[i:j]
        return float(text) if is_float else int(text)

    def string(self):
        s = self.s
        i = self.i + 1
        out = []
        while True:
            if i >= len(s):
                self.fail('Unterminated string starting at', self.i)
            c = s[i]
            if c == '"':
                self.i = i + 1
                return ''.join(out)
            if c == '\\':
                i += 1
                if i >= len(s):
                    self.fail('Unterminated string starting at', self.i)
                e = s[i]
                simple = {'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
                if e in simple:
                    out.append(simple[e])
                    i += 1
                elif e == 'u':
                    h = s[i + 1:i + 5]
                    if len(h) != 4 or not all(x in '0123456789abcdefABCDEF' for x in h):
                        self.fail('Invalid \\uXXXX escape', i - 1)
                    n = int(h, 16)
                    i += 5
                    if 0xd800 <= n <= 0xdbff and s[i:i + 2] == '\\u':
                        lo = int(s[i + 2:i + 6], 16)
                        if 0xdc00 <= lo <= 0xdfff:
                            n = 0x10000 + ((n - 0xd800) << 10) + (lo - 0xdc00)
                            i += 6
                    out.append(chr(n))
                else:
                    self.fail('Invalid \\escape', i - 1)
                continue
            if ord(c) < 0x20:
                self.fail('Invalid control character at', i)
            out.append(c)
            i += 1

    def obj(self):
        self.i += 1
        d = {}
        self.ws()
        if self.s[self.i:self.i + 1] == '}':
            self.i += 1
            return d
        while True:
            self.ws()
            if self.s[self.i:self.i + 1] != '"':
                self.fail('Expecting property name enclosed in double quotes')
            k = self.string()
            self.ws()
            if self.s[self.i:self.i + 1] != ':':
                self.fail("Expecting ':' delimiter")
            self.i += 1
            d[k] = self.value()
            self.ws()
            c = self.s[self.i:self.i + 1]
            self.i += 1
            if c == '}':
                return d
            if c != ',':
                self.fail("Expecting ',' delimiter", self.i - 1)

    def arr(self):
        self.i += 1
        out = []
        self.ws()
        if self.s[self.i:self.i + 1] == ']':
            self.i += 1
            return out
        while True:
            out.append(self.value())
            self.ws()
            c = self.s[self.i:self.i + 1]
            self.i += 1
            if c == ']':
                return out
            if c != ',':
                self.fail("Expecting ',' delimiter", self.i - 1)


def loads(s, **kw):
    if not isinstance(s, str):
        raise TypeError(f'the JSON object must be str, bytes or bytearray, not {s.__class__.__name__}')
    p = _Parser(s)
    v = p.value()
    p.ws()
    if p.i != len(s):
        p.fail('Extra data')
    return v


def load(fp, **kw):
    return loads(fp.read(), **kw)
`
