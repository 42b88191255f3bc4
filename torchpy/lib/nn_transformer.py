# torch.nn, as gpumemrepl runs it (embedded by module_transformer.go).
def _refuse(what):
    raise _refusal(NotImplementedError(what + ' is not modelled by gpumemrepl'))


class Embedding(Module):
    """Embedding(num_embeddings, embedding_dim, padding_idx=None): F.embedding; forward one new tensor, the indices saved; backward the weight's gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse or _weight is not None:
            _refuse('Embedding(max_norm=, scale_grad_by_freq=, sparse=, _weight=)')
        import torch
        if padding_idx is not None:
            if padding_idx < 0:
                padding_idx = num_embeddings + padding_idx
            if not 0 <= padding_idx < num_embeddings:
                raise AssertionError('Padding_idx must be within num_embeddings')
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.weight = Parameter(torch.randn(num_embeddings, embedding_dim, device=device, dtype=dtype), requires_grad=not _freeze)
        self.sparse = sparse

    def forward(self, input):
        return functional.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        s = f'{self.num_embeddings}, {self.embedding_dim}'
        if self.padding_idx is not None:
            s += f', padding_idx={self.padding_idx}'
        return s



def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode='mean',
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    # PyTorch's F.embedding_bag: a 2-d input is bags of its rows' length,
    # their offsets an arange; torch.embedding_bag's three other outputs
    # go as the tuple is unpacked (the node keeps them under autograd)
    import torch
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = torch.arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        input = input.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == 'sum':
        mode_enum = 0
    elif mode == 'mean':
        mode_enum = 1
    elif mode == 'max':
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _refuse('F.embedding_bag(max_norm=)')
    ret, _, _, _ = torch.embedding_bag(weight, input, offsets, scale_grad_by_freq, mode_enum, sparse, per_sample_weights, include_last_offset, padding_idx)
    return ret


functional.embedding_bag = embedding_bag
del embedding_bag


class EmbeddingBag(Module):
    """EmbeddingBag(num_embeddings, embedding_dim, mode='mean', include_last_offset=False, padding_idx=None): F.embedding_bag; bag_size, offset2bag and the output (max mode: max_indices), the first two saved; backward sorts the indices (estimated)."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, mode='mean',
                 sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        if _weight is not None:
            _refuse('EmbeddingBag(_weight=)')
        import torch
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < self.num_embeddings, 'padding_idx must be within num_embeddings'
            elif padding_idx < 0:
                assert padding_idx >= -self.num_embeddings, 'padding_idx must be within num_embeddings'
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.weight = Parameter(torch.randn(num_embeddings, embedding_dim, device=device, dtype=dtype))
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return functional.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq, self.mode,
                                        self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = '{num_embeddings}, {embedding_dim}'
        if self.max_norm is not None:
            s += ', max_norm={max_norm}'
        if self.norm_type != 2:
            s += ', norm_type={norm_type}'
        if self.scale_grad_by_freq is not False:
            s += ', scale_grad_by_freq={scale_grad_by_freq}'
        s += ', mode={mode}'
        if self.padding_idx is not None:
            s += ', padding_idx={padding_idx}'
        # PyTorch's: the repr of every attribute, so the weight is printed
        # where it is, its formatter's temporaries on its GPU
        # (testdata/pyrules/zoo_layers.py line 50)
        return s.format(**{k: repr(v) for k, v in self.__dict__.items()})

def _norm_init(self, normalized_shape, eps, elementwise_affine, device, dtype):
    import torch
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    self.normalized_shape = tuple(normalized_shape)
    self.eps = eps
    self.elementwise_affine = elementwise_affine
    if elementwise_affine:
        self.weight = Parameter(torch.ones(self.normalized_shape, device=device, dtype=dtype))
    else:
        self.register_parameter('weight', None)


def _norm_repr(self):
    return f'{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}'


class LayerNorm(Module):
    """LayerNorm(normalized_shape, eps=1e-05, elementwise_affine=True, bias=True): F.layer_norm; the output, then mean and rstd saved; backward the input's, weight's, bias's gradients."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        _norm_init(self, normalized_shape, eps, elementwise_affine, device, dtype)
        if elementwise_affine and bias:
            import torch
            self.bias = Parameter(torch.zeros(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter('bias', None)

    def forward(self, input):
        return functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    extra_repr = _norm_repr


class RMSNorm(Module):
    """RMSNorm(normalized_shape, eps=None, elementwise_affine=True): F.rms_norm; the output, then rstd saved; backward the input's and weight's gradients."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        _norm_init(self, normalized_shape, eps, elementwise_affine, device, dtype)

    def forward(self, x):
        return functional.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    extra_repr = _norm_repr


class Dropout(Module):
    """Dropout(p=0.5, inplace=False): F.dropout; in training the output and a bool mask (saved); in eval the input itself."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f'dropout probability has to be between 0 and 1, but got {p}')
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        if not self.training or self.p == 0:
            return input
        if self.inplace:
            functional.dropout(input, self.p, True, True)
            return input
        return functional.dropout(input, self.p, True)

    def extra_repr(self):
        return f'p={self.p}, inplace={self.inplace}'
