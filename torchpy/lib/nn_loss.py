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


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    # ATen's pairwise_distance: the p-norm along the innermost dimension
    # of x1 - x2 + eps; the difference lives until the norm is made, as
    # C++ keeps a temporary to the end of its statement; at::norm's node
    # (recorded: testdata/pyrules/zoo_layers.py)
    import torch
    diff = x1 - x2
    shifted = diff + eps
    out = torch.norm(shifted, p, max(x1.dim(), x2.dim()) - 1, keepdim)
    _name_node(out, 'NormBackward1')
    del shifted, diff
    return out


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None, reduce=None, reduction='mean'):
    # ATen's triplet_margin_loss, its temporaries freed where C++ frees
    # them: margin + d(a, p) lives until clamp_min is made
    import torch
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    a, q, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == q == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: anchor {a}D, positive {q}D, and negative {n}D inputs")
    # recorded (testdata/pyrules/zoo_layers.py, every statement matched)
    dist_pos = functional.pairwise_distance(anchor, positive, p, eps)
    dist_neg = functional.pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_swap = functional.pairwise_distance(positive, negative, p, eps)
        dist_neg = torch.minimum(dist_neg, dist_swap)
        del dist_swap
    plus = margin + dist_pos
    minus = plus - dist_neg
    output = torch.clamp_min(minus, 0)
    del minus, plus
    if reduction == 'mean':
        result = output.mean()
    elif reduction == 'sum':
        result = output.sum()
    else:
        return output
    del output, dist_neg, dist_pos
    return result


functional.pairwise_distance = pairwise_distance
functional.triplet_margin_loss = triplet_margin_loss
del pairwise_distance, triplet_margin_loss


class TripletMarginLoss(_Loss):
    """TripletMarginLoss(margin=1.0, p=2.0, eps=1e-06, swap=False, reduction='mean'): F.triplet_margin_loss."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return functional.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps, swap=self.swap, reduction=self.reduction)


class PairwiseDistance(Module):
    """PairwiseDistance(p=2.0, eps=1e-06, keepdim=False): F.pairwise_distance."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return functional.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
