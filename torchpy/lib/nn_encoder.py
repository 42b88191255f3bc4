# torch.nn, as gpumemrepl runs it (embedded by module_encoder.go).
def _activation_named(activation):
    if activation == 'relu':
        return functional.relu
    if activation == 'gelu':
        return functional.gelu
    raise RuntimeError(f'activation should be relu/gelu, not {activation}')


def _layer_parts(layer, attentions, blocks, d_model, nhead, dim_feedforward, dropout, layer_norm_eps, batch_first,
                 norm_first, bias, device, dtype):
    # a transformer layer's modules in PyTorch's order (its parameters'
    # order, which .cuda() allocates by): the attentions, the feed-forward
    # block, then a LayerNorm and a Dropout per residual block
    made = {'device': device} if dtype is None else {'device': device, 'dtype': dtype}
    for name in attentions:
        setattr(layer, name, MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **made))
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **made)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **made)
    layer.norm_first = norm_first
    for i in range(1, blocks + 1):
        setattr(layer, f'norm{i}', LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made))
    for i in range(1, blocks + 1):
        setattr(layer, f'dropout{i}', Dropout(dropout))


class TransformerEncoderLayer(Module):
    """TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=relu, layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True): self-attention and a feed-forward block, each with dropout, a residual and LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation='relu',
                 layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        _layer_parts(self, ('self_attn',), 2, d_model, nhead, dim_feedforward, dropout, layer_norm_eps, batch_first,
                     norm_first, bias, device, dtype)
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


def _why_not_sparsity_fast_path(layer):
    name = 'encoder_layer'
    if not isinstance(layer, TransformerEncoderLayer):
        return f'{name} was not TransformerEncoderLayer'
    if layer.norm_first:
        return f'{name}.norm_first was True'
    attn = layer.self_attn
    if not attn.batch_first:
        return f'{name}.self_attn.batch_first was not True(use batch_first for better inference performance)'
    if not attn._qkv_same_embed_dim:
        return f'{name}.self_attn._qkv_same_embed_dim was not True'
    if attn.in_proj_bias is None:
        return f'{name}.self_attn was passed bias=False'
    if not layer.activation_relu_or_gelu:
        return f'{name}.activation_relu_or_gelu was not True'
    if not layer.norm1.eps == layer.norm2.eps:
        return f'{name}.norm1.eps was not equal to {name}.norm2.eps'
    if attn.num_heads % 2 == 1:
        return f'{name}.self_attn.num_heads is odd'
    return ''


class TransformerEncoder(Module):
    """TransformerEncoder(encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True): num_layers deep copies of the layer run in turn, then norm."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        import copy
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_sparsity_fast_path(encoder_layer)
        if enable_nested_tensor and why_not:
            import warnings
            warnings.warn(f'enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}')
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        import torch
        src_key_padding_mask = _additive_mask(src_key_padding_mask, 'src_key_padding_mask', src.dtype,
                                              None if mask is None else mask.dtype, 'mask')
        mask = _additive_mask(mask, 'mask', src.dtype)
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        if (self.use_nested_tensor and src_key_padding_mask is not None and src.dim() == 3 and not self.training
                and not (torch.is_grad_enabled() and (src.requires_grad or any(p.requires_grad for p in self.parameters())))
                and not _why_not_sparsity_fast_path(first) and not torch.is_autocast_enabled()):
            _mha_refuse('TransformerEncoder over a nested tensor (enable_nested_tensor with a src_key_padding_mask in eval)')
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    # PyTorch compares a mask given without is_causal with the causal mask
    # of its size, made on its device for the comparison
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        import torch
        sz = size if size is not None else mask.size(-2)
        causal = Transformer.generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if mask.size() == causal.size():
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


class TransformerDecoderLayer(Module):
    """TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=relu, layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True): self-attention, attention over the memory and a feed-forward block, each with dropout, a residual and LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation='relu',
                 layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        _layer_parts(self, ('self_attn', 'multihead_attn'), 3, d_model, nhead, dim_feedforward, dropout, layer_norm_eps,
                     batch_first, norm_first, bias, device, dtype)
        self.activation = _activation_named(activation) if isinstance(activation, str) else activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _get_seq_len(src, batch_first):
    if src.dim() == 2:
        return src.size(0)
    return src.size(1 if batch_first else 0)


class TransformerDecoder(Module):
    """TransformerDecoder(decoder_layer, num_layers, norm=None): num_layers deep copies of the layer run in turn over the memory, then norm; a tgt_mask given without tgt_is_causal is compared with the causal mask."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        import copy
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048, dropout=0.1, activation=relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True): a TransformerEncoder and a TransformerDecoder, each ending in LayerNorm; forward(src, tgt, ...) encodes src, then decodes tgt over it."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048, dropout=0.1,
                 activation='relu', custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-05, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        made = {'device': device} if dtype is None else {'device': device, 'dtype': dtype}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                                    batch_first, norm_first, bias, **made)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                                    batch_first, norm_first, bias, **made)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError('the batch number of src and tgt must be equal')
        elif self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError('the batch number of src and tgt must be equal')
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError('the feature number of src and tgt must be equal to d_model')
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        import torch
        return torch.triu(torch.full((sz, sz), float('-inf'), dtype=dtype, device=device), diagonal=1)
