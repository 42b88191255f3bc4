# logging, as gpumemrepl runs it (embedded by logging.go).
import sys

CRITICAL = 50
FATAL = CRITICAL
ERROR = 40
WARNING = 30
WARN = WARNING
INFO = 20
DEBUG = 10
NOTSET = 0

_names = {CRITICAL: 'CRITICAL', ERROR: 'ERROR', WARNING: 'WARNING', INFO: 'INFO', DEBUG: 'DEBUG', NOTSET: 'NOTSET'}
_levels = {'CRITICAL': CRITICAL, 'FATAL': FATAL, 'ERROR': ERROR, 'WARN': WARNING, 'WARNING': WARNING,
           'INFO': INFO, 'DEBUG': DEBUG, 'NOTSET': NOTSET}
BASIC_FORMAT = '%(levelname)s:%(name)s:%(message)s'
_NOT_COMPUTED = '<time not computed>'


def getLevelName(level):
    if level in _names:
        return _names[level]
    if level in _levels:
        return _levels[level]
    return f'Level {level}'


def _check_level(level):
    if isinstance(level, int):
        return level
    if isinstance(level, str):
        if level not in _levels:
            raise ValueError(f'Unknown level: {level!r}')
        return _levels[level]
    raise TypeError(f'Level not an integer or a valid string: {level!r}')


raiseExceptions = True


class LogRecord:
    def __init__(self, name, level, pathname, lineno, msg, args, exc_info, func=None, sinfo=None, **kwargs):
        self.name = name
        self.msg = msg
        # a lone non-empty mapping is the arguments, for %(key)s formats
        if args and len(args) == 1 and isinstance(args[0], dict) and args[0]:
            args = args[0]
        self.args = args
        self.levelno = level
        self.levelname = getLevelName(level)
        self.pathname = pathname
        self.filename = pathname.replace('\\', '/').rsplit('/', 1)[-1]
        self.module = self.filename.rsplit('.', 1)[0] if '.' in self.filename else self.filename
        self.exc_info = exc_info
        self.exc_text = None
        self.stack_info = sinfo
        self.lineno = lineno
        self.funcName = func
        self.asctime = _NOT_COMPUTED
        self.created = _NOT_COMPUTED
        self.msecs = _NOT_COMPUTED
        self.relativeCreated = _NOT_COMPUTED
        self.process = 0
        self.processName = 'MainProcess'
        self.thread = 0
        self.threadName = 'MainThread'

    def __repr__(self):
        return f'<LogRecord: {self.name}, {self.levelno}, {self.pathname}, {self.lineno}, "{self.msg}">'

    def getMessage(self):
        msg = str(self.msg)
        if self.args:
            msg = msg % self.args
        return msg


class Filter:
    def __init__(self, name=''):
        self.name = name
        self.nlen = len(name)

    def filter(self, record):
        if self.nlen == 0 or self.name == record.name:
            return True
        if not record.name.startswith(self.name):
            return False
        return record.name[self.nlen] == '.'


class Formatter:
    def __init__(self, fmt=None, datefmt=None, style='%', validate=True, *, defaults=None):
        if style not in ('%', '{', '$'):
            raise ValueError("Style must be one of: %, {, $")
        self._style = style
        self._fmt = fmt or {'%': '%(message)s', '{': '{message}', '$': '${message}'}[style]
        self.datefmt = datefmt

    def formatMessage(self, record):
        values = dict(record.__dict__)
        if self._style == '%':
            return self._fmt % values
        if self._style == '{':
            return self._fmt.format(**values)
        out = self._fmt
        for k, v in values.items():
            out = out.replace('${' + k + '}', str(v)).replace('$' + k, str(v))
        return out

    def format(self, record):
        record.message = record.getMessage()
        s = self.formatMessage(record)
        if record.exc_info:
            import traceback
            if s[-1:] != '\n':
                s = s + '\n'
            s = s + ''.join(traceback.format_exception(*record.exc_info)).rstrip('\n')
        return s


_default_formatter = Formatter()


class Filterer:
    def __init__(self):
        self.filters = []

    def addFilter(self, f):
        if f not in self.filters:
            self.filters.append(f)

    def removeFilter(self, f):
        if f in self.filters:
            self.filters.remove(f)

    def filter(self, record):
        for f in self.filters:
            ok = f.filter(record) if hasattr(f, 'filter') else f(record)
            if not ok:
                return False
        return True


class Handler(Filterer):
    def __init__(self, level=NOTSET):
        Filterer.__init__(self)
        self.level = _check_level(level)
        self.formatter = None

    def setLevel(self, level):
        self.level = _check_level(level)

    def setFormatter(self, fmt):
        self.formatter = fmt

    def format(self, record):
        return (self.formatter or _default_formatter).format(record)

    def handle(self, record):
        if self.filter(record):
            self.emit(record)

    def emit(self, record):
        raise NotImplementedError('emit must be implemented by Handler subclasses')

    def handleError(self, record):
        # CPython's report of a record that failed to emit: the
        # exception, where the program logged it, the message and
        # arguments
        if not raiseExceptions or not sys.stderr:
            return
        import traceback
        err = sys.stderr
        err.write('--- Logging error ---\n')
        err.write(traceback.format_exc())
        err.write('Call stack:\n')
        err.write(_call_stack())
        try:
            err.write('Message: %r\nArguments: %s\n' % (record.msg, record.args))
        except Exception:
            err.write('Unable to print the message and arguments - possible formatting error.\n'
                      'Use the traceback above to help find the error.\n')

    def flush(self):
        pass

    def close(self):
        pass


class StreamHandler(Handler):
    terminator = '\n'

    def __init__(self, stream=None):
        Handler.__init__(self)
        self.stream = stream

    def emit(self, record):
        try:
            msg = self.format(record)
            stream = self.stream if self.stream is not None else sys.stderr
            stream.write(msg + self.terminator)
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)


class NullHandler(Handler):
    def emit(self, record):
        pass

    def handle(self, record):
        pass


class FileHandler(StreamHandler):
    def __init__(self, filename, mode='a', encoding=None, delay=False, errors=None):
        raise _refusal(NotImplementedError('logging to a file is not modelled by gpumemrepl (scripts touch no files)'))


class _LastResort(StreamHandler):
    def __init__(self):
        StreamHandler.__init__(self)
        self.level = WARNING


lastResort = _LastResort()


class Logger(Filterer):
    def __init__(self, name, level=NOTSET):
        Filterer.__init__(self)
        self.name = name
        self.level = _check_level(level)
        self.parent = None
        self.propagate = True
        self.handlers = []
        self.disabled = False

    def __repr__(self):
        return f'<{type(self).__name__} {self.name} ({getLevelName(self.getEffectiveLevel())})>'

    def setLevel(self, level):
        self.level = _check_level(level)

    def getEffectiveLevel(self):
        logger = self
        while logger:
            if logger.level:
                return logger.level
            logger = logger.parent
        return NOTSET

    def isEnabledFor(self, level):
        return not self.disabled and level >= _manager.disable_above and level >= self.getEffectiveLevel()

    def addHandler(self, h):
        if h not in self.handlers:
            self.handlers.append(h)

    def removeHandler(self, h):
        if h in self.handlers:
            self.handlers.remove(h)

    def hasHandlers(self):
        c = self
        while c:
            if c.handlers:
                return True
            if not c.propagate:
                return False
            c = c.parent
        return False

    def getChild(self, suffix):
        name = suffix if self is root else self.name + '.' + suffix
        return getLogger(name)

    def _log(self, level, msg, args, exc_info=None, stack_info=False, stacklevel=1, extra=None):
        if exc_info:
            if isinstance(exc_info, BaseException):
                exc_info = (type(exc_info), exc_info, exc_info.__traceback__)
            elif not isinstance(exc_info, tuple):
                exc_info = sys.exc_info()
        pathname, lineno, func = _caller(stacklevel)
        record = LogRecord(self.name, level, pathname, lineno, msg, args, exc_info, func)
        if extra:
            for k, v in extra.items():
                setattr(record, k, v)
        if self.filter(record):
            self.handle(record)

    def handle(self, record):
        found = 0
        c = self
        while c:
            for h in c.handlers:
                found += 1
                if record.levelno >= h.level:
                    h.handle(record)
            if not c.propagate:
                break
            c = c.parent
        if found == 0 and record.levelno >= lastResort.level:
            lastResort.handle(record)

    def log(self, level, msg, *args, **kwargs):
        if self.isEnabledFor(level):
            self._log(level, msg, args, **kwargs)

    def debug(self, msg, *args, **kwargs):
        if self.isEnabledFor(DEBUG):
            self._log(DEBUG, msg, args, **kwargs)

    def info(self, msg, *args, **kwargs):
        if self.isEnabledFor(INFO):
            self._log(INFO, msg, args, **kwargs)

    def warning(self, msg, *args, **kwargs):
        if self.isEnabledFor(WARNING):
            self._log(WARNING, msg, args, **kwargs)

    warn = warning

    def error(self, msg, *args, **kwargs):
        if self.isEnabledFor(ERROR):
            self._log(ERROR, msg, args, **kwargs)

    def exception(self, msg, *args, exc_info=True, **kwargs):
        self.error(msg, *args, exc_info=exc_info, **kwargs)

    def critical(self, msg, *args, **kwargs):
        if self.isEnabledFor(CRITICAL):
            self._log(CRITICAL, msg, args, **kwargs)

    fatal = critical


class RootLogger(Logger):
    def __init__(self, level):
        Logger.__init__(self, 'root', level)

    def __repr__(self):
        return f'<RootLogger root ({getLevelName(self.getEffectiveLevel())})>'


class _Manager:
    def __init__(self):
        self.loggers = {}
        self.disable_above = 0


root = RootLogger(WARNING)
_manager = _Manager()


def getLogger(name=None):
    if not name or name == 'root':
        return root
    if name in _manager.loggers:
        return _manager.loggers[name]
    logger = Logger(name)
    _manager.loggers[name] = logger
    parent = root
    parts = name.split('.')
    for i in range(len(parts) - 1, 0, -1):
        p = '.'.join(parts[:i])
        if p in _manager.loggers:
            parent = _manager.loggers[p]
            break
    logger.parent = parent
    prefix = name + '.'
    for other in _manager.loggers.values():
        if other.name.startswith(prefix) and (other.parent is parent):
            other.parent = logger
    return logger


def basicConfig(**kwargs):
    force = kwargs.pop('force', False)
    if force:
        for h in list(root.handlers):
            root.removeHandler(h)
    if root.handlers:
        return
    if 'filename' in kwargs:
        raise _refusal(NotImplementedError('logging to a file is not modelled by gpumemrepl (scripts touch no files)'))
    handlers = kwargs.pop('handlers', None)
    stream = kwargs.pop('stream', None)
    if handlers is None:
        handlers = [StreamHandler(stream)]
    style = kwargs.pop('style', '%')
    fmt = Formatter(kwargs.pop('format', {'%': BASIC_FORMAT, '{': '{levelname}:{name}:{message}', '$': '${levelname}:${name}:${message}'}[style]),
                    kwargs.pop('datefmt', None), style)
    for h in handlers:
        if h.formatter is None:
            h.setFormatter(fmt)
        root.addHandler(h)
    level = kwargs.pop('level', None)
    if level is not None:
        root.setLevel(level)
    kwargs.pop('encoding', None)
    kwargs.pop('errors', None)
    if kwargs:
        raise ValueError('Unrecognised argument(s): ' + ', '.join(kwargs))


def disable(level=CRITICAL):
    _manager.disable_above = level + 1


def _root_call(name):
    def call(msg, *args, **kwargs):
        if not root.handlers:
            basicConfig()
        getattr(root, name)(msg, *args, **kwargs)
    call.__name__ = call.__qualname__ = name
    return call


debug = _root_call('debug')
info = _root_call('info')
warning = _root_call('warning')
warn = warning
error = _root_call('error')
exception = _root_call('exception')
critical = _root_call('critical')
fatal = critical


def log(level, msg, *args, **kwargs):
    if not root.handlers:
        basicConfig()
    root.log(level, msg, *args, **kwargs)


def captureWarnings(capture):
    pass
