# json, as gpumemrepl runs it (embedded by json.go).
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


JSONDecodeError.__module__ = 'json.decoder'


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
            # sort_keys sorts the original keys, as CPython does: mixed
            # types are its TypeError
            items = sorted(o.items()) if self.sort_keys else list(o.items())
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


_CONSTANTS = {'NaN': float('nan'), 'Infinity': float('inf'), '-Infinity': -float('inf')}


class JSONDecoder:
    def __init__(self, *, object_hook=None, parse_float=None, parse_int=None, parse_constant=None,
                 strict=True, object_pairs_hook=None):
        self.object_hook = object_hook
        self.parse_float = parse_float or float
        self.parse_int = parse_int or int
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__
        self.strict = strict
        self.object_pairs_hook = object_pairs_hook

    def decode(self, s):
        p = _Parser(s, self)
        p.ws()
        obj, end = self.raw_decode(s, p.i)
        p.i = end
        p.ws()
        if p.i != len(s):
            p.fail('Extra data')
        return obj

    def raw_decode(self, s, idx=0):
        p = _Parser(s, self)
        p.i = idx
        if s[idx:idx + 1] in (' ', '\t', '\n', '\r'):
            p.fail('Expecting value')
        return p.value(), p.i


class _Parser:
    def __init__(self, s, dec):
        self.s = s
        self.i = 0
        self.dec = dec

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
        for word, v in (('null', None), ('true', True), ('false', False)):
            if s.startswith(word, i):
                self.i = i + len(word)
                return v
        for word in ('NaN', 'Infinity', '-Infinity'):
            if s.startswith(word, i):
                self.i = i + len(word)
                return self.dec.parse_constant(word)
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
        return self.dec.parse_float(text) if is_float else self.dec.parse_int(text)

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
            if ord(c) < 0x20 and self.dec.strict:
                self.fail('Invalid control character at', i)
            out.append(c)
            i += 1

    def obj(self):
        self.i += 1
        pairs = []
        self.ws()
        if self.s[self.i:self.i + 1] == '}':
            self.i += 1
            return self.made(pairs)
        while True:
            self.ws()
            if self.s[self.i:self.i + 1] != '"':
                self.fail('Expecting property name enclosed in double quotes')
            k = self.string()
            self.ws()
            if self.s[self.i:self.i + 1] != ':':
                self.fail("Expecting ':' delimiter")
            self.i += 1
            pairs.append((k, self.value()))
            self.ws()
            c = self.s[self.i:self.i + 1]
            self.i += 1
            if c == '}':
                return self.made(pairs)
            if c != ',':
                self.fail("Expecting ',' delimiter", self.i - 1)

    def made(self, pairs):
        # an object's value: object_pairs_hook's, else the dict through
        # object_hook
        if self.dec.object_pairs_hook is not None:
            return self.dec.object_pairs_hook(pairs)
        d = dict(pairs)
        if self.dec.object_hook is not None:
            return self.dec.object_hook(d)
        return d

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


def loads(s, *, cls=None, object_hook=None, parse_float=None, parse_int=None, parse_constant=None,
          object_pairs_hook=None, **kw):
    if isinstance(s, str):
        if s.startswith('\ufeff'):
            raise JSONDecodeError('Unexpected UTF-8 BOM (decode using utf-8-sig)', s, 0)
    elif isinstance(s, bytes):
        s = s.decode('utf-8-sig')
    else:
        raise TypeError(f'the JSON object must be str, bytes or bytearray, not {s.__class__.__name__}')
    for name, hook in (('object_hook', object_hook), ('parse_float', parse_float), ('parse_int', parse_int),
                       ('parse_constant', parse_constant), ('object_pairs_hook', object_pairs_hook)):
        if hook is not None:
            kw[name] = hook
    return (cls or JSONDecoder)(**kw).decode(s)


def load(fp, **kw):
    return loads(fp.read(), **kw)
