#!/usr/bin/env python3
"""Record what cuDNN asks of PyTorch's caching allocator for recurrent
layers, over a grid of configurations (issue 35; engine/rnn_cudnn.go
estimates these until they are recorded).

    python3 scripts/probe_rnn.py OUT.jsonl.gz
    python3 scripts/probe_rnn.py --scripts OUT.jsonl.gz
    python3 scripts/probe_rnn.py --dry-run

--scripts records, in the same form, the configurations that the rule
scripts (testdata/pyrules*/rnn_*.py, train_lstm_packed.py) and the
zoo's lstm_lm.py and gru_seq2seq.py run, off the grid: a check of the
rule fitted to the grid, and their figures exact whatever it says.

For each configuration (mode LSTM, GRU, RNN_TANH or RNN_RELU; input and
hidden size, proj_size, layers, bidirectional; dtype; steps and batch, or
a packed batch's batch_sizes; dropout) one JSON line with, per phase, the
allocator's events (torch.cuda.memory._record_memory_history, reset at
each phase: [action, size, addr_id], addr_id numbering the phase's
addresses in order of appearance, so a free pairs with its alloc), the
allocated bytes before and after and the peak over the start:

  flatten   torch._cudnn_rnn_flatten_weight of the weights made on the
            GPU: "weight_space" (the buffer's elements) and "offsets"
            (each weight's storage_offset in it)
  train     torch._cudnn_rnn(..., train=True): "reserve" (the reserve
            space's bytes, result 3); the workspace is the allocation
            the call frees itself
  infer     torch._cudnn_rnn(..., train=False): its workspace likewise
  backward  torch._cudnn_rnn_backward of the train phase's outputs,
            every gradient asked for (c_0's only with a cell state:
            LSTM): its two workspaces, the weight buffer
  module    the same layer as an nn module (nn.LSTM, nn.GRU, nn.RNN):
            .cuda(), a training forward and backward (a few
            configurations only; testdata/pyrules/rnn_*.py record
            the layers at every statement)

and "dropout_state": torch._cudnn_init_dropout_state's bytes, once. A
phase that raises records its error instead, and the probe goes on.
--dry-run lists the grid without torch (to check the script here).
"""
import gzip
import json
import sys

MODES = {"RNN_RELU": 0, "RNN_TANH": 1, "LSTM": 2, "GRU": 3}
GATES = {"RNN_RELU": 1, "RNN_TANH": 1, "LSTM": 4, "GRU": 3}
BASE = dict(mode="LSTM", input=256, hidden=256, proj=0, layers=1, bidir=False, dtype="float32",
            seq=32, batch=16, batch_sizes=None, dropout=0.0)
VARIED = {
    "hidden": [8, 32, 64, 96, 128, 129, 160, 192, 200, 256, 384, 512, 640, 768, 1024, 1536, 2048],
    "input": [1, 16, 64, 100, 128, 255, 512, 1000, 1024],
    "seq": [1, 2, 5, 16, 35, 64, 100, 128, 256, 512],
    "batch": [1, 2, 3, 8, 15, 20, 32, 64, 100, 128, 256],
    "layers": [2, 3, 4],
    "bidir": [True],
}
PACKED = [[4, 4, 3, 1], [16] * 10 + [12] * 10 + [5] * 12, [20, 17, 17, 9, 9, 9, 2], [8] * 32]


def grid():
    """Every configuration: each mode and dtype around BASE, one factor
    varied at a time; dropout between layers; proj_size; packed batches;
    a few combinations (several layers and both directions at once, the
    persistent algorithm's half-precision shapes)."""
    out = []
    for mode in MODES:
        for dtype in ("float32", "float16"):
            base = dict(BASE, mode=mode, dtype=dtype)
            out.append(base)
            for key, values in VARIED.items():
                out += [dict(base, **{key: v}) for v in values]
            out.append(dict(base, layers=3, bidir=True, dropout=0.3))
            out.append(dict(base, layers=2, dropout=0.2))
            out += [dict(base, batch_sizes=b, seq=len(b), batch=b[0]) for b in PACKED]
            out += [dict(base, hidden=h, input=i, batch=b) for h, i, b in [(512, 512, 64), (1024, 256, 128), (128, 128, 8), (384, 128, 96)]]
        out.append(dict(BASE, mode=mode, dtype="float64"))
        out.append(dict(BASE, mode=mode, dtype="float64", hidden=128))
    for proj in (32, 64, 128, 255):
        out.append(dict(BASE, proj=proj))
        out.append(dict(BASE, proj=proj, layers=2, bidir=True))
    return out


def batch_sizes(lengths):
    """pack_padded_sequence's batch_sizes of sequences of lengths: at each
    step, how many are longer."""
    return [sum(n > t for n in lengths) for t in range(max(lengths))]


def scripts():
    """The cuDNN calls of the rule scripts and the zoo's recurrent models,
    each with the sizes it runs at (what gpumemrepl's estimates named)."""
    out = []
    for c in [dict(mode="LSTM", input=96, hidden=160, layers=2, seq=23, batch=7),
              dict(mode="GRU", input=48, hidden=112, layers=3, bidir=True, dropout=0.25, seq=31, batch=5),
              dict(mode="RNN_RELU", input=40, hidden=72, seq=17, batch=3),
              dict(mode="LSTM", input=64, hidden=144, proj=48, seq=19, batch=6),
              dict(mode="GRU", input=56, hidden=88, seq=13, batch=1),
              dict(mode="GRU", input=56, hidden=88, seq=9, batch=2),
              dict(mode="GRU", input=56, hidden=88, seq=11, batch=4, dtype="float16"),
              dict(mode="LSTM", input=80, hidden=128, seq=21, batch=5, dtype="float16"),
              dict(mode="LSTM", input=80, hidden=128, seq=21, batch=5),
              dict(mode="LSTM", input=48, hidden=96, batch_sizes=batch_sizes([25, 21, 21, 14, 9, 3])),
              dict(mode="GRU", input=48, hidden=64, layers=2, batch_sizes=batch_sizes([25, 21, 21, 14, 9, 3])),
              dict(mode="LSTM", input=48, hidden=96, batch_sizes=batch_sizes([17, 12, 12, 5])),
              dict(mode="LSTM", input=128, hidden=192, layers=2, bidir=True, dropout=0.3,
                   batch_sizes=batch_sizes([37, 12, 29, 40, 8, 33, 21, 40, 17, 26, 5, 31, 40, 19, 23, 11, 36, 28, 14, 40, 9, 25, 32, 16])),
              dict(mode="LSTM", input=256, hidden=256, layers=2, dropout=0.2, seq=35, batch=20),
              dict(mode="GRU", input=128, hidden=128, seq=10, batch=32),
              dict(mode="GRU", input=128, hidden=128, seq=10, batch=1),
              dict(mode="GRU", input=256, hidden=128, seq=1, batch=32),
              dict(mode="GRU", input=256, hidden=128, seq=1, batch=1)]:
        c = dict(BASE, **c)
        if c["batch_sizes"]:
            c["seq"], c["batch"] = len(c["batch_sizes"]), c["batch_sizes"][0]
        out.append(c)
    return out


MODULE_CONFIGS = [dict(BASE), dict(BASE, mode="GRU", layers=2, bidir=True), dict(BASE, mode="RNN_TANH", hidden=512),
                  dict(BASE, layers=2, dropout=0.2, dtype="float16")]


def main():
    args = sys.argv[1:]
    if args == ["--dry-run"]:
        configs = grid()
        print(f"{len(configs)} configurations, {len(MODULE_CONFIGS)} as modules, {len(scripts())} of the scripts")
        for c in configs[:3] + configs[-2:] + scripts()[-6:-4]:
            print(json.dumps(c))
        return
    configs, modules = grid(), MODULE_CONFIGS
    if args[:1] == ["--scripts"]:
        configs, modules, args = scripts(), [], args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    import torch
    probe = Probe(torch)
    with gzip.open(args[0], "wt") as w:
        w.write(json.dumps({"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                            "gpu": torch.cuda.get_device_name(0), "dropout_state": probe.dropout_state()}) + "\n")
        for c in configs:
            w.write(json.dumps(dict(c, **probe.config(c))) + "\n")
            w.flush()
        for c in modules:
            w.write(json.dumps(dict(c, module=probe.module(c))) + "\n")


class Probe:
    def __init__(self, torch):
        self.torch = torch
        torch.cuda.init()

    def phase(self, fn):
        """fn() run with the allocator's history reset: its events, the
        allocated bytes before and after, the peak over the start, and
        fn's result (or the error)."""
        torch = self.torch
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 20)
        before = torch.cuda.memory_allocated()
        rec = {"allocated_before": before}
        result = None
        try:
            result = fn()
            torch.cuda.synchronize()
        except Exception as e:  # recorded, and the probe goes on
            rec["error"] = f"{type(e).__name__}: {e}"
        trace = torch.cuda.memory._snapshot()["device_traces"]
        torch.cuda.memory._record_memory_history(enabled=None)
        ids = {}
        rec["events"] = [[e["action"], e["size"], ids.setdefault(e["addr"], len(ids))]
                         for e in (trace[0] if trace else []) if e["action"] != "snapshot"]
        rec["allocated_after"] = torch.cuda.memory_allocated()
        rec["peak_over_start"] = torch.cuda.max_memory_allocated() - before
        return rec, result

    def weights(self, c, dtype):
        """The layer's weights as nn.LSTM orders them, each its own
        tensor on the GPU: per layer and direction w_ih, w_hh, b_ih,
        b_hh and (proj) w_hr."""
        torch = self.torch
        g = GATES[c["mode"]] * c["hidden"]
        out_size = c["proj"] or c["hidden"]
        dirs = 2 if c["bidir"] else 1
        ws = []
        for layer in range(c["layers"]):
            for _ in range(dirs):
                inp = c["input"] if layer == 0 else out_size * dirs
                shapes = [(g, inp), (g, out_size), (g,), (g,)] + ([(c["proj"], c["hidden"])] if c["proj"] else [])
                ws += [torch.randn(s, device="cuda", dtype=dtype) * 0.05 for s in shapes]
        return ws

    def config(self, c):
        torch = self.torch
        dtype = getattr(torch, c["dtype"])
        mode, dirs = MODES[c["mode"]], 2 if c["bidir"] else 1
        stride0 = 5 if c["proj"] else 4
        out_size = c["proj"] or c["hidden"]
        ws = self.weights(c, dtype)
        rec = {}
        flat_rec, buf = self.phase(lambda: torch._cudnn_rnn_flatten_weight(
            ws, stride0, c["input"], mode, c["hidden"], c["proj"], c["layers"], False, c["bidir"]))
        if buf is not None:
            flat_rec["weight_space"] = buf.numel()
            flat_rec["offsets"] = [w.storage_offset() for w in ws]
        rec["flatten"] = flat_rec
        packed = c["batch_sizes"] is not None
        rows = sum(c["batch_sizes"]) if packed else None
        x = torch.randn((rows, c["input"]) if packed else (c["seq"], c["batch"], c["input"]), device="cuda", dtype=dtype)
        hx = torch.zeros(c["layers"] * dirs, c["batch"], out_size, device="cuda", dtype=dtype)
        cx = torch.zeros(c["layers"] * dirs, c["batch"], c["hidden"], device="cuda", dtype=dtype) if c["mode"] == "LSTM" else None
        sizes = c["batch_sizes"] or []
        state = None
        if c["dropout"] > 0:
            state = torch._cudnn_init_dropout_state(c["dropout"], True, 0, dtype=torch.uint8, device="cuda")

        def forward(train):
            return torch._cudnn_rnn(x, ws, stride0, buf, hx, cx, mode, c["hidden"], c["proj"], c["layers"], False,
                                    c["dropout"], train, c["bidir"], sizes, state)
        rec["train"], outs = self.phase(lambda: forward(True))
        if outs is not None:
            rec["train"]["reserve"] = outs[3].numel()
        rec["infer"], _ = self.phase(lambda: forward(False))
        if outs is not None:
            out, hy, cy, reserve, wbuf = outs
            go, ghy = torch.ones_like(out), torch.ones_like(hy)
            gcy = torch.ones_like(cy) if cx is not None else None
            # not a torch attribute in 2.11 (the first recording's
            # AttributeError): the aten op itself
            backward = torch.ops.aten._cudnn_rnn_backward
            # output_mask (input, hx, cx, weights): a layer without a
            # cell state must not ask for c_0's gradient (the first
            # re-recording's GRU and RNN backwards failed on PyTorch's
            # assert "illegally required grad of cx for non-LSTM RNN")
            mask = [True, True, cx is not None, True]
            rec["backward"], _ = self.phase(lambda: backward(
                x, ws, stride0, wbuf, hx, cx, out, go, ghy, gcy, mode, c["hidden"], c["proj"], c["layers"], False,
                c["dropout"], True, c["bidir"], sizes, state, reserve, mask))
        return rec

    def module(self, c):
        torch = self.torch
        cls = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU}.get(c["mode"], torch.nn.RNN)
        kw = dict(num_layers=c["layers"], bidirectional=c["bidir"], dropout=c["dropout"])
        if c["mode"].startswith("RNN"):
            kw["nonlinearity"] = c["mode"][4:].lower()
        layer = cls(c["input"], c["hidden"], **kw).to(getattr(torch, c["dtype"]))
        rec = {}
        rec["cuda"], _ = self.phase(lambda: layer.cuda())
        x = torch.randn(c["seq"], c["batch"], c["input"], device="cuda", dtype=getattr(torch, c["dtype"]))
        out = []
        rec["forward"], _ = self.phase(lambda: out.append(layer(x)[0]))
        if out:
            rec["backward"], _ = self.phase(lambda: out[0].float().sum().backward())
        return rec

    def dropout_state(self):
        torch = self.torch
        return torch._cudnn_init_dropout_state(0.5, True, 0, dtype=torch.uint8, device="cuda").numel()


if __name__ == "__main__":
    main()
