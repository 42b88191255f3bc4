package torchpy_test

import "testing"

// TestCallArgumentOwnership runs pyrules/call_args (who owns a call's
// arguments, recorded on CPython 3.12.3 with PyTorch 2.11): a temporary
// passed to a Python function called directly, as a method, through a
// bound method, a classmethod, a staticmethod or super(), with keywords,
// through *args/**kwargs, or to a generator function dies when the
// callee rebinds or deletes its parameter; through __init__,
// nn.Module's __call__, a callable object, partial, map, a *args
// wrapper or a forward hook it lives until the call returns; a frame's
// slots go parameters first; a binding error frees an extra argument
// first; sys.getrefcount inside the callee. Every allocator event in
// PyTorch's order, and every print.
func TestCallArgumentOwnership(t *testing.T) {
	checkRules(t, "call_args")
}
