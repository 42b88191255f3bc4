# logging: the record's caller (stacklevel too), a lone mapping as the
# arguments, LogRecord's signature, Filter, and the '--- Logging error ---'
# block of a message that does not format (its frames inside logging's
# own source are left out: their path and lines are CPython's files').
import logging, sys
class Sink:
    def __init__(self): self.parts = []
    def write(self, s): self.parts.append(s)
    def flush(self): pass
sink = Sink()
saved = sys.stderr
sys.stderr = sink
logging.basicConfig(level=logging.INFO, format='%(levelname)s %(filename)s:%(lineno)d %(funcName)s %(module)s: %(message)s')
log = logging.getLogger('x')
log.info('%(a)s and %(b)d', {'a': 1, 'b': 2})
log.info('empty mapping %s', {})
def f():
    log.info('%d items', 'abc')
def g():
    log.warning('from g, reported at its caller', stacklevel=2)
f()
g()
log.warning('after')
r = logging.LogRecord('n', logging.INFO, '/p/m.py', 7, 'hi %s', ('x',), None)
print(r.getMessage(), r.name, r.levelname, r.pathname, r.filename, r.module, r.lineno, r.funcName, r, file=sys.stderr)
class F(logging.Filter):
    def filter(self, record):
        return 'secret' not in record.msg
log.addFilter(F())
log.info('a secret')
log.info('public')
lf = logging.Filter('x.y')
print(lf.filter(logging.LogRecord('x.y.z', 20, 'p', 1, 'm', (), None)), lf.filter(logging.LogRecord('x.yz', 20, 'p', 1, 'm', (), None)),
      lf.filter(logging.LogRecord('x.y', 20, 'p', 1, 'm', (), None)), logging.Filter().filter(r), file=sys.stderr)
h = logging.StreamHandler(sys.stderr)
h.addFilter(logging.Filter('other'))
log.addHandler(h)
log.info('only once: the handler filters it out')
logging.raiseExceptions = False
log.info('%d quietly dropped', 'x')
sys.stderr = saved
# the frames inside logging's own source differ from CPython's path and
# lines: keep the rest of the block
skip = False
for line in ''.join(sink.parts).splitlines():
    if line.startswith('  File '):
        skip = 'logging' in line
    elif not line.startswith('    '):
        skip = False
    if not skip:
        print(line)
