package torchpy

import "github.com/gpumemrepl/gpumemrepl/python/eval"

// What torch.autograd.backward's Python allocates for CPython's collector
// (PyTorch 2.11 under CPython 3.12), as scripts/record_gc.py --trace
// recorded it line by line (testdata/experiments/gc: the backward of every
// other round of gh10348_exception_frame.py, gc_costs.py's two): it casts
// its tensors to a typing.Union of two tuple aliases (two
// types.GenericAlias objects and typing's cached lookup, freed), runs two
// generator expressions (a function, a generator and what they make; the
// second leaves one object behind, counted until a collection), calls
// _make_grads (its list, a zip with the pair it reuses, two more objects,
// the ones_like seed when no gradient is given, a lookup's pair, one more
// object) and _engine_run_backward (a contextvars.Context stashed while
// the engine runs). The first call in a process also makes the typing
// objects typing's cache keeps for good: the two Unions and what they
// hold, 8 objects in all, and the first two one object more at the first
// generator expression (gh10348: the first backward adds 9, the second 2,
// the later ones 1).

// backwardPython runs run, the engine's backward, inside what
// torch.autograd.backward's Python makes and frees, in its order, with
// the evaluation loop's checks at its calls; seeded says whether
// _make_grads makes the seed (no gradient given).
func (b *Binding) backwardPython(seeded bool, run func() error) error {
	in := b.in
	var made []eval.Value
	alloc := func(n int) {
		for range n {
			made = append(made, in.NewInternal())
		}
	}
	free := func(n int) {
		for _, v := range made[len(made)-n:] {
			in.Decref(v)
		}
		made = made[:len(made)-n]
	}
	defer func() { free(len(made)) }()
	b.backwards++
	// hold keeps n objects for good in the first calls calls of a process
	hold := func(calls, n int) {
		if b.backwards <= calls {
			for range n {
				b.typingHeld = append(b.typingHeld, in.NewInternal())
			}
		}
	}
	if err := in.Check(); err != nil { // torch.autograd.backward
		return err
	}
	// cast(Union[tuple[Tensor], tuple[GradientEdge]], (tensors,))
	hold(1, 5)
	alloc(2)
	if err := in.Check(); err != nil {
		return err
	}
	free(2)
	// the first generator expression, t_tensors = tuple(t for t in
	// tensors if is_tensor_like(t)): its function and generator, a pair,
	// is_tensor_like's call, and the tuple PySequence_Tuple makes for a
	// guessed length (a 10-tuple from its free list, or made), resized to
	// the one tensor, held until backward returns; the first two calls
	// leave one object more (gh10348's second backward adds 2, gc_costs.py's
	// too)
	hold(2, 1)
	alloc(2)
	pair := in.NewTuple([]eval.Value{eval.None, eval.None})
	err := in.Check()
	in.Decref(pair)
	tensors := in.NewTupleGuessed([]eval.Value{eval.None})
	defer in.Decref(tensors)
	free(2)
	if err != nil {
		return err
	}
	// the second, t_inputs, of no inputs: its function and generator, and
	// the 10-tuple, back on its free list as it gives the empty tuple
	// (gh47589's reads: where Adam's betas took the free list's 10-tuple,
	// both are made and count)
	alloc(2)
	in.Decref(in.NewTupleGuessed(nil))
	if err := in.Check(); err != nil {
		return err
	}
	free(2)
	// _make_grads: its list, a zip and its pair, two objects, the
	// cast's lookup (a pair), the seed, one more object
	if err := in.Check(); err != nil {
		return err
	}
	list := in.NewList(nil)
	alloc(1)
	zipPair := in.NewTuple([]eval.Value{eval.None, eval.None})
	alloc(2)
	hold(1, 2)
	lookup := in.NewTuple([]eval.Value{eval.None, eval.None})
	err = in.Check()
	in.Decref(lookup)
	if err != nil {
		in.Decref(zipPair)
		in.Decref(list)
		return err
	}
	var seed eval.Value
	if seeded {
		seed = in.NewInternal()
		defer in.Decref(seed)
	}
	alloc(1)
	last := made[len(made)-1]
	made = made[:len(made)-1]
	free(3)
	in.Decref(zipPair)
	in.Decref(list)
	in.Decref(last)
	// _engine_run_backward: the context, held while the engine runs
	if err := in.Check(); err != nil {
		return err
	}
	alloc(1)
	return run()
}
