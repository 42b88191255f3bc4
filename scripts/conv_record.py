"""Recording one convolution configuration on the GPU in the conv table's
compact form (scripts/conv_compact.py): shared by
scripts/probe_conv_grid.py and scripts/calibrate.py.

record(torch, cfg, masks) runs the configuration's forward, then for each
grad mask ("xwb": which of input, weight and bias require grad; one
backward from a fresh forward each) its backward of a dense incoming
gradient, each under the allocator's trace
(torch.cuda.memory._record_memory_history, no stacks), naming each kept
allocation by its address (the output's, each gradient's). Inputs are
made by torch.empty in the configuration's layout: the values do not
change what is allocated. It returns the compact line, or a line with
"error" when PyTorch ran out of memory (then cuDNN tries its next
engine, which the table does not model) or refused the configuration.
"""
import json

import conv_compact

ACTIONS = {"alloc", "free_requested", "oom"}


def trace_start(torch):
    """A fresh allocator trace, without stacks."""
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=4096,
                                             clear_history=True)


def trace_read(torch):
    """The trace's alloc, free and oom events since trace_start, as
    (action, size, addr); the trace stops."""
    torch.cuda.synchronize()
    events = [(e["action"], e["size"], e.get("addr")) for e in torch.cuda.memory._snapshot()["device_traces"][0]
              if e["action"] in ACTIONS]
    torch.cuda.memory._record_memory_history(enabled=None)
    return events


def record(torch, cfg, masks):
    """The compact line of cfg: its forward and a backward per mask."""
    import torch.nn.functional as F
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[cfg["dtype"]]
    fmt = {"contiguous": torch.contiguous_format, "channels_last": torch.channels_last}[cfg["format"]]
    dims = len(cfg["x"]) - 2
    out_ch = cfg["w"][1] * cfg["groups"] if cfg.get("transposed") else cfg["w"][0]
    torch.backends.cudnn.deterministic = bool(cfg.get("deterministic"))

    def run(mask):
        kw = {} if dims != 2 else {"memory_format": fmt}
        x = torch.empty(cfg["x"], device="cuda", dtype=dt, **kw).requires_grad_("x" in mask)
        w = torch.empty(cfg["w"], device="cuda", dtype=dt, **kw).requires_grad_("w" in mask)
        b = torch.empty(out_ch, device="cuda", dtype=dt).requires_grad_("b" in mask) if cfg["bias"] else None
        if cfg.get("transposed"):
            conv = getattr(F, f"conv_transpose{dims}d")
            args = (cfg["stride"], cfg["padding"], cfg["output_padding"], cfg["groups"], cfg["dilation"])
        else:
            conv = getattr(F, f"conv{dims}d")
            args = (cfg["stride"], cfg["padding"], cfg["dilation"], cfg["groups"])
        trace_start(torch)
        y = conv(x, w, b, *args)
        fwd = conv_compact.encode_phase(trace_read(torch), lambda a, s: "y" if a == y.data_ptr() else None)
        if not mask:
            return fwd, None
        g = torch.empty_like(y)
        trace_start(torch)
        y.backward(g)
        events = trace_read(torch)
        grads = {"x": x.grad, "w": w.grad, "b": b.grad if b is not None else None}
        bwd = conv_compact.encode_phase(
            events, lambda a, s: next((r for r in mask if grads[r] is not None and grads[r].data_ptr() == a), None))
        return fwd, bwd

    try:
        fwd, bwd = None, {}
        for mask in masks or [""]:
            f, b = run(mask)
            if fwd is not None and f != fwd:
                raise RuntimeError(f"two forwards of one configuration differ: {fwd!r}, {f!r}")
            fwd = f
            if b is not None:
                bwd[mask] = b
        if "!" in fwd or any("!" in b for b in bwd.values()):
            raise torch.OutOfMemoryError("a workspace did not fit; cuDNN fell back to another engine")
        return conv_compact.line(cfg, fwd, bwd)
    except torch.OutOfMemoryError as err:
        return json.dumps(dict(conv_compact.config_key(cfg), error=str(err).splitlines()[0]))
    except Exception as err:  # a configuration PyTorch refuses: said, not fatal
        return json.dumps(dict(conv_compact.config_key(cfg), error=f"{type(err).__name__}: {err}"[:300]))
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
        torch.backends.cudnn.deterministic = False
