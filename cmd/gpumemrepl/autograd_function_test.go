package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCustomFunctionKeepsWhatCtxHolds: a custom Function's node keeps the
// tensor save_for_backward named until its backward has run, and a
// tensor set as a ctx attribute as long as the node lives; the outputs'
// grad_fn is the context, named after the class.
func TestCustomFunctionKeepsWhatCtxHolds(t *testing.T) {
	t.Parallel()
	src := `import torch
class Keep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        t = x * 2
        ctx.scratch = x * 3
        ctx.save_for_backward(t)
        return t + 1

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return grad * t
x = torch.ones(256, 1024, device='cuda', requires_grad=True)
z = Keep.apply(x)
print(type(z.grad_fn).__name__, z.grad_fn.needs_input_grad, z.grad_fn is z.grad_fn)
z.sum().backward()
del z
with torch.no_grad():
    z = Keep.apply(x)
`
	steps, printed, errOut := runPython(t, src)
	const mib = 1 << 20
	x, apply, back, del, noGrad := steps[14], steps[15], steps[17], steps[18], steps[19]
	switch {
	case apply.Allocated-x.Allocated != 3*mib:
		t.Errorf("apply made %d bytes, want 3 MiB: the output, the saved t and ctx.scratch (stderr %s)", apply.Allocated-x.Allocated, errOut)
	case back.Allocated != apply.Allocated:
		t.Errorf("backward left %d bytes, want %d: x.grad made, the saved t freed, ctx.scratch kept", back.Allocated, apply.Allocated)
	case del.Allocated != back.Allocated-2*mib:
		t.Errorf("del z left %d bytes, want %d: z and ctx.scratch, with the node", del.Allocated, back.Allocated-2*mib)
	case noGrad.Allocated != del.Allocated+mib:
		t.Errorf("under no_grad apply left %d bytes, want %d: no node, ctx and its tensors gone with the call", noGrad.Allocated, del.Allocated+mib)
	}
	if got := printed[16]; got != "KeepBackward (True,) True\n" {
		t.Errorf("grad_fn printed %q, want the context (one object), of the class named after the Function, and needs_input_grad", got)
	}
}

// TestCustomFunctionOutputs: an input returned is a new view of it, a
// dirty input takes the node as its history, a non-differentiable output
// needs no grad, and backward gets zeros for an output that got no
// gradient unless set_materialize_grads(False).
func TestCustomFunctionOutputs(t *testing.T) {
	t.Parallel()
	src := `import torch
class Same(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g
class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
class Two(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, zeros):
        ctx.set_materialize_grads(zeros)
        i = torch.zeros(x.shape, dtype=torch.int64, device=x.device)
        ctx.mark_non_differentiable(i)
        return x * 2, i
    @staticmethod
    def backward(ctx, ga, gi):
        print(gi is None, torch.cuda.memory_allocated())
        return ga, None
x = torch.ones(256, 1024, device='cuda', requires_grad=True)
v = Same.apply(x)
print(v is x, v._base is x, v.grad_fn.name())
h = x * 2
h2 = AddOne.apply(h)
print(h2 is h, h.grad_fn.name())
a, i = Two.apply(x, True)
print(a.requires_grad, i.requires_grad)
a.sum().backward()
x.grad = None
a, i = Two.apply(x, False)
a.sum().backward()
`
	_, printed, errOut := runPython(t, src)
	for line, want := range map[int]string{31: "False True SameBackward\n", 34: "True AddOneBackward\n", 36: "True False\n"} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q (stderr %s)", line, printed[line], want, errOut)
		}
	}
	// backward got zeros for i, made for it (int64 of i's shape: 2 MiB),
	// and None without set_materialize_grads
	var zeros, none bool
	var with, without int64
	_, err1 := fmt.Sscan(printed[37], &zeros, &with)
	_, err2 := fmt.Sscan(printed[40], &none, &without)
	if err1 != nil || err2 != nil || zeros || !none || with-without != 2<<20 {
		t.Errorf("backward printed %q and %q: want False, then True, and 2 MiB less allocated without the zeros", printed[37], printed[40])
	}
}

// TestCustomFunctionErrors: PyTorch's errors for a backward that returns
// the wrong number of gradients, one of a shape that does not broadcast
// to its input, or one for an argument that was not a tensor, and for a
// tensor marked dirty that forward did not return.
func TestCustomFunctionErrors(t *testing.T) {
	t.Parallel()
	src := `import torch
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mode):
        ctx.mode = mode
        if mode == 'dirty':
            ctx.mark_dirty(x * 1)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        if ctx.mode == 'count':
            return g
        if ctx.mode == 'shape':
            return g[0], None
        return g, g
x = torch.ones(8, 4, device='cuda', requires_grad=True)
F.apply(x, 'count').sum().backward()
F.apply(x, 'shape').sum().backward()
F.apply(x, 'none').sum().backward()
F.apply(x, 'dirty')
F.apply(x, 'count', 3)
`
	steps, _, _ := runPython(t, src)
	for line, want := range map[int]string{
		17: "RuntimeError: function FBackward returned an incorrect number of gradients (expected 2, got 1)",
		18: "RuntimeError: Function FBackward returned an invalid gradient at index 0 - got [4] but expected shape compatible with [8, 4]",
		19: "RuntimeError: function FBackward returned a gradient different than None at position 2, but the corresponding forward input was not a Variable",
		20: "RuntimeError: Some elements marked as dirty during the forward method were not returned as output. The inputs that are modified inplace must all be outputs of the Function.",
		21: "TypeError: F.forward() takes 3 positional arguments but 4 were given",
	} {
		if e := steps[line].Error; e == nil || !strings.HasSuffix(*e, want) {
			t.Errorf("line %d: error %v, want one ending %q", line, e, want)
		}
	}
}

// TestSaveOnCPU: under save_on_cpu the graph keeps host copies of what
// it saves, so an activation only the graph held leaves the GPU (by its
// size exactly), and backward ends where it does without the hooks.
func TestSaveOnCPU(t *testing.T) {
	t.Parallel()
	prog := func(with string) string {
		return `import torch
w = torch.ones(1024, 1024, device='cuda', requires_grad=True)
x = torch.ones(512, 1024, device='cuda')
with ` + with + `:
    h = (x @ w).relu()
    y = (h * h).sum()
del h
y.backward()
`
	}
	plain, _, _ := runPython(t, prog("torch.enable_grad()"))
	hooked, printed, errOut := runPython(t, prog("torch.autograd.graph.save_on_cpu(pin_memory=True)"))
	if got := plain[7].Allocated - hooked[7].Allocated; got != 2<<20 {
		t.Errorf("del h: the hooked graph holds %d bytes less, want the activation's 2 MiB (stderr %s, printed %v)", got, errOut, printed)
	}
	if plain[8].Allocated != hooked[8].Allocated {
		t.Errorf("after backward %d bytes with the hooks, %d without", hooked[8].Allocated, plain[8].Allocated)
	}
}

// TestSavedTensorsHooksCalls: pack is called once for each tensor an op
// saves (not for a Python number the op saved), in the order of the
// node's saved tensors, and unpack once for each in backward; an unpack
// that returns no tensor and a pack that writes its input fail with
// PyTorch's errors.
func TestSavedTensorsHooksCalls(t *testing.T) {
	t.Parallel()
	src := `import torch
calls = []
def pack(t):
    calls.append(('pack', tuple(t.shape)))
    return t
def unpack(t):
    calls.append(('unpack', tuple(t.shape)))
    return t
x = torch.ones(4, 8, device='cuda', requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x * 2).relu().sum()
y.backward()
print(calls)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
    y = x.relu().sum()
y.backward()
with torch.autograd.graph.saved_tensors_hooks(lambda t: t.add_(1), lambda t: t):
    y = x * x
with torch.autograd.graph.disable_saved_tensors_hooks('not here'):
    with torch.autograd.graph.save_on_cpu():
        pass
`
	steps, printed, errOut := runPython(t, src)
	if want := "[('pack', (4, 8)), ('unpack', (4, 8))]\n"; printed[13] != want {
		t.Errorf("hooks called %q, want %q (stderr %s)", printed[13], want, errOut)
	}
	for line, want := range map[int]string{
		16: "TypeError: Output of saved tensor unpack_hook expected to be a Tensor but got result of type int",
		17: "RuntimeError: A saved tensor pack hook is modifying its input in place.",
		19: "RuntimeError: not here",
	} {
		if e := steps[line].Error; e == nil || !strings.Contains(*e, want) {
			t.Errorf("line %d: error %v, want one with %q", line, e, want)
		}
	}
}
