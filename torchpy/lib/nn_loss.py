# torch.nn, as gpumemrepl runs it (embedded by module_loss.go).
def _legacy_reduction(size_average, reduce):
    # _Reduction.legacy_get_string: an unset size_average or reduce is True
    reduce = True if reduce is None else reduce
    if not reduce:
        return 'none'
    return 'sum' if size_average is not None and not size_average else 'mean'


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer('weight', weight)


class MSELoss(_Loss):
    """MSELoss(reduction='mean'): F.mse_loss; a reduced loss keeps a storage of the input's size."""

    def forward(self, input, target):
        return functional.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """L1Loss(reduction='mean'): F.l1_loss, (input - target).abs() reduced."""

    def forward(self, input, target):
        return functional.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """NLLLoss(weight=None, ignore_index=-100, reduction='mean'): F.nll_loss; saves input, target and a 0-d total_weight."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return functional.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0): F.cross_entropy, log_softmax (saved) then nll_loss."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean', label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return functional.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index, reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """BCELoss(weight=None, reduction='mean'): F.binary_cross_entropy (estimated: its rule not yet held to a recording)."""

    def forward(self, input, target):
        return functional.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None): F.binary_cross_entropy_with_logits."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean', pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer('weight', weight)
        self.register_buffer('pos_weight', pos_weight)

    def forward(self, input, target):
        return functional.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction)
