# torch.profiler in eager code: the profiler records what runs (kernels,
# their times; with profile_memory=True the allocations) through CUPTI and
# host buffers of its own, outside the caching allocator, so profiling
# changes no figure of the GPU's. Here a profile runs the code it wraps
# and records nothing: what would read its record (key_averages,
# export_chrome_trace, an on_trace_ready handler such as
# tensorboard_trace_handler's) is refused.


class _Member:
    def __init__(self, kind, name):
        self._kind = kind
        self.name = name

    def __repr__(self):
        return f'{self._kind}.{self.name}'


class ProfilerActivity:
    pass


for _name in ('CPU', 'XPU', 'MTIA', 'CUDA', 'HPU', 'PrivateUse1'):
    setattr(ProfilerActivity, _name, _Member('ProfilerActivity', _name))


class ProfilerAction:
    pass


for _name in ('NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE'):
    setattr(ProfilerAction, _name, _Member('ProfilerAction', _name))
del _name


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    # which action each step takes: after skip_first steps, cycles of
    # wait, warmup and active steps (repeat of them, or endless at 0),
    # the last active step of a cycle saving the trace
    import warnings
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError('Invalid profiler schedule arguments')
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")
    cycle = wait + warmup + active

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        at = step - skip_first + (wait if skip_first_wait else 0)
        if repeat and at // cycle >= repeat:
            return ProfilerAction.NONE
        phase = at % cycle
        if phase < wait:
            return ProfilerAction.NONE
        if phase < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD_AND_SAVE if phase == cycle - 1 else ProfilerAction.RECORD
    return action


def _no_trace(what):
    raise _refusal(NotImplementedError(f'{what} is not modelled by gpumemrepl: it runs the profiled code but records no trace '
                                       '(the profiler\'s own buffers are outside the caching allocator)'))


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    def handler(prof):
        _no_trace('torch.profiler.tensorboard_trace_handler')
    return handler


class profile:
    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False, profile_memory=False,
                 with_stack=False, with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None, custom_trace_id_callback=None):
        if on_trace_ready is not None:
            _no_trace('torch.profiler.profile(on_trace_ready=...)')
        self.activities = activities
        self.schedule = schedule
        self.step_num = 0

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        pass

    def stop(self):
        pass

    def step(self):
        self.step_num += 1

    def key_averages(self, *args, **kwargs):
        _no_trace('torch.profiler.profile.key_averages')

    def export_chrome_trace(self, path):
        _no_trace('torch.profiler.profile.export_chrome_trace')


def record_function(name, args=None):
    import contextlib
    return contextlib.nullcontext()
