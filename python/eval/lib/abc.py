# abc, as gpumemrepl runs it (embedded by pymods.go).
def abstractmethod(funcobj):
    funcobj.__isabstractmethod__ = True
    return funcobj


class ABCMeta(type):
    pass


def _abstracts(cls):
    names = set()
    for k in cls.__mro__:
        for name in k.__dict__:
            if getattr(getattr(cls, name, None), '__isabstractmethod__', False):
                names.add(name)
    return frozenset(names)


class ABC:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__abstractmethods__ = _abstracts(cls)


ABC.__abstractmethods__ = frozenset()
