package command

import (
	"fmt"
	"strconv"
	"strings"
)

// constructors are the words that make a new tensor.
var constructors = map[string]bool{"zeros": true, "ones": true, "empty": true, "full": true, "rand": true, "randn": true}

// dtypes are the dtype words a constructor takes.
var dtypes = map[string]bool{"float32": true, "float16": true, "bfloat16": true, "float64": true, "int64": true, "int32": true, "int16": true, "int8": true, "uint8": true, "bool": true}

// tool is a call of the tool module's function name.
func tool(name string, args ...string) string {
	return fmt.Sprintf("%s.%s(%s)", ToolModule, name, strings.Join(args, ", "))
}

// create reads SHAPE [VALUE] [DTYPE] [DEVICE] of a constructor.
func create(op string) func(l *line) (string, error) {
	return func(l *line) (string, error) {
		if !l.more() {
			return "", l.errAt(l.end, "%s needs a shape like 256x1024", op)
		}
		sw := l.next()
		var dims []string
		for _, f := range strings.Split(sw.text, "x") {
			if n, err := strconv.ParseInt(f, 10, 64); err != nil || n < 0 {
				return "", l.errAt(sw.col, "expected a shape like 256x1024, found %q", excerpt(sw.text))
			}
			dims = append(dims, f)
		}
		args := []string{"(" + strings.Join(dims, ", ") + ",)"}
		if op == "full" {
			if !l.more() {
				return "", l.errAt(l.end, "full needs a fill value")
			}
			v := l.next()
			if _, err := strconv.ParseFloat(v.text, 64); err != nil {
				return "", l.errAt(v.col, "full needs a fill value, found %q", excerpt(v.text))
			}
			args = append(args, v.text)
		}
		for l.more() {
			w := l.next()
			if dt := strings.TrimPrefix(w.text, "torch."); dtypes[dt] {
				args = append(args, "dtype="+torchMod+"."+dt)
				continue
			}
			d, err := device(w)
			if err != nil {
				return "", l.errAt(w.col, "expected a device (cpu, cuda, cuda:N) or a dtype, found %q", excerpt(w.text))
			}
			args = append(args, "device="+d)
		}
		return torchMod + "." + op + "(" + strings.Join(args, ", ") + ")", nil
	}
}

// torchMod is the torch module, as the tool module holds it (a script
// need not import torch to use the command form).
const torchMod = ToolModule + ".torch"

// noArgs is a verb that takes nothing: py is its Python.
func noArgs(name, py string) func(l *line) (string, error) {
	return func(l *line) (string, error) {
		if l.more() {
			return "", l.errAt(l.words[l.i].col, "%s takes no arguments", name)
		}
		return py, nil
	}
}

// onGPU is a verb that takes at most a GPU: py is its Python, with %s
// where the GPU goes (nothing for the current one).
func onGPU(name, py string) func(l *line) (string, error) {
	return func(l *line) (string, error) {
		arg := ""
		if l.more() {
			g, err := gpu(l.next())
			if err != nil {
				return "", err
			}
			if g != "None" {
				arg = g
			}
		}
		if l.more() {
			return "", l.errAt(l.words[l.i].col, "%s takes at most a device", name)
		}
		return fmt.Sprintf(py, arg), nil
	}
}

// fileArg reads the file a verb writes or reads: the rest of the line up
// to the options that follow it.
func fileArg(l *line, usage string) (string, error) {
	if !l.more() {
		return "", l.errAt(l.end, "usage: %s", usage)
	}
	return quote(unquote(l.next().text)), nil
}

func readDel(l *line) (string, error) {
	var names []string
	for l.more() {
		w := l.next()
		n := strings.TrimSuffix(w.text, ",")
		if !isIdent(n) {
			return "", l.errAt(w.col, "expected a name to delete, found %q", excerpt(w.text))
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return "", l.errAt(l.end, "del needs a name")
	}
	return "del " + strings.Join(names, ", "), nil
}

func readPrint(l *line) (string, error) {
	w, ok := l.rest()
	if !ok {
		return "print()", nil
	}
	return "print(" + w.text + ")", nil
}

func readFraction(l *line) (string, error) {
	if !l.more() {
		return "", l.errAt(l.end, "set_per_process_memory_fraction takes a fraction and optionally a device")
	}
	f := l.next()
	if v, err := strconv.ParseFloat(f.text, 64); err != nil || !(v >= 0 && v <= 1) {
		return "", l.errAt(f.col, "Invalid fraction value: %s. Allowed range: 0~1", excerpt(f.text))
	}
	args, err := lastGPU(l, []string{f.text}, "set_per_process_memory_fraction takes a fraction and optionally a device")
	if err != nil {
		return "", err
	}
	return torchMod + ".cuda.set_per_process_memory_fraction(" + strings.Join(args, ", ") + ")", nil
}

// lastGPU reads the optional GPU that ends a line into args; anything
// after it is the usage error.
func lastGPU(l *line, args []string, usage string) ([]string, error) {
	if l.more() {
		g, err := gpu(l.next())
		if err != nil {
			return nil, err
		}
		args = append(args, g)
	}
	if l.more() {
		return nil, l.errAt(l.words[l.i].col, "%s", usage)
	}
	return args, nil
}

func readSetDevice(l *line) (string, error) {
	if !l.more() {
		return "", l.errAt(l.end, "set_device takes a device")
	}
	g, err := gpu(l.next())
	if err != nil || g == "None" || l.more() {
		if err == nil {
			err = l.errAt(l.words[l.i-1].col, "set_device takes one device index")
		}
		return "", err
	}
	return torchMod + ".cuda.set_device(" + g + ")", nil
}

func readAllocConf(l *line) (string, error) {
	w, ok := l.rest()
	if !ok {
		return "", l.errAt(l.end, "usage: alloc_conf STR")
	}
	return tool("alloc_conf", quote(unquote(w.text))), nil
}

func readPlot(l *line) (string, error) {
	f, err := fileArg(l, "plot FILE.html")
	if err == nil && l.more() {
		err = l.errAt(l.words[l.i].col, "usage: plot FILE.html")
	}
	return tool("plot", f), err
}

func readSnapshot(l *line) (string, error) {
	const usage = "snapshot save FILE.pickle [DEVICE]"
	if !l.more() || l.next().text != "save" {
		return "", l.errAt(l.words[0].col, "usage: %s", usage)
	}
	f, err := fileArg(l, usage)
	if err != nil {
		return "", err
	}
	args, err := lastGPU(l, []string{f}, "usage: "+usage)
	if err != nil {
		return "", err
	}
	return tool("snapshot_save", args...), nil
}

func readLoad(l *line) (string, error) {
	const usage = "load FILE [until N] [as NAME]"
	f, err := fileArg(l, usage)
	if err != nil {
		return "", err
	}
	until, name := "-1", "trace"
	for l.more() {
		k := l.next()
		if !l.more() {
			return "", l.errAt(k.col, "usage: %s", usage)
		}
		v := l.next()
		switch k.text {
		case "until":
			if n, err := strconv.Atoi(v.text); err != nil || n < 0 {
				return "", l.errAt(v.col, "load: until needs an op count, found %q", excerpt(v.text))
			}
			until = v.text
		case "as":
			if !isIdent(v.text) {
				return "", l.errAt(v.col, "load: %q is not a name", excerpt(v.text))
			}
			name = v.text
		default:
			return "", l.errAt(k.col, "usage: %s", usage)
		}
	}
	return tool("load", f, until, quote(name)), nil
}

func readExplain(l *line) (string, error) {
	dev, asJSON := "None", "False"
	for l.more() {
		w := l.next()
		if w.text == "json" {
			asJSON = "True"
			continue
		}
		g, err := gpu(w)
		if err != nil {
			return "", l.errAt(w.col, "usage: explain [DEVICE] [json]")
		}
		dev = g
	}
	return tool("explain", dev, asJSON), nil
}

func readPeak(l *line) (string, error) {
	dev, now, asJSON := "None", "False", "False"
	for l.more() {
		w := l.next()
		switch w.text {
		case "json":
			asJSON = "True"
		case "now":
			now = "True"
		default:
			g, err := gpu(w)
			if err != nil {
				return "", l.errAt(w.col, "usage: peak [now] [DEVICE] [json]")
			}
			dev = g
		}
	}
	return tool("peak", dev, now, asJSON), nil
}

func readHelp(l *line) (string, error) {
	w, ok := l.rest()
	if !ok {
		return tool("help"), nil
	}
	return tool("help", quote(w.text)), nil
}

// Registry is the command form's vocabulary and help's topics, in help's
// order.
var Registry = []Spec{
	{Name: "zeros", Usage: "NAME = zeros SHAPE [DTYPE] [DEVICE]", Summary: "a new tensor of zeros; SHAPE like 256x1024x1024, DEVICE cpu, cuda or cuda:N (default cpu), DTYPE float32 (default), float16, bfloat16, float64, int64, int32, int16, int8, uint8, bool. PyTorch form: torch.zeros([256,1024,1024], device='cuda', dtype=torch.float16)", read: create("zeros")},
	{Name: "ones", Usage: "NAME = ones SHAPE [DTYPE] [DEVICE]", Summary: "like zeros; values are not kept: every constructor but empty writes zeros, which is what moves memory and time", read: create("ones")},
	{Name: "empty", Usage: "NAME = empty SHAPE [DTYPE] [DEVICE]", Summary: "like zeros", read: create("empty")},
	{Name: "full", Usage: "NAME = full SHAPE VALUE [DTYPE] [DEVICE]", Summary: "like zeros; torch.full((2,3), 7.0, device='cuda')", read: create("full")},
	{Name: "rand", Usage: "NAME = rand SHAPE [DTYPE] [DEVICE]", Summary: "like zeros (values are not computed)", read: create("rand")},
	{Name: "randn", Usage: "NAME = randn SHAPE [DTYPE] [DEVICE]", Summary: "like zeros (values are not computed)", read: create("randn")},
	{Name: "tensor", Usage: "NAME = torch.tensor([1, 2, 3], device='cuda')", Summary: "a small tensor from a list (int64 for integers, else float32)", Topic: true},
	{Name: "to", Usage: "NAME = X.to DEVICE | X.to('cuda:1') | X.to(torch.device('cuda', 1)) | X.cuda() | X.cpu()", Summary: "a copy on DEVICE (X itself when it is there already); the new copy is made before the old name is dropped. Between two GPUs the bytes go device to device where the hardware has peer access (turned on at the first copy, as PyTorch does; the step says which), else the driver stages them through host memory", Topic: true},
	{Name: "clone", Usage: "NAME = X.clone()", Summary: "a copy on the same device", Topic: true},
	{Name: "del", Usage: "del NAME [, NAME ...]", Summary: "drop names; memory goes back to the cache when the last name of a storage goes (all names must exist)", read: readDel},
	{Name: "empty_cache", Usage: "empty_cache | torch.cuda.empty_cache()", Summary: "return every fully free cached segment to the driver, on every device", read: noArgs("empty_cache", torchMod+".cuda.empty_cache()"), bare: true},
	{Name: "memory_allocated", Usage: "torch.cuda.memory_allocated([DEVICE]) | memory_reserved | max_memory_allocated | max_memory_reserved", Summary: "print one figure of the device, in bytes (0 before it is used)", read: onGPU("memory_allocated", "print("+torchMod+".cuda.memory_allocated(%s))"), bare: true},
	{Name: "set_device", Usage: "set_device N | torch.cuda.set_device(N)", Summary: "make cuda:N the current device: what cuda, .cuda() and the memory commands without a device mean from now on (its CUDA context is made, as cudaSetDevice does); torch.cuda.current_device() prints it", read: readSetDevice},
	{Name: "memory_summary", Usage: "memory_summary [DEVICE]", Summary: "torch.cuda.memory_summary(), byte for byte", read: onGPU("memory_summary", "print("+torchMod+".cuda.memory_summary(%s), end='')"), bare: true},
	{Name: "memory_stats", Usage: "memory_stats [DEVICE]", Summary: "torch.cuda.memory_stats(): every key, sorted", read: onGPU("memory_stats", ToolModule+".memory_stats(%s)"), bare: true},
	{Name: "reset_peak_memory_stats", Usage: "reset_peak_memory_stats [DEVICE]", Summary: "peaks start again from the current values", read: onGPU("reset_peak_memory_stats", torchMod+".cuda.reset_peak_memory_stats(%s)"), bare: true},
	{Name: "set_per_process_memory_fraction", Usage: "set_per_process_memory_fraction F [DEVICE]", Summary: "limit what the allocator may reserve to F × total memory", read: readFraction},
	{Name: "alloc_conf", Usage: "alloc_conf STR", Summary: "PYTORCH_CUDA_ALLOC_CONF for this session, before the first CUDA command (e.g. max_split_size_mb:128,garbage_collection_threshold:0.8)", read: readAllocConf},
	{Name: "vars", Usage: "vars", Summary: "live tensors: shape, dtype, device, bytes, and who shares storage", read: noArgs("vars", ToolModule+".vars()"), bare: true},
	{Name: "map", Usage: "map [DEVICE]", Summary: "the device's segments drawn as bars: # allocated, . cached (free); fragmentation at a glance. With expandable segments, also how much of each reserved range is mapped", read: onGPU("map", ToolModule+".map(%s)"), bare: true},
	{Name: "Linear", Usage: "M = torch.nn.Linear(IN, OUT, bias=True) | Linear(IN, OUT)", Summary: "a module (also ReLU(), GELU(), Sequential(M, ...), with or without torch.nn.); its weight [OUT, IN] and bias are float32 parameters made on the host, moved by M.cuda() / M.to(DEV), in place, in parameters() order", Topic: true},
	{Name: "call", Usage: "Y = M(X)", Summary: "run a module; Linear is addmm (x @ W.t() + b, without a bias mm), ReLU and GELU make one output each. With grad on and a parameter or input that requires grad, what PyTorch saves for backward stays alive with Y", Topic: true},
	{Name: "ops", Usage: "X @ Y | X + Y | X * Y | X.sum() | X.mean() | X.square() | X.relu() | F.gelu(X) | torch.matmul(X, Y)", Summary: "tensor operations; each allocates its output (values are not computed). The first matrix product of a device allocates the cuBLAS workspace (32 MiB on compute capability 9+, 8,519,680 bytes below), and Linear with a bias the 1 MiB cuBLASLt workspace; both stay", Topic: true},
	{Name: "backward", Usage: "X.backward()", Summary: "backpropagate from the scalar X; gradients are allocated in PyTorch's order into each leaf's .grad (the autograd thread gets its own cuBLAS workspace), and each node's saved tensors are freed once it has run", Topic: true},
	{Name: "LSTM", Usage: "M = torch.nn.LSTM(IN, HIDDEN, num_layers=1, batch_first=False, dropout=0.0, bidirectional=False, proj_size=0) | nn.GRU(...) | nn.RNN(..., nonlinearity='tanh') | nn.LSTMCell(IN, HIDDEN) | GRUCell | RNNCell; OUT, HIDDEN_N = M(X, h_0)", Summary: "recurrent layers on cuDNN: at M.cuda() the weights are copied into one buffer of cuDNN's weight space and each becomes a view of it (again after every .to()); a forward makes the output, h_n (and c_n), cuDNN's workspace (freed) and, in train mode, the reserve space, which the graph keeps until backward (made and freed under no_grad); dropout between layers makes the device's dropout state once. Backward makes zeros for outputs that got no gradient, the input's and h_0's gradients, a buffer of the weight space whose views are the weights' .grad (with biases), and two workspaces. batch_first copies the input; packed sequences (torch.nn.utils.rnn.pack_padded_sequence, pad_packed_sequence, pack_sequence, pad_sequence) and torch.autocast (float16, the weights copied into a float16 buffer) work. cuDNN's sizes (weight space, workspaces, reserve space, dropout state) are recorded at 530 configurations (scripts/probe_rnn.py, testdata/rnn); at any other the workspaces and reserve space are estimated and say so", Topic: true},
	{Name: "Function", Usage: "class F(torch.autograd.Function): forward(ctx, ...) and backward(ctx, *grads) as staticmethods; Y = F.apply(X, ...)", Summary: "a custom autograd Function: forward runs under no_grad; with grad on and a tensor input that requires grad, one node (FBackward, Y.grad_fn, which is ctx) keeps the tensors ctx.save_for_backward named until its backward ran (ctx.saved_tensors unpacks them; a second backward fails only when it reads them), and every attribute set on ctx (a tensor kept as ctx.x lives as long as the node, after backward too). An input returned is a new view of it; ctx.mark_dirty (in place), mark_non_differentiable, set_materialize_grads(False) (else zeros are made in backward for outputs that got no gradient), setup_context(ctx, inputs, output), once_differentiable; PyTorch's errors for a wrong number or shape of gradients. Not yet recorded on the GPU: a call that makes a node is an estimate", Topic: true},
	{Name: "save_on_cpu", Usage: "with torch.autograd.graph.save_on_cpu(pin_memory=True): ... | with torch.autograd.graph.saved_tensors_hooks(PACK, UNPACK): ...", Summary: "saved-tensor hooks: every tensor an op (or a custom Function) saves for backward inside the block is given to PACK, and the node keeps what it returns instead; UNPACK makes it again when the node's backward runs, held until that backward returns. save_on_cpu's pack copies each saved tensor to the host (pinned with pin_memory=True), so the GPU keeps only what other names hold, and its unpack copies it back in backward. The innermost hooks apply; disable_saved_tensors_hooks(MSG) makes installing them an error. Not yet recorded on the GPU: figures from the first packed tensor on are estimated", Topic: true},
	{Name: "no_grad", Usage: "with torch.no_grad(): [COMMAND]", Summary: "record no graph; the indented lines that follow (at the prompt: until a blank line), or the command after the colon. torch.set_grad_enabled(False) for the rest of the session", Topic: true},
	{Name: "zero_grad", Usage: "M.zero_grad(set_to_none=True) | OPT.zero_grad()", Summary: "free every parameter's .grad; set_to_none=False keeps them, zeroed", Topic: true},
	{Name: "optim", Usage: "OPT = torch.optim.AdamW(M.parameters(), lr=1e-3) | SGD(..., momentum=0.9) | Adam(...) | RMSprop(...); OPT.step()", Summary: "an optimizer; its state (exp_avg and exp_avg_sq per parameter for Adam(W), max_exp_avg_sq with amsgrad, a momentum buffer for SGD, square_avg for RMSprop with momentum_buffer and grad_avg by its options) is allocated at each parameter's first step, then each step the temporaries of PyTorch's implementation: foreach by default (lists per device and dtype), foreach=False (per parameter) or fused=True (none; not RMSprop, foreach and for-loop); param groups, weight_decay, nesterov, maximize, OPT.state, OPT.param_groups, OPT.state_dict() and torch.optim.lr_scheduler (numbers only) too; torch.nn.utils.clip_grad_norm_ (each gradient's norm, foreach or not, their stack and total, the clip coefficient; gradients of one dtype) and clip_grad_value_ (in place, nothing)", Topic: true},
	{Name: "requires_grad", Usage: "torch.randn(..., requires_grad=True) | X.requires_grad_() | X.detach() | X.item()", Summary: "leaves that require grad; a detached copy sharing storage; item() gives a number, which keeps no graph", Topic: true},
	{Name: "print", Usage: "print X | print(X)", Summary: "X as PyTorch prints it, where its values are known: zeros, ones, full and torch.tensor values, through copies and views; others print as not computed", read: readPrint},
	{Name: "snapshot", Usage: "snapshot save FILE.pickle [DEVICE] | torch.cuda.memory._dump_snapshot('FILE.pickle')", Summary: "write the device's memory snapshot and its whole history (every allocation, free and segment event of this session) in PyTorch's format, for pytorch.org/memory_viz or gpumemrepl replay", read: readSnapshot},
	{Name: "load", Usage: "load FILE [until N] [as NAME]", Summary: "replay a trace or a PyTorch snapshot (.pickle) into the session (its first N ops; a snapshot's history of cuda:N on cuda:N, or on cuda:0 when it is the file's only one and the session has no cuda:N); its blocks live at the end stay allocated, held by NAME (default trace), so you can go on from a real run's state; del NAME frees them; peak and explain put them under the file's own frames (or from snapshot FILE), not the prompt line", read: readLoad},
	{Name: "plot", Usage: "plot FILE.html", Summary: "write a self-contained HTML page of cuda:0 (opens from disk, nothing fetched): the active-memory timeline with every allocation a band, stacked and coloured by category (hover for its name, size, line and stack; click to pin; drag to zoom), reserved over it, the segments over time, the step list (click a step for the state after it), the segments now and the peak explained. gpumemrepl run --plot FILE.html and replay --plot write it too", read: readPlot},
	{Name: "explain", Usage: "explain [DEVICE] [json]", Summary: "after an out-of-memory error (or at the peak, when there was none): why, and what avoids it. The device's history is replayed under the session's settings; the cause is told (the live tensors exceed what the device can give, with the largest holders by name and line; fragmentation, with the free blocks and the segments live blocks pin; memory cached on another stream; the per-process fraction); then the whole history is replayed under each candidate, smallest change first (empty_cache() before the failing statement, expandable_segments:True, a max_split_size_mb sweep, garbage_collection_threshold, two of them, the next larger GPU) with each one's peak reserved and first OOM, and the first that avoids the error is the fix, or it says that no setting does and by how much the live tensors exceed the device. json: the diagnosis as one JSON object", read: readExplain, bare: true},
	{Name: "peak", Usage: "peak [now] [DEVICE] [json]", Summary: "what the device held at the session's peak of allocated memory (now: at this moment), explained: by category (parameters, gradients, optimizer state, activations saved for backward with the node that saved them, inputs, other named tensors, temporaries, kernel workspaces, blocks a load replayed, and the cache with its fragmentation), by source line and by name (model.fc1.weight, AdamW state exp_avg of model.fc1.weight, h in forward), and the largest holders with what would free each; the categories add up to the allocated bytes exactly. json: one JSON object. gpumemrepl run --peak FILE prints it at a script's end", read: readPeak, bare: true},
	{Name: "gpus", Usage: "gpus", Summary: "the session's GPUs: name, total memory and, on a real GPU, what NVML says is used and by which processes (n/a without NVML)", read: noArgs("gpus", ToolModule+".gpus()"), bare: true},
	{Name: "view", Usage: "NAME = X[i] | X.view(2, -1) | X.reshape(...)", Summary: "a view: shares X's storage and keeps it alive, no new memory", Topic: true},
	{Name: "streams", Usage: "S = torch.cuda.Stream(); with torch.cuda.stream(S): ... | X.record_stream(S) | torch.cuda.synchronize()", Summary: "CUDA streams and events: what is allocated while a stream is current (torch.cuda.stream(S), set_stream) is its block, which serves that stream only until empty_cache (each stream its own cuBLAS and cuBLASLt workspaces); Stream(priority=0 to -3) hands out PyTorch's pool of 32 streams per priority round robin; current_stream, default_stream, wait_stream, wait_event, record_event, Event(enable_timing=...).record/wait/synchronize, non_blocking copies on the current stream. X.record_stream(S): X's block, once freed, is active but not allocated until S's work queued before the free is done, and the next malloc after that reuses it. The tool runs no kernels, so work counts as done only once the program waits for it (torch.cuda.synchronize(), S.synchronize(), an event's synchronize, empty_cache), as on the GPU behind a long kernel; behind a short one the GPU is often done sooner (PyTorch then reuses the block where the tool still waits). with S: ... makes S current too (nested, or entered again); StreamContext, device_of, stream_id. backward and autograd.grad run each op on its forward op's stream (gradients, temporaries and the autograd thread's cuBLAS workspace there), a leaf's gradient on the stream of its first forward use; a gradient crossing to another stream is record_stream'ed to it, a second one summed on the taking op's stream. empty_cache frees the large then the small pool's segments by stream (the driver's handle order of a fresh process), size and address. A graph on several devices using side streams, ExternalStream, query() of work not waited for and elapsed_time raise NotImplementedError. cuda_stream numbers are the tool's (0 is the default stream's, as in PyTorch; 1-128 in the driver's handle order); memory_snapshot and _dump_snapshot carry each block's stream", Topic: true},
	{Name: "estimated", Usage: "gpumemrepl run --strict FILE.py | gpumemrepl fit --strict FILE.py", Summary: "two tiers: a figure is exact when every op on its path followed a rule recorded with PyTorch on the GPU and checked in tests, estimated when some op followed a general rule instead (PyTorch's formula not yet recorded, the nearest recorded configuration of a kernel's scratch, such as cuDNN's workspace of a convolution outside the recorded table (help calibration makes yours exact), or the general rule: an op PyTorch declares and the table lacks, such as acosh, atan2, hypot, cumprod, logcumsumexp or bernoulli, sized by its family's shape rule from PyTorch's declarations, or CPython's automatic cyclic collection freeing tensors at a moment the tool models from its counts: gc (automatic), or, on a GPU other than the H200 and the H100 the rules were recorded on, a rule that reads the card: the cuBLAS workspace, a reduction's blocks, CUB's and cuDNN's scratch, the attention backend, where the memory runs out); each estimate names the op, its shapes and why. A step whose figures rest on an estimate is marked ≈ before host, its own estimates listed after its events; memory is a history, so every figure from the first estimate on is marked, and a script's report ends naming how many statements estimated and the first. --json rows say exact false, estimates and first_estimate; fit has an exact column, diff and explain say it of a script's history. --strict refuses instead of estimating (NotImplementedError at the op), for CI and golden tests", Topic: true},
	{Name: "calibration", Usage: "python3 scripts/calibrate.py FILE.py (on a GPU machine) | gpumemrepl run --calibration FILE.calibration.jsonl FILE.py | GPUMEMREPL_CALIBRATION=FILE[:FILE...] gpumemrepl fit FILE.py", Summary: "teach it your GPU: cuDNN's convolution workspaces follow heuristics no formula predicts, so a convolution outside the built-in table (recorded on the H200) is estimated from the nearest recorded one (help estimated); scripts/calibrate.py runs the program once with PyTorch on a GPU, notes each convolution it runs (shapes, stride, padding, dilation, groups, bias, dtype, layout, which grads) and records each one's forward and backward allocations into a calibration file, whose configurations gpumemrepl then takes over the built-in table, exact (a file that does not read stops the run, naming its line; docs/calibration.md describes the file)", Topic: true},
	{Name: "python", Usage: "gpumemrepl run FILE.py", Summary: "run a Python script, one step per top-level statement; objects die when CPython frees them (names, containers, frames, temporaries, exceptions, a call's arguments as CPython 3.12 passes them (a Python function called directly owns them); cycles at gc.collect() and when CPython 3.12's collector would run by itself, its thresholds and counts modelled); a misspelt module attribute gets CPython's 'Did you mean'. Python 3.11 less async and match; torch, torch.nn, torch.optim, torch.autograd, torch.cuda, gc, sys (a script's arguments after --: sys.argv), os (os.path), math, time, random, functools, itertools, collections, contextlib, io (StringIO), abc, types, operator, heapq, bisect, string, weakref, traceback, dataclasses, argparse, json, logging, warnings, copy (deepcopy of tensors and modules, as PyTorch copies them), inspect (signature, Signature, Parameter, isclass, isfunction, ismethod: a function's parameters, a class's __init__'s, the optimizers' constructors; builtins have none), numpy (only log of a number and newaxis, as Whisper's sinusoids use them on the host: numpy's arrays take no GPU memory; its other names are refused). Values are not computed (x.item() says so; an assert on one is taken to hold, and the step says so); printing a CUDA tensor (print, str, repr, f-strings, format) takes and frees the GPU temporaries of PyTorch's formatter in its order, and one of a floating dtype whose values the tool does not know takes nothing where no values could change a figure (the most any take stays under the peak and fits in the cache; the step says so), else raises NotImplementedError (those temporaries depend on its values); PyTorch the tool does not model raises NotImplementedError saying what. Modelled: the ops of the op table (help torch lists them with their memory rules: factories, views with PyTorch's strides, indexing with ints, slices, None and ... (x[...] an alias), advanced indexing by index lists or int64 tensors, also beside ints, slices, None and ... (x[0, idx], x[2:10, idx], x3[idx, :, idx]: the basic items first as views, then a copy of the view's indexed part, the indexed dimensions in place when side by side, else first; an index or bool mask on the host of a CUDA tensor copied to it) and its backward, with PyTorch's errors at the statement (shape mismatches; an index out of range, which on the GPU PyTorch only reports at a later call, as a device-side assert, and the tool reports where it happens when it knows the index's values), x[mask] and masked_select by a bool mask of known values and their backward, a bool mask beside ints, slices, None, ... and an index tensor (x[:, mask], x[mask, 1:3], x[mask, idx]: its nonzero's columns as indices; x[:, mask] = number is masked_fill_), arithmetic and math, reductions, products, in-place ops with autograd's version check), .to/.cuda/.cpu, t[key] = value, pinned host memory (pin_memory, pin_memory=True, host_memory_stats), backward (also backward(gradient)), torch.autograd.grad, torch.autograd.graph (Node, set_warn_on_accumulate_grad_stream_mismatch; its saved-tensor hooks refused), nn.Linear (also device='cuda'), ReLU, GELU, Sequential, ModuleList, ModuleDict, Identity, Flatten, Tanh, Sigmoid, SiLU, LeakyReLU, Softmax, LogSoftmax, Embedding, EmbeddingBag (estimated), LayerNorm, RMSNorm, Dropout, BatchNorm1d/2d, GroupNorm, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, the losses (MSELoss, L1Loss, CrossEntropyLoss, NLLLoss, BCEWithLogitsLoss; BCELoss and TripletMarginLoss, estimated), PairwiseDistance (estimated) and F.scaled_dot_product_attention (the backend PyTorch picks on the H200), nn.MultiheadAttention (F.multi_head_attention_forward with need_weights, masks, kdim/vdim, batch_first; its fast path in eval without autograd), nn.TransformerEncoderLayer (post- and pre-norm, relu/gelu; its fast path in eval without autograd), nn.TransformerEncoder, nn.TransformerDecoderLayer, nn.TransformerDecoder and nn.Transformer (the decoder layers estimated), torch.autocast and GradScaler (the cast cache, its tensors; state_dict/load_state_dict), nn.Module subclasses with the module API (named_parameters, buffers, state_dict, load_state_dict, to/cuda/half/..., train/eval, apply), torch.nn.init (each fill in place, nothing allocated; orthogonal_ and sparse_ refused) and the random fills normal_, uniform_, bernoulli_, exponential_, random_, SGD/Adam/AdamW/RMSprop with param groups, state_dict, load_state_dict (of a state without tensors) and lr schedulers, torch.isclose and torch.allclose (their temporaries; the answer is not computed), torch.accelerator, Tensor.type() and the legacy types (torch.cuda.HalfTensor(...), x.type(torch.cuda.FloatTensor)), torch.return_types (tuples), torch.utils.data (Dataset, TensorDataset, Subset, random_split, DataLoader with batch_size, shuffle, drop_last, collate_fn, pin_memory: each batch collated on the host, then pinned), activation checkpointing (torch.utils.checkpoint's checkpoint, both variants, and checkpoint_sequential: what is kept, recomputed in backward and freed; under torch.autocast too), no_grad/enable_grad/inference_mode/set_grad_enabled (also decorating functions and methods), `p.requires_grad = False`, nn.Linear's device and dtype (bfloat16, float16), torch.jit's decorators and queries and torch.fx.wrap as the no-ops they are in eager mode, torch.compile (the model runs eagerly: a note on stderr says how a compiled model's memory differs), torch.compiler and torch._dynamo's helpers, torch.finfo and torch.iinfo, torch._assert, torch.distributed before a process group, torch.nn.modules' paths (torch.nn.modules.linear.Linear), gc.get_objects(), torch.load of a checkpoint PyTorch saved (its zip directory and pickle, not its tensor data: each storage allocated once where map_location puts it; mmap, weights_only) and torch.save (PyTorch's file, the tensors' known values or zeros), torch.set_default_dtype/get_default_dtype, set_default_device/get_default_device and with torch.device(...), the meta device (shapes and dtypes, no memory: Module.to_empty, load_state_dict(assign=True), nn.utils.skip_init), torch.cuda's memory functions, memory_snapshot, memory._snapshot() (the dict _dump_snapshot pickles: segments with their blocks' frames, the history), caching_allocator_alloc/delete, get_device_properties, torch.cuda.device(N), and CUDA streams and events (help streams)", Topic: true},
}

// hidden are words the command form reads that help lists under another
// entry (memory_allocated's siblings, set_device's current_device).
var hidden = []Spec{
	{Name: "memory_reserved", read: onGPU("memory_reserved", "print("+torchMod+".cuda.memory_reserved(%s))"), bare: true},
	{Name: "max_memory_allocated", read: onGPU("max_memory_allocated", "print("+torchMod+".cuda.max_memory_allocated(%s))"), bare: true},
	{Name: "max_memory_reserved", read: onGPU("max_memory_reserved", "print("+torchMod+".cuda.max_memory_reserved(%s))"), bare: true},
	{Name: "current_device", read: noArgs("current_device", "print("+torchMod+".cuda.current_device())"), bare: true},
	{Name: "help", read: readHelp, bare: true},
}

func init() { Registry = append(Registry, hidden...) }
