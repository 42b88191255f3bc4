# torch.multiprocessing: the tool runs one process; starting others (a
# worker per GPU, each with its own CUDA context and caching allocator)
# is refused.


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    raise _refusal(NotImplementedError('torch.multiprocessing.spawn is not modelled by gpumemrepl: it runs one process; call fn(0, *args) '
                                       'to see one process\'s memory'))
