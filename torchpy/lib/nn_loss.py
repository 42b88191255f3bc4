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


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean', zero_infinity=False):
    # ATen's ctc_loss (LossCTC.cpp's ctc_loss_impl) over its native CUDA
    # kernel, torch._ctc_loss (the engine's rule): the lengths read on
    # the host, the targets made int64 on the device, zero_infinity's
    # where (its zeros made before its mask, as GCC evaluates C++'s
    # arguments), the reduction; cuDNN's CTC refused
    import torch
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    il = input_lengths.tolist() if isinstance(input_lengths, torch.Tensor) else list(input_lengths)
    tl = target_lengths.tolist() if isinstance(target_lengths, torch.Tensor) else list(target_lengths)
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    if not isinstance(il, list) or not isinstance(tl, list):
        # lengths whose values the tool does not know (drawn at random, read
        # from data): log_alpha's width is twice the longest target's
        # plus one, taken at its bound, the targets' width
        _estimate('F.ctc_loss', "lengths whose values are not computed: the longest target taken as the targets' width, log_alpha's size as large as it can be", lp, targets)
        n = lp.size(1)
        width = targets.size(1) if targets.dim() == 2 else targets.size(0)
        il = [lp.size(0)] * n
        tl = [width] * n
    if (torch.backends.cudnn.enabled and blank == 0 and targets.dim() == 1 and lp.dtype == torch.float32
            and targets.dtype == torch.int32 and targets.device.type == 'cpu' and lp.is_cuda and lp.dim() == 3
            and all(n == lp.size(0) for n in il) and all(t < 256 and t <= n for t, n in zip(tl, il))):
        raise _refusal(NotImplementedError("F.ctc_loss by cuDNN's CTC (int32 targets on the host, blank 0, every input of full length) is not modelled by gpumemrepl"))
    res = torch._ctc_loss(lp, targets.to(lp.device, torch.long), il, tl, blank, zero_infinity)[0]
    if zero_infinity:
        zero = torch.zeros((), dtype=res.dtype, device=res.device)
        inf = res == float('inf')
        res = torch.where(inf, zero, res)
        del inf, zero
    if reduction == 'mean':
        lengths = torch.tensor(tl, dtype=res.dtype, device=res.device).clamp_min(1)
        out = (res / lengths).mean()
        del lengths
        return out
    if reduction == 'sum':
        return res.sum()
    return res if batched else res.squeeze(0)


functional.pairwise_distance = pairwise_distance
functional.triplet_margin_loss = triplet_margin_loss
functional.ctc_loss = ctc_loss
del pairwise_distance, triplet_margin_loss, ctc_loss


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


class CTCLoss(_Loss):
    """CTCLoss(blank=0, reduction='mean', zero_infinity=False): F.ctc_loss, PyTorch's native CUDA kernel (log_alpha saved; backward log_beta and the gradient)."""

    def __init__(self, blank=0, reduction='mean', zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction, self.zero_infinity)
