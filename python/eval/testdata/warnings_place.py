# warnings: a DeprecationWarning from a function of __main__ is shown, a
# stacklevel past the stack is sys:1, and warnings and print go to the
# sys.stderr and sys.stdout the program has put in place.
import warnings, sys
def old():
    warnings.warn('old is deprecated', DeprecationWarning, stacklevel=2)
old()
def inner():
    warnings.warn('in function', DeprecationWarning)
inner()
warnings.warn('way up', UserWarning, stacklevel=10)
class Sink:
    def __init__(self): self.parts = []
    def write(self, s): self.parts.append(s)
    def flush(self): pass
sink = Sink()
saved = sys.stderr
sys.stderr = sink
warnings.warn('to the sink')
print('printed to sink', file=sink)
sys.stderr = saved
print(len(sink.parts), ''.join(sink.parts))
sys.stdout = sink
print('hidden')
sys.stdout = sys.__stdout__ if hasattr(sys, '__stdout__') else saved
print('shown', sink.parts[-2:])
