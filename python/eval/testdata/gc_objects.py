# gc.get_objects() lists what the collector tracks (instances, lists,
# dicts), not ints or strings; a misspelt module attribute gets the
# traceback's "Did you mean".
import gc
import math


class Box:
    pass


b = Box()
items = [b, 7, "s"]
objs = gc.get_objects()
print(isinstance(objs, list), any(o is b for o in objs), any(o is items for o in objs))
print(any(o is items[1] for o in objs), any(o is items[2] for o in objs))
del objs
try:
    math.sqr(4)
except AttributeError as e:
    print(e)
math.sqr(4)
