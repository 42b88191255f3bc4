# warnings, as gpumemrepl runs it (embedded by warnings.go).
class catch_warnings:
    def __init__(self, *, record=False, module=None, action=None, category=Warning, lineno=0, append=False):
        if record:
            raise _refusal(NotImplementedError('catch_warnings(record=True) is not modelled by gpumemrepl'))
        self._action = action
        self._category = category

    def __enter__(self):
        _save_filters()
        if self._action is not None:
            simplefilter(self._action, self._category)

    def __exit__(self, *exc):
        _restore_filters()
        return False
