#!/usr/bin/env python3
"""The conv table's compact form (docs/calibration.md): one JSON object a
line, a convolution's configuration as scripts/probe_conv.py's --config
takes it, "fwd" the forward's allocator events and "bwd" each backward's
(keyed by the grad mask, "/expanded" after it for a broadcast incoming
gradient), each a string of tokens: "y", "x", "w", "b" a kept allocation
(the output, the input's, weight's, bias's gradient), "+N" a temporary of
N bytes, "-I" the free of the phase's I-th allocation (from 0).

    python3 scripts/conv_compact.py OLD.jsonl.gz... > NEW.jsonl

converts scripts/probe_conv.py's grid and table recordings to it (each
kept allocation's role from its size; a configuration recorded twice is
written once). scripts/probe_conv_grid.py and scripts/calibrate.py write
it with encode_phase.
"""
import gzip
import json
import sys

KEY_FIELDS = ["x", "w", "stride", "padding", "dilation", "groups", "bias", "dtype", "format", "deterministic"]


def encode_phase(events, role_of):
    """A phase's tokens: events are [action, size, addr] (allocator trace
    actions; only alloc and free_requested count, an oom is "!N"; an
    address may be allocated again once freed), role_of(addr, size) names
    a kept allocation's tensor ("y", "x", "w", "b")."""
    freed_at = {}  # position of an alloc -> whether a free of its address follows
    open_alloc = {}
    for i, (action, size, addr) in enumerate(events):
        if action == "alloc":
            open_alloc[addr] = i
            freed_at[i] = False
        elif action == "free_requested" and addr in open_alloc:
            freed_at[open_alloc.pop(addr)] = True
    index, toks, allocs = {}, [], 0
    for i, (action, size, addr) in enumerate(events):
        if action == "alloc":
            index[addr] = allocs
            allocs += 1
            if freed_at[i]:
                toks.append(f"+{size}")
            else:
                role = role_of(addr, size)
                if role is None:
                    raise ValueError(f"a kept allocation of {size} bytes that is no tensor of the call's")
                toks.append(role)
        elif action == "free_requested":
            toks.append(f"-{index[addr]}")
        elif action == "oom":
            toks.append(f"!{size}")
    return " ".join(toks)


def config_key(cfg):
    """A configuration's fields in the table's order (transposed ones with
    their output_padding)."""
    out = {k: cfg[k] for k in KEY_FIELDS}
    if cfg.get("transposed"):
        out["transposed"] = True
        out["output_padding"] = cfg["output_padding"]
    return out


def line(cfg, fwd, bwd):
    """One compact line."""
    rec = config_key(cfg)
    rec["fwd"] = fwd
    rec["bwd"] = bwd
    return json.dumps(rec, separators=(",", ":"))


def from_old(rec):
    """A grid or table record of probe_conv.py as (configuration, fwd,
    bwd), roles by size."""
    if "n" in rec:
        g = rec["groups"]
        cfg = dict(x=[rec["n"], rec["c"], rec["h"], rec["w"]], w=[rec["k"], rec["c"] // g, rec["r"], rec["r"]],
                   stride=[rec["stride"]] * 2, padding=[rec["pad"]] * 2, dilation=[rec["dil"]] * 2, groups=g, bias=False,
                   dtype=rec["dtype"], format=rec["format"], deterministic=False)
        runs = [("xw", "dense", rec["bwd"]["events"])] if "bwd" in rec else []
    else:
        cfg = rec
        runs = [(r["mask"], r["grad"], r["events"]) for r in rec.get("bwd_runs", [])]
    elt = rec["w_bytes"] // prod(cfg["w"])
    out_ch = cfg["w"][1] * cfg["groups"] if cfg.get("transposed") else cfg["w"][0]
    sizes = {"x": rec["x_bytes"], "w": rec["w_bytes"], "b": out_ch * elt, "y": rec["y_bytes"]}

    def by_size(roles):
        def role_of(addr, size):
            match = [r for r in roles if sizes[r] == size]
            return match[0] if len(match) == 1 else None
        return role_of
    fwd = encode_phase(rec["fwd"]["events"], by_size("y"))
    bwd = {}
    for mask, grad, events in runs:
        bwd[mask if grad == "dense" else f"{mask}/{grad}"] = encode_phase(events, by_size(mask))
    return cfg, fwd, bwd


def prod(v):
    p = 1
    for n in v:
        p *= n
    return p


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    seen = {}
    for path in sys.argv[1:]:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for text in f:
                rec = json.loads(text)
                if "fwd" not in rec or rec.get("error"):
                    continue
                cfg, fwd, bwd = from_old(rec)
                key = json.dumps(config_key(cfg))
                if key in seen:
                    seen[key][1].update(bwd)
                else:
                    seen[key] = (cfg, bwd, fwd)
    for key, (cfg, bwd, fwd) in seen.items():
        print(line(cfg, fwd, bwd))


if __name__ == "__main__":
    main()
