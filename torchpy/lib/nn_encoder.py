# torch.nn, as gpumemrepl runs it (embedded by module_encoder.go).
def _activation_named(activation):
    if activation == 'relu':
        return functional.relu
    if activation == 'gelu':
        return functional.gelu
    raise RuntimeError(f'activation should be relu/gelu, not {activation}')


class TransformerEncoderLayer(Module):
    """TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=relu, layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True): self-attention and a feed-forward block, each with dropout, a residual and LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation='relu',
                 layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        made = {'device': device} if dtype is None else {'device': device, 'dtype': dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **made)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **made)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **made)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation_named(activation)
        if activation is functional.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is functional.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        import torch
        src_key_padding_mask = _additive_mask(src_key_padding_mask, 'src_key_padding_mask', src.dtype,
                                              None if src_mask is None else src_mask.dtype, 'src_mask')
        src_mask = _additive_mask(src_mask, 'src_mask', src.dtype)
        if self._fast_path(src):
            attn = self.self_attn
            merged_mask, mask_type = attn.merge_masks(src_mask, src_key_padding_mask, src)
            return torch._transformer_encoder_layer_fwd(
                src, attn.embed_dim, attn.num_heads, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                attn.out_proj.bias, self.activation_relu_or_gelu == 2, self.norm_first, self.norm1.eps, self.norm1.weight,
                self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight, self.linear1.bias,
                self.linear2.weight, self.linear2.bias, merged_mask, mask_type)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _fast_path(self, src):
        # torch._transformer_encoder_layer_fwd's conditions
        import torch
        attn = self.self_attn
        if (src.dim() != 3 or self.training or not attn.batch_first or attn.in_proj_bias is None
                or not attn._qkv_same_embed_dim or not self.activation_relu_or_gelu or self.norm1.eps != self.norm2.eps
                or attn.num_heads % 2 == 1 or torch.is_autocast_enabled()):
            return False
        params = (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, self.norm1.weight,
                  self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight, self.linear1.bias,
                  self.linear2.weight, self.linear2.bias)
        return not (torch.is_grad_enabled() and (src.requires_grad or any(p.requires_grad for p in params)))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


def _why_not_sparsity(layer):
    # why TransformerEncoder's nested-tensor path cannot take this layer,
    # in PyTorch's words ('' when it can)
    name = 'encoder_layer'
    if not isinstance(layer, TransformerEncoderLayer):
        return f'{name} was not TransformerEncoderLayer'
    attn = layer.self_attn
    if layer.norm_first:
        return f'{name}.norm_first was True'
    if not attn.batch_first:
        return f'{name}.self_attn.batch_first was not True(use batch_first for better inference performance)'
    if not attn._qkv_same_embed_dim:
        return f'{name}.self_attn._qkv_same_embed_dim was not True'
    if attn.in_proj_bias is None:
        return f'{name}.self_attn was passed bias=False'
    if not layer.activation_relu_or_gelu:
        return f'{name}.activation_relu_or_gelu was not True'
    if layer.norm1.eps != layer.norm2.eps:
        return f'{name}.norm1.eps was not equal to {name}.norm2.eps'
    if attn.num_heads % 2 == 1:
        return f'{name}.self_attn.num_heads is odd'
    return ''


class TransformerEncoder(Module):
    """TransformerEncoder(encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True): num_layers deep copies of encoder_layer (each its own parameters), run in turn, then norm; a mask given as bool made additive once, as PyTorch's. Refused: the nested-tensor path (eval with a padding mask), and a mask with is_causal=None (PyTorch compares it with a causal mask, a value the tool does not compute: pass is_causal)."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        import copy
        import warnings
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_sparsity(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f'enable_nested_tensor is True, but self.use_nested_tensor is False because {why}')
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = _additive_mask(src_key_padding_mask, 'src_key_padding_mask', src.dtype,
                                              None if mask is None else mask.dtype, 'mask')
        mask = _additive_mask(mask, 'mask', src.dtype)
        first = self.layers[0]
        if (src_key_padding_mask is not None and mask is None and self.use_nested_tensor and not _why_not_sparsity(first)
                and first._fast_path(src)):
            raise NotImplementedError("TransformerEncoder's nested-tensor path (eval, with src_key_padding_mask) is not "
                                      'modelled by gpumemrepl')
        if mask is not None and is_causal is None:
            raise NotImplementedError('TransformerEncoder with a mask and is_causal=None is not modelled by gpumemrepl: '
                                      'PyTorch compares the mask with a causal one to decide, a value the tool does not '
                                      'compute; pass is_causal=True or False')
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """Transformer: not modelled; Transformer.generate_square_subsequent_mask(sz) is."""

    def __init__(self, *args, **kwargs):
        _mha_refuse('nn.Transformer')

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        import torch
        return torch.triu(torch.full((sz, sz), float('-inf'), dtype=dtype, device=device), diagonal=1)
