# os.path, as gpumemrepl runs it (embedded by ospath.go).
sep = '/'
curdir = '.'
pardir = '..'


def _text(p, fn=None):
    if not isinstance(p, str):
        if fn is not None:
            raise TypeError(f"{fn}() argument must be str, bytes, or os.PathLike object, not '{type(p).__name__}'")
        raise TypeError(f'expected str, bytes or os.PathLike object, not {type(p).__name__}')
    return p


def isabs(s):
    return _text(s).startswith('/')


def join(a, *p):
    path = _text(a, 'join')
    for b in p:
        b = _text(b, 'join')
        if b.startswith('/'):
            path = b
        elif not path or path.endswith('/'):
            path += b
        else:
            path += '/' + b
    return path


def split(p):
    p = _text(p)
    i = p.rfind('/') + 1
    head, tail = p[:i], p[i:]
    if head and head != '/' * len(head):
        head = head.rstrip('/')
    return head, tail


def basename(p):
    return split(p)[1]


def dirname(p):
    return split(p)[0]


def splitext(p):
    p = _text(p)
    sep_index = p.rfind('/')
    dot_index = p.rfind('.')
    if dot_index > sep_index:
        filename_index = sep_index + 1
        while filename_index < dot_index:
            if p[filename_index] != '.':
                return p[:dot_index], p[dot_index:]
            filename_index += 1
    return p, ''


def normpath(path):
    path = _text(path)
    if path == '':
        return '.'
    initial = 1 if path.startswith('/') else 0
    if initial and path.startswith('//') and not path.startswith('///'):
        initial = 2
    comps = path.split('/')
    new = []
    for comp in comps:
        if comp in ('', '.'):
            continue
        if comp != '..' or (not initial and not new) or (new and new[-1] == '..'):
            new.append(comp)
        elif new:
            new.pop()
    path = '/'.join(new)
    if initial:
        path = '/' * initial + path
    return path or '.'


def abspath(path):
    path = _text(path)
    if not isabs(path):
        import os
        path = join(os.getcwd(), path)
    return normpath(path)


def expanduser(path):
    path = _text(path)
    if not path.startswith('~'):
        return path
    raise _refusal(NotImplementedError('os.path.expanduser is not modelled by gpumemrepl (it reads the environment)'))
