package repl

import (
	"fmt"
	"strings"
)

type cmdHelp struct {
	name, usage, summary string
}

// helpTopics are help entries that are not words typed at the start of a
// command (methods, operators): completion leaves them out.
var helpTopics = map[string]bool{"python": true, "call": true, "ops": true, "optim": true, "no_grad": true, "zero_grad": true, "requires_grad": true, "backward": true, "to": true, "clone": true, "view": true}

// commandHelp drives help and completion alike.
var commandHelp = []cmdHelp{
	{"zeros", "NAME = zeros SHAPE [DTYPE] [DEVICE]", "a new tensor of zeros; SHAPE like 256x1024x1024, DEVICE cpu, cuda or cuda:N (default cpu), DTYPE float32 (default), float16, bfloat16, float64, int64, int32, int16, int8, uint8, bool. PyTorch form: torch.zeros([256,1024,1024], device='cuda', dtype=torch.float16)"},
	{"ones", "NAME = ones SHAPE [DTYPE] [DEVICE]", "like zeros; values are not kept: every constructor but empty writes zeros, which is what moves memory and time"},
	{"empty", "NAME = empty SHAPE [DTYPE] [DEVICE]", "like zeros"},
	{"full", "NAME = full SHAPE VALUE [DTYPE] [DEVICE]", "like zeros; torch.full((2,3), 7.0, device='cuda')"},
	{"rand", "NAME = rand SHAPE [DTYPE] [DEVICE]", "like zeros (values are not computed)"},
	{"randn", "NAME = randn SHAPE [DTYPE] [DEVICE]", "like zeros (values are not computed)"},
	{"tensor", "NAME = torch.tensor([1, 2, 3], device='cuda')", "a small tensor from a list (int64 for integers, else float32)"},
	{"to", "NAME = X.to DEVICE | X.to('cuda:1') | X.to(torch.device('cuda', 1)) | X.cuda() | X.cpu()", "a copy on DEVICE (X itself when it is there already); the new copy is made before the old name is dropped. Between two GPUs the bytes go device to device where the hardware has peer access (turned on at the first copy, as PyTorch does; the step says which), else the driver stages them through host memory"},
	{"clone", "NAME = X.clone()", "a copy on the same device"},
	{"del", "del NAME [, NAME ...]", "drop names; memory goes back to the cache when the last name of a storage goes (all names must exist)"},
	{"empty_cache", "empty_cache | torch.cuda.empty_cache()", "return every fully free cached segment to the driver, on every device"},
	{"memory_allocated", "torch.cuda.memory_allocated([DEVICE]) | memory_reserved | max_memory_allocated | max_memory_reserved", "print one figure of the device, in bytes (0 before it is used)"},
	{"set_device", "set_device N | torch.cuda.set_device(N)", "make cuda:N the current device: what cuda, .cuda() and the memory commands without a device mean from now on (its CUDA context is made, as cudaSetDevice does); torch.cuda.current_device() prints it"},
	{"memory_summary", "memory_summary [DEVICE]", "torch.cuda.memory_summary(), byte for byte"},
	{"memory_stats", "memory_stats [DEVICE]", "torch.cuda.memory_stats(): every key, sorted"},
	{"reset_peak_memory_stats", "reset_peak_memory_stats [DEVICE]", "peaks start again from the current values"},
	{"set_per_process_memory_fraction", "set_per_process_memory_fraction F [DEVICE]", "limit what the allocator may reserve to F × total memory"},
	{"alloc_conf", "alloc_conf STR", "PYTORCH_CUDA_ALLOC_CONF for this session, before the first CUDA command (e.g. max_split_size_mb:128,garbage_collection_threshold:0.8)"},
	{"vars", "vars", "live tensors: shape, dtype, device, bytes, and who shares storage"},
	{"map", "map [DEVICE]", "the device's segments drawn as bars: # allocated, . cached (free); fragmentation at a glance. With expandable segments, also how much of each reserved range is mapped"},
	{"Linear", "M = torch.nn.Linear(IN, OUT, bias=True) | Linear(IN, OUT)", "a module (also ReLU(), GELU(), Sequential(M, ...), with or without torch.nn.); its weight [OUT, IN] and bias are float32 parameters made on the host, moved by M.cuda() / M.to(DEV), in place, in parameters() order"},
	{"call", "Y = M(X)", "run a module; Linear is addmm (x @ W.t() + b, without a bias mm), ReLU and GELU make one output each. With grad on and a parameter or input that requires grad, what PyTorch saves for backward stays alive with Y"},
	{"ops", "X @ Y | X + Y | X * Y | X.sum() | X.mean() | X.square() | X.relu() | F.gelu(X) | torch.matmul(X, Y)", "tensor operations; each allocates its output (values are not computed). The first matrix product of a device allocates the cuBLAS workspace (32 MiB on compute capability 9+, 8,519,680 bytes below), and Linear with a bias the 1 MiB cuBLASLt workspace; both stay"},
	{"backward", "X.backward()", "backpropagate from the scalar X; gradients are allocated in PyTorch's order into each leaf's .grad (the autograd thread gets its own cuBLAS workspace), and each node's saved tensors are freed once it has run"},
	{"no_grad", "with torch.no_grad(): [COMMAND]", "record no graph; the indented lines that follow (at the prompt: until a blank line), or the command after the colon. torch.set_grad_enabled(False) for the rest of the session"},
	{"zero_grad", "M.zero_grad(set_to_none=True) | OPT.zero_grad()", "free every parameter's .grad; set_to_none=False keeps them, zeroed"},
	{"optim", "OPT = torch.optim.AdamW(M.parameters(), lr=1e-3) | SGD(..., momentum=0.9) | Adam(...); OPT.step()", "an optimizer; its state (exp_avg and exp_avg_sq per parameter for Adam(W), a momentum buffer for SGD) is allocated at the first step, and each Adam step a temporary per parameter"},
	{"requires_grad", "torch.randn(..., requires_grad=True) | X.requires_grad_() | X.detach() | X.item()", "leaves that require grad; a detached copy sharing storage; item() gives a number, which keeps no graph"},
	{"print", "print X | print(X)", "X as PyTorch prints it, where its values are known: zeros, ones, full and torch.tensor values, through copies and views; others print as not computed"},
	{"snapshot", "snapshot save FILE.pickle [DEVICE] | torch.cuda.memory._dump_snapshot('FILE.pickle')", "write the device's memory snapshot and its whole history (every allocation, free and segment event of this session) in PyTorch's format, for pytorch.org/memory_viz or gpumemrepl replay"},
	{"load", "load FILE [until N] [as NAME]", "replay a trace or a PyTorch snapshot (.pickle) into the session (its first N ops; a snapshot's history of cuda:N on cuda:N, or on cuda:0 when it is the file's only one and the session has no cuda:N); its blocks live at the end stay allocated, held by NAME (default trace), so you can go on from a real run's state; del NAME frees them"},
	{"plot", "plot FILE.html", "write a self-contained HTML page: allocated, reserved and driver-used over this session's steps (hover a point for its command) and cuda:0's segments now"},
	{"gpus", "gpus", "the session's GPUs: name, total memory and, on a real GPU, what NVML says is used and by which processes (n/a without NVML)"},
	{"view", "NAME = X[i] | X.view(2, -1) | X.reshape(...)", "a view: shares X's storage and keeps it alive, no new memory"},
	{"python", "gpumemrepl run FILE.py", "run a Python script, one step per top-level statement; objects die when CPython frees them (names, containers, frames, temporaries, exceptions; cycles at gc.collect()). Python 3.11 less async and match; torch, torch.nn, torch.optim, torch.cuda, gc, sys, os, math, time, random, functools, itertools, collections, contextlib, weakref, traceback. Values are not computed (x.item() says so); PyTorch the tool does not model raises NotImplementedError saying what"},
}

// Help is the text of help, or of help NAME.
func Help(name string) string {
	var b strings.Builder
	if name == "" {
		b.WriteString("Commands (each line is one step; the report after it shows host RSS and, per GPU, allocated, reserved and driver-used memory with their changes):\n")
		for _, c := range commandHelp {
			fmt.Fprintf(&b, "  %-58s %s\n", c.usage, firstSentence(c.summary))
		}
		b.WriteString("  help [COMMAND]                                             this text, or one command's\n")
		b.WriteString("At the prompt, Python runs as Python (help python) over the same names; a .gpumem script takes pasted PyTorch lines too: import torch, #%% cells, torch.zeros(...), b.to('cpu'), del a, b.\n")
		b.WriteString("Values: zeros, ones, full and torch.tensor keep theirs (print shows them); compute ops, rand and randn leave them unspecified, since only sizes are modelled.\n")
		return b.String()
	}
	for _, c := range commandHelp {
		if c.name == name {
			return fmt.Sprintf("%s\n  %s\n", c.usage, c.summary)
		}
	}
	return fmt.Sprintf("help: no command %q (try help)\n", name)
}

func firstSentence(s string) string {
	if i := strings.Index(s, "; "); i > 0 {
		return s[:i]
	}
	return s
}
