# torch.distributed.fsdp.wrap's auto-wrap policy that model code passes
# FSDP: whether a module is one of the given layer classes.


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    if recurse:
        return True
    return isinstance(module, tuple(transformer_layer_cls))
