package torchpy

import "github.com/gpumemrepl/gpumemrepl/python/eval"

// What nn.Module's conversions (to, cuda, cpu, half, float, double,
// bfloat16, to_empty) allocate in Python for CPython's collector, PyTorch
// 2.11 under CPython 3.12, as scripts/record_gc.py --trace recorded
// Module.to and Module.cuda line by line (testdata/experiments/gc:
// gh46386_hook_self.trace.json.gz, gh20199_state_dict_cycle.trace.json.gz).
// The method makes its cells (the names its fn closes over: to's four,
// cuda's and to_empty's device) and fn, a closure, then calls
// Module._apply(fn), which for each module of the tree makes the cell of
// FakeTensor (imported in the function, read by its helper), walks
// children() (two generators, named_children's memo set and its dict
// items iterator), defines compute_should_use_set_data, then converts
// each parameter inside `with torch.no_grad():` and each buffer.
//
// Which of those objects are tuples shows where CPython's free list of
// pairs runs dry (a pair served from it counts nothing, a new one counts):
// gh46386's rounds 9 and 16, whose Module.to starts with three pairs
// there, make two new ones, the first as the first Linear's parameter
// loop starts, the second at its first _has_compatible_shallow_copy_type
// call (rounds/ and steps/gh46386_hook_self.stderr.gz: five pairs on the
// free list after Module.to, where it had three), gh20199's Linear.cuda()
// with two makes one, at that call: Module._apply holds, at its deepest,
// one pair for each module above (named_children's items iterator), the
// annotations of compute_should_use_set_data (`-> bool`: CPython builds
// the tuple ("return", bool) as the def runs, as bool is not a constant,
// and the function keeps it), the parameters' items iterator and the
// argument pair of torch._has_compatible_shallow_copy_type, a
// METH_VARARGS function.

// applyShape is what a conversion's Python method makes around
// Module._apply and what its fn makes for each tensor.
type applyShape struct {
	// cells are the method's cell variables, fn's closure
	cells int
	// varargs: to(*args, **kwargs): the call's argument tuple and
	// keyword dict, and _parse_to(*args, **kwargs)'s dict and the
	// 4-tuple it returns
	varargs bool
	// fnArgs is the argument tuple of the tensor method fn calls (a
	// METH_VARARGS method): t.to(device, dtype, non_blocking) 3,
	// t.cuda(device) 1, t.cpu() and t.half() none (the empty tuple)
	fnArgs int
	// fnKwargs: fn passes keywords (torch.empty_like(t, device=device)),
	// which the call gathers in a dict
	fnKwargs bool
}

// The shapes of PyTorch 2.11's conversion methods.
var (
	toShape      = applyShape{cells: 4, varargs: true, fnArgs: 3}
	cudaShape    = applyShape{cells: 1, fnArgs: 1}
	toEmptyShape = applyShape{cells: 1, fnArgs: 1, fnKwargs: true}
	castShape    = applyShape{} // cpu(), half(), float(), ...: lambda t: t.half() ...
)

// heldObjects are what one Python frame of the model holds until it
// returns, freed last made first.
type heldObjects struct {
	in *eval.Interp
	vs []eval.Value
}

func (h *heldObjects) add(v eval.Value) { h.vs = append(h.vs, v) }

// obj makes a container object that is neither a dict, a list nor a
// tuple (a cell, a function, a generator, a set, a bound method).
func (h *heldObjects) obj() { h.add(h.in.NewInternal()) }

func (h *heldObjects) tuple(n int) { h.add(nones(h.in, n)) }

func (h *heldObjects) free() {
	for i := len(h.vs) - 1; i >= 0; i-- {
		h.in.Decref(h.vs[i])
	}
	h.vs = nil
}

// nones is a tuple of n Nones: one that stands for a tuple CPython makes
// whose items do not matter here.
func nones(in *eval.Interp, n int) *eval.Tuple {
	items := make([]eval.Value, n)
	for i := range items {
		items[i] = eval.None
	}
	return in.NewTuple(items)
}

// conversionPython runs apply (Module._apply) inside what the conversion
// method of shape s, called with nargs positional arguments, makes: its
// argument tuple and keyword dict (to's *args and **kwargs), its cells, a
// check at its start, _parse_to's dict and result (to), fn's closure
// tuple and fn.
func (b *Binding) conversionPython(s applyShape, nargs int, apply func() error) error {
	in := b.in
	h := heldObjects{in: in}
	defer h.free()
	if s.varargs {
		if nargs > 0 {
			h.tuple(nargs)
		}
		h.add(in.NewDict())
	}
	for range s.cells {
		h.obj()
	}
	if err := in.Check(); err != nil {
		return err
	}
	if s.varargs {
		kw := in.NewDict()
		res := nones(in, 4)
		in.Decref(kw)
		in.Decref(res)
		if err := in.Check(); err != nil {
			return err
		}
	}
	if s.cells > 0 {
		h.tuple(s.cells)
	}
	h.obj()
	return apply()
}

// applyEnter is what a call of Module._apply makes as it starts: the
// cell of FakeTensor; then the check at its start.
func (b *Binding) applyEnter(h *heldObjects) error {
	h.obj()
	return b.in.Check()
}

// applyHelper is `def compute_should_use_set_data(tensor, tensor_applied)
// -> bool:` (its annotations tuple, its closure tuple of the cell, the
// function), then the check of get_swap_module_params_on_conversion().
func (b *Binding) applyHelper(h *heldObjects) error {
	h.tuple(2)
	h.tuple(1)
	h.obj()
	return b.in.Check()
}

// itemsLoop is `for key, value in d.items():` as it starts: the view
// (dropped once iterated), the iterator and the pair it reuses for each
// item, held until the loop ends.
func (b *Binding) itemsLoop(h *heldObjects) {
	view := b.in.NewInternal()
	h.obj()
	h.tuple(2)
	b.in.Decref(view)
}

// childrenPython runs each of apply's calls, one per child of o, inside
// `for module in self.children():`: children()'s and named_children()'s
// generators (each resumed with a check), named_children's memo set and
// its items loop, the pair it yields for each child (which children()
// unpacks and drops).
func (b *Binding) childrenPython(o *eval.Instance, apply func(*eval.Instance) error) error {
	in := b.in
	h := heldObjects{in: in}
	defer h.free()
	for range 2 {
		h.obj()
		if err := in.Check(); err != nil {
			return err
		}
	}
	h.obj()
	b.itemsLoop(&h)
	for _, ch := range children(o) {
		in.Decref(nones(in, 2))
		if err := apply(ch.m); err != nil {
			return err
		}
		for range 2 {
			if err := in.Check(); err != nil {
				return err
			}
		}
	}
	return nil
}

// noGradPython runs body inside `with torch.no_grad():`: the no_grad
// object (its __new__'s and __init__'s super() objects made and
// dropped), the bound __enter__ and __exit__ the with statement looks
// up, torch.set_grad_enabled(False) in __enter__ and
// set_grad_enabled(prev) in __exit__, a check at each Python function's
// start.
func (b *Binding) noGradPython(body func() error) error {
	in := b.in
	if err := in.Check(); err != nil { // __new__
		return err
	}
	sup := in.NewInternal()
	ctx := in.NewInternal()
	defer in.Decref(ctx)
	in.Decref(sup)
	for range 2 { // __init__, torch._jit_internal.is_scripting()
		if err := in.Check(); err != nil {
			return err
		}
	}
	in.Decref(in.NewInternal())
	enter := in.NewInternal()
	exit := in.NewInternal()
	defer in.Decref(exit)
	err := in.Check()
	if err == nil {
		err = b.setGradEnabledPython()
	}
	in.Decref(enter)
	if err != nil {
		return err
	}
	if err := body(); err != nil {
		return err
	}
	if err := in.Check(); err != nil { // __exit__
		return err
	}
	return b.setGradEnabledPython()
}

// setGradEnabledPython is torch.set_grad_enabled(mode) called for its
// effect: a class call (its argument tuple, the object, the check at its
// __init__), the object dropped.
func (b *Binding) setGradEnabledPython() error {
	in := b.in
	args := nones(in, 1)
	obj := in.NewInternal()
	err := in.Check()
	in.Decref(args)
	in.Decref(obj)
	return err
}

// fnPython runs convert (fn(t), the tensor's conversion) as fn's call:
// a check at fn's start, the argument tuple (and keyword dict) of its
// tensor method's call and, if changes (c.changes), the new tensor it
// returns, which replaces *result (param_applied, grad_applied); where
// the tensor is already what fn asks for, the method returns t itself.
func (b *Binding) fnPython(c conversion, changes bool, result *eval.Value, convert func() error) error {
	in := b.in
	if err := in.Check(); err != nil {
		return err
	}
	made := heldObjects{in: in}
	defer made.free()
	if c.shape.fnArgs > 0 {
		made.tuple(c.shape.fnArgs)
	}
	if c.shape.fnKwargs {
		made.add(in.NewDict())
	}
	if err := convert(); err != nil {
		return err
	}
	var v eval.Value
	if changes {
		v = in.NewInternal()
	}
	if *result != nil {
		in.Decref(*result)
	}
	*result = v
	return nil
}

// shouldUseSetData is compute_should_use_set_data(t, t_applied): a check
// at its start, torch._has_compatible_shallow_copy_type's argument pair,
// the check of get_overwrite_module_params_on_conversion().
func (b *Binding) shouldUseSetData() error {
	in := b.in
	if err := in.Check(); err != nil {
		return err
	}
	in.Decref(nones(in, 2))
	return in.Check()
}
