# torch.distributions' Categorical, as model code samples tokens and
# scores actions with it (Categorical(logits=...).sample(), log_prob,
# entropy): PyTorch's own ops over its parameter, in its order. PyTorch
# checks arguments by default (validate_args): the check's temporaries
# are made and freed here as PyTorch makes them, and its verdict, which
# needs values the tool does not compute, is taken as valid. Each step is
# labelled estimated: the composite is not yet recorded on the GPU.
# (torch is imported in each function: this module is made while torch is.)

_why = "PyTorch's composite (with its argument checks' temporaries), not yet recorded on the GPU"


def _mark(op, *tensors):
    import torch
    torch.nn._estimate('torch.distributions.Categorical.' + op, _why, *tensors)


def _broadcast(a, b):
    # torch.broadcast_tensors of two: each expanded (a view) to the
    # shape both broadcast to
    n = max(a.dim(), b.dim())
    sa = (1,) * (n - a.dim()) + tuple(a.shape)
    sb = (1,) * (n - b.dim()) + tuple(b.shape)
    shape = tuple(x if y == 1 else y for x, y in zip(sa, sb))
    return a.expand(shape), b.expand(shape)


class Distribution:
    __module__ = 'torch.distributions.distribution'
    _validate_args = True

    @staticmethod
    def set_default_validate_args(value):
        Distribution._validate_args = bool(value)


class Categorical(Distribution):
    __module__ = 'torch.distributions.categorical'

    def __init__(self, probs=None, logits=None, validate_args=None):
        import torch
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self._probs, self._logits = probs / probs.sum(-1, keepdim=True), None
            param = self._probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self._logits, self._probs = logits - logits.logsumexp(dim=-1, keepdim=True), None
            param = self._logits
        _mark('__init__', param)
        self._param = param
        self._num_events = param.size()[-1]
        self.batch_shape = param.size()[:-1] if param.dim() > 1 else torch.Size()
        self.event_shape = torch.Size()
        self._validate = Distribution._validate_args if validate_args is None else validate_args
        if self._validate:
            if probs is not None:
                # constraints.simplex: non-negative, each row summing to 1
                valid = torch.all(param >= 0, dim=-1) & ((param.sum(-1) - 1).abs() < 1e-6)
            else:
                # independent(real, 1): not NaN along the last dimension
                valid = param == param
                valid = valid.reshape(valid.shape[:valid.dim() - 1] + (-1,)).all(-1)
            del valid

    @property
    def probs(self):
        import torch
        if self._probs is None:
            self._probs = torch.nn.functional.softmax(self._logits, dim=-1)
        return self._probs

    @property
    def logits(self):
        import torch
        if self._logits is None:
            eps = torch.finfo(self._probs.dtype).eps
            self._logits = torch.log(self._probs.clamp(min=eps, max=1 - eps))
        return self._logits

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    def sample(self, sample_shape=()):
        import torch
        if not isinstance(sample_shape, torch.Size):
            sample_shape = torch.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        _mark('sample', probs_2d)
        samples_2d = torch.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(sample_shape + self.batch_shape)

    def log_prob(self, value):
        import torch
        _mark('log_prob', value)
        if self._validate:
            # the support, integers 0 to num_events - 1
            valid = (value % 1 == 0) & (0 <= value) & (value <= self._num_events - 1)
            del valid
        value = value.long().unsqueeze(-1)
        value, log_pmf = _broadcast(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        import torch
        logits = torch.clamp(self.logits, min=torch.finfo(self.logits.dtype).min)
        _mark('entropy', logits)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def __repr__(self):
        # the parameters made so far, probs first, as PyTorch lists them
        made = [(n, t) for n, t in (('probs', self._probs), ('logits', self._logits)) if t is not None]
        return 'Categorical(' + ', '.join(f'{n}: {t.size()}' for n, t in made) + ')'
