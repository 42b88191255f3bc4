# torch.nn, as gpumemrepl runs it (embedded by module_attention.go).
import math as _math


def _mha_refuse(what):
    raise _refusal(NotImplementedError(what + ' is not modelled by gpumemrepl'))


class NonDynamicallyQuantizableLinear(Linear):
    """Linear, under the name of MultiheadAttention's out_proj."""


def _additive_mask(mask, name, dtype, other=None, other_name=''):
    # a bool mask becomes a float one of the query's dtype: zeros, with
    # -inf written where it is True
    if mask is None:
        return None
    import torch
    floating = mask.is_floating_point()
    if mask.dtype != torch.bool and not floating:
        raise AssertionError(f'only bool and floating types of {name} are supported')
    if other is not None and mask.dtype != other:
        import warnings
        warnings.warn(f'Support for mismatched {name} and {other_name} is deprecated. Use same type for both instead.', stacklevel=2)
    if floating:
        return mask
    return torch.zeros_like(mask, dtype=dtype).masked_fill_(mask, float('-inf'))


def _mha_batched(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(f'For batched (3-D) query, expected key and value to be 3-D but found {key.dim()}-D and {value.dim()}-D tensors respectively')
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(f'For batched (3-D) query, expected key_padding_mask to be None or 2-D but found {key_padding_mask.dim()}-D tensor instead')
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(f'For batched (3-D) query, expected attn_mask to be None, 2-D or 3-D but found {attn_mask.dim()}-D tensor instead')
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(f'For unbatched (2-D) query, expected key and value to be 2-D but found {key.dim()}-D and {value.dim()}-D tensors respectively')
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(f'For unbatched (2-D) query, expected key_padding_mask to be None or 1-D but found {key_padding_mask.dim()}-D tensor instead')
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(f'For unbatched (2-D) query, expected attn_mask to be None, 2-D or 3-D but found {attn_mask.dim()}-D tensor instead')
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != (num_heads, query.shape[0], key.shape[0]):
                raise AssertionError(f'Expected attn_mask shape to be {(num_heads, query.shape[0], key.shape[0])} but got {attn_mask.shape}')
        return False
    raise AssertionError(f'query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor')


def _packed_projections(q, k, v, w, b):
    # self-attention: one linear, reordered to [3, ..., E] by a copy;
    # key is value: a linear for q and one for k and v together, reordered
    # likewise; else three linears over the weight's chunks
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = functional.linear(q, w, b)
            proj = proj.view(*proj.shape[:-1], 3, E).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q = b_kv = None
        if b is not None:
            b_q, b_kv = b.split([E, E * 2])
        q_proj = functional.linear(q, w_q, b_q)
        kv_proj = functional.linear(k, w_kv, b_kv)
        kv_proj = kv_proj.view(*kv_proj.shape[:-1], 2, E).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q = b_k = b_v = None
    if b is not None:
        b_q, b_k, b_v = b.chunk(3)
    return functional.linear(q, w_q, b_q), functional.linear(k, w_k, b_k), functional.linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True, key_padding_mask=None, need_weights=True, attn_mask=None, ...): the in-projection, the heads as views, softmax(q k^T) v (need_weights) or scaled_dot_product_attention, the out-projection."""
    import torch
    if bias_k is not None or bias_v is not None or add_zero_attn:
        _mha_refuse('multi-head attention with bias_k, bias_v or add_zero_attn')
    if static_k is not None or static_v is not None:
        _mha_refuse('multi-head attention with static_k or static_v')
    is_batched = _mha_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _additive_mask(key_padding_mask, 'key_padding_mask', query.dtype,
                                      None if attn_mask is None else attn_mask.dtype, 'attn_mask')
    if is_causal and attn_mask is None:
        raise RuntimeError('Need attn_mask if specifying the is_causal hint. You may use the Transformer module method '
                           '`generate_square_subsequent_mask` to create this mask.')
    if is_causal and key_padding_mask is None and not need_weights:
        # scaled_dot_product_attention's causal kernel takes the mask's place
        attn_mask = None
    else:
        attn_mask = _additive_mask(attn_mask, 'attn_mask', query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f'was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}')
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f'embed_dim {embed_dim} not divisible by num_heads {num_heads}')
    if not use_separate_proj_weight:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f'key shape {key.shape} does not match value shape {value.shape}')
        if in_proj_weight is None:
            raise AssertionError('use_separate_proj_weight is False but in_proj_weight is None')
        q, k, v = _packed_projections(query, key, value, in_proj_weight, in_proj_bias)
    else:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}")
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError('use_separate_proj_weight is True but q_proj_weight, k_proj_weight or v_proj_weight is None')
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = (functional.linear(query, q_proj_weight, b_q), functional.linear(key, k_proj_weight, b_k),
                   functional.linear(value, v_proj_weight, b_v))
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f'The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(tgt_len, src_len)}.')
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f'The shape of the 3D attn_mask is {attn_mask.shape}, but should be {(bsz * num_heads, tgt_len, src_len)}.')
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    src_len = k.size(1)
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f'expecting key_padding_mask shape of {(bsz, src_len)}, but got {key_padding_mask.shape}')
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        else:
            attn_mask = attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[2]
        q_scaled = q * _math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError('FIXME: is_causal not implemented for need_weights')
        if attn_mask is not None:
            attn_output_weights = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = torch.bmm(q_scaled, k.transpose(-2, -1))
        attn_output_weights = functional.softmax(attn_output_weights, dim=-1)
        if dropout_p > 0.0:
            attn_output_weights = functional.dropout(attn_output_weights, p=dropout_p)
        attn_output = torch.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        attn_output = functional.linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = functional.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
    attn_output = functional.linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


functional.multi_head_attention_forward = multi_head_attention_forward


class MultiheadAttention(Module):
    """MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True, kdim=None, vdim=None, batch_first=False): F.multi_head_attention_forward, or in eval without autograd (batch_first self-attention) torch._native_multi_head_attention."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f'embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} instead')
        super().__init__()
        if add_bias_kv or add_zero_attn:
            _mha_refuse('MultiheadAttention(add_bias_kv=True) or (add_zero_attn=True)')
        import torch
        made = {'device': device, 'dtype': dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError('embed_dim must be divisible by num_heads')
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(torch.empty((3 * embed_dim, embed_dim), **made))
            for name in ('q_proj_weight', 'k_proj_weight', 'v_proj_weight'):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(torch.empty((embed_dim, embed_dim), **made))
            self.k_proj_weight = Parameter(torch.empty((embed_dim, self.kdim), **made))
            self.v_proj_weight = Parameter(torch.empty((embed_dim, self.vdim), **made))
            self.register_parameter('in_proj_weight', None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim, **made))
        else:
            self.register_parameter('in_proj_bias', None)
        linear_args = {'device': device} if dtype is None else made
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **linear_args)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        import torch
        why_not_fast_path = ''
        if attn_mask is not None and attn_mask.is_floating_point() or key_padding_mask is not None and key_padding_mask.is_floating_point():
            why_not_fast_path = 'floating-point masks are not supported for fast path.'
        is_batched = query.dim() == 3
        key_padding_mask = _additive_mask(key_padding_mask, 'key_padding_mask', query.dtype,
                                          None if attn_mask is None else attn_mask.dtype, 'attn_mask')
        attn_mask = _additive_mask(attn_mask, 'attn_mask', query.dtype)
        if not why_not_fast_path and self._fast_path(query, key, value):
            tensor_args = (query, key, value, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight, self.out_proj.bias)
            if not (torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensor_args)):
                merged_mask, mask_type = self.merge_masks(attn_mask, key_padding_mask, query)
                if self.in_proj_bias is not None:
                    return torch._native_multi_head_attention(
                        query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                        self.out_proj.weight, self.out_proj.bias, merged_mask, need_weights, average_attn_weights, mask_type)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        attn_output, attn_output_weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights

    def _fast_path(self, query, key, value):
        # torch._native_multi_head_attention's conditions but autograd's
        import torch
        w, b = self.in_proj_weight, self.in_proj_bias
        return (query.dim() == 3 and query is key and key is value and w is not None and query.dtype == w.dtype
                and (b is None or query.dtype == b.dtype) and not self.training and self.num_heads % 2 == 0
                and self.batch_first and self._qkv_same_embed_dim and not torch.is_autocast_enabled())

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """merge_masks(attn_mask, key_padding_mask, query): the fast path's one mask and its type (0 attn_mask, 1 key_padding_mask, 2 both, expanded to [N, heads, L, L] and added)."""
        mask_type = None
        merged_mask = None
        if key_padding_mask is not None:
            mask_type = 1
            merged_mask = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len = query.shape[0], query.shape[1]
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            merged_mask = attn_mask_expanded
            if key_padding_mask is not None:
                merged_mask = attn_mask_expanded + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
        return merged_mask, mask_type

