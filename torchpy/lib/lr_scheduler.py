# torch.optim.lr_scheduler, as gpumemrepl runs it (embedded by lr_scheduler.go).
import math
import warnings
from functools import wraps
from weakref import ref


_EPOCH_DEPRECATION = ("The epoch parameter in `scheduler.step()` was not necessary and is being "
                      "deprecated where possible. Please use `scheduler.step()` to step the "
                      "scheduler. During the deprecation, if epoch is different from None, the "
                      "closed form is used instead of the new chainable form, where available. "
                      "Please open an issue if you are unable to replicate your use case: "
                      "https://github.com/pytorch/pytorch/issues/new/choose.")


class LRScheduler:
    # What each step sets is PyTorch 2.11's; so is what the scheduler
    # makes of Python objects, for CPython's collector (a leak experiment
    # holds schedulers in reference cycles: testdata/experiments/gc's
    # gh47589): the wrapper of the optimizer's step that tells a step
    # taken (its weak reference, its two cells, its dict), the context
    # objects of each step, the lists of learning rates.
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group['lr']
                group.setdefault('initial_lr', initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if 'initial_lr' not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an optimizer")
        self.base_lrs = [group['initial_lr'] for group in optimizer.param_groups]
        self.last_epoch = last_epoch

        def patch_track_step_called(opt):
            # PyTorch replaces opt.step by a wrapper that marks the
            # optimizer stepped; the tool's optimizer keeps the wrapper
            # (_set_step_wrapper) and marks itself when stepped
            if _step_wrapper(opt) is not None:
                return

            def wrap_step(step_fn):
                opt_ref = ref(self.optimizer)
                func = type(opt_ref()).step

                @wraps(func)
                def wrapper(*args, **kwargs):
                    return func(opt_ref(), *args, **kwargs)

                wrapper._wrapped_by_lr_sched = True
                return wrapper

            _set_step_wrapper(opt, wrap_step(opt.step))

        patch_track_step_called(self.optimizer)
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        with _initial_mode(self):
            self.step()

    def get_last_lr(self):
        return self._last_lr

    def step(self, epoch=None):
        if self._step_count == 1:
            if _step_wrapper(self.optimizer) is None:
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                              "initialization. Please, make sure to call `optimizer.step()` before "
                              "`lr_scheduler.step()`. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning, stacklevel=2)
            elif not _opt_called(self.optimizer):
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                              "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
                              "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                              "will result in PyTorch skipping the first value of the learning rate schedule. "
                              "See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATION, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        # (the schedulers' closed forms for a given epoch are not written
        # here: get_lr's values, which set no memory)
        with _enable_get_lr_call(self):
            if epoch is None:
                self.last_epoch += 1
            else:
                self.last_epoch = epoch
            values = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group['lr'] = lr
        self._last_lr = [group['lr'] for group in self.optimizer.param_groups]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != 'optimizer'}


class _enable_get_lr_call:
    def __init__(self, o):
        self.o = o

    def __enter__(self):
        self.o._get_lr_called_within_step = True
        return self

    def __exit__(self, type, value, traceback):
        self.o._get_lr_called_within_step = False


class _initial_mode:
    def __init__(self, o):
        self.o = o

    def __enter__(self):
        self.o._is_initial = True

    def __exit__(self, type, value, traceback):
        self.o._is_initial = False


class _LRScheduler(LRScheduler):
    # the name LRScheduler had before PyTorch 2.0, which older schedulers subclass
    pass


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group['lr'] for group in self.optimizer.param_groups]
        return [group['lr'] * self.gamma for group in self.optimizer.param_groups]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = {}
        for m in milestones:
            self.milestones[m] = self.milestones.get(m, 0) + 1
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch not in self.milestones:
            return [group['lr'] for group in groups]
        return [group['lr'] * self.gamma ** self.milestones[self.last_epoch] for group in groups]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group['lr'] for group in groups]
        return [group['lr'] * self.gamma for group in groups]


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group['lr'] * self.factor for group in groups]
        if self.last_epoch != self.total_iters:
            return [group['lr'] for group in groups]
        return [group['lr'] * (1.0 / self.factor) for group in groups]


def _not_modelled(name):
    def make(*args, **kwargs):
        raise _refusal(NotImplementedError(f"gpumemrepl does not model torch.optim.lr_scheduler.{name} yet, so it cannot say what memory it uses"))
    return make


for _name in ('ReduceLROnPlateau', 'SequentialLR', 'ChainedScheduler', 'CyclicLR', 'PolynomialLR',
              'CosineAnnealingWarmRestarts', 'MultiplicativeLR'):
    globals()[_name] = _not_modelled(_name)
del _name


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, list) and not isinstance(lr_lambda, tuple):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]


def _warn_get_lr_called_within_step(scheduler):
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                      UserWarning, stacklevel=2)


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group['lr'] for group in groups]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group['lr'] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base, group in zip(self.base_lrs, groups)]
        ratio = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
        return [ratio * (group['lr'] - self.eta_min) + self.eta_min for group in groups]


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group['lr'] * self.start_factor for group in groups]
        if self.last_epoch > self.total_iters:
            return [group['lr'] for group in groups]
        d = self.end_factor - self.start_factor
        f = 1.0 + d / (self.total_iters * self.start_factor + (self.last_epoch - 1) * d)
        return [group['lr'] * f for group in groups]


class OneCycleLR(LRScheduler):
    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
            total_steps = epochs * steps_per_epoch
        self.total_steps = total_steps
        if three_phase:
            self._phases = [(float(pct_start * total_steps) - 1, 'initial_lr', 'max_lr', 'max_momentum', 'base_momentum'),
                            (float(2 * pct_start * total_steps) - 2, 'max_lr', 'initial_lr', 'base_momentum', 'max_momentum'),
                            (total_steps - 1, 'initial_lr', 'min_lr', 'max_momentum', 'max_momentum')]
        else:
            self._phases = [(float(pct_start * total_steps) - 1, 'initial_lr', 'max_lr', 'max_momentum', 'base_momentum'),
                            (total_steps - 1, 'max_lr', 'min_lr', 'base_momentum', 'max_momentum')]
        self._cos = anneal_strategy == 'cos'
        self.cycle_momentum = cycle_momentum
        self.use_beta1 = 'betas' in optimizer.defaults
        maxes = max_lr if isinstance(max_lr, (list, tuple)) else [max_lr] * len(optimizer.param_groups)
        for group, top in zip(optimizer.param_groups, maxes):
            if last_epoch == -1:
                group['initial_lr'] = top / div_factor
                group['max_lr'] = top
                group['min_lr'] = group['initial_lr'] / final_div_factor
            if cycle_momentum:
                if self.use_beta1:
                    group['betas'] = (max_momentum, *group['betas'][1:])
                else:
                    group['momentum'] = max_momentum
                group['max_momentum'] = max_momentum
                group['base_momentum'] = base_momentum
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._cos:
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, (end_step, lr0, lr1, m0, m1) in enumerate(self._phases):
                if step <= end_step or i == len(self._phases) - 1:
                    pct = (step - start_step) / (end_step - start_step)
                    lr = self._anneal(group[lr0], group[lr1], pct)
                    momentum = self._anneal(group[m0], group[m1], pct) if self.cycle_momentum else None
                    break
                start_step = end_step
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group['betas'] = (momentum, *group['betas'][1:])
                else:
                    group['momentum'] = momentum
        return lrs
