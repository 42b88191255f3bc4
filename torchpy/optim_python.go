package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// What torch.optim's Python makes of container objects around the
// engine's work (PyTorch 2.11 under CPython 3.12), for CPython's
// collector: a script that keeps optimizers in reference cycles
// (testdata/experiments/gc's gh47589: an Adam and a LambdaLR made each
// round, held by an object whose lambda refers to it) collects them when
// these objects take generation 0 past its threshold, so its figures
// depend on them.
//
// An optimizer keeps: itself, its defaults (a dict display),
// Optimizer.__init__'s six OrderedDicts of hooks and its state, a
// defaultdict(dict); its groups' list, each group's dict and params list. Its construction also counts
// two lists (list(params) in __init__ and again in add_param_group, type
// calls too, freed onto the free list of lists). A step (Adam's) keeps,
// for each parameter with a gradient, the state dict the defaultdict
// makes (dict()), the Python objects of its three state tensors and that
// of its gradient, which PyTorch keeps for as long as the gradient lives
// (a tensor's Python object outlives its last Python reference while C++
// holds the tensor), until zero_grad(set_to_none=True) frees it. What
// each call makes and frees on its way (the arguments' tuples and dicts
// of its wrappers' *args and **kwargs, their context objects, the lists
// of tensors Adam's foreach step passes around) is made and freed in
// its order, so that a collection they set off comes where CPython's
// does and the free lists run dry where CPython's do.

// optimizerPython is what an optimizer keeps of Python objects beside
// its defaults and groups: the hooks' registries and the state.
type optimizerPython struct {
	hooks []eval.Value
	state eval.Value
}

func (p *optimizerPython) traverse(visit func(eval.Value)) {
	for _, h := range p.hooks {
		visit(h)
	}
	if p.state != nil {
		visit(p.state)
	}
}

func (p *optimizerPython) clear(in *eval.Interp) {
	hooks, state := p.hooks, p.state
	p.hooks, p.state = nil, nil
	for _, h := range hooks {
		in.Decref(h)
	}
	if state != nil {
		in.Decref(state)
	}
}

// scalarBetas is Adam.__init__'s betas = tuple(map(_to_scalar, betas)):
// the map object, its iterator over betas and the tuple of iterators it
// keeps, and a tuple made for a guessed length (a 10-tuple), resized to
// the two betas, which the optimizer keeps (its defaults' and groups'
// betas).
func (b *Binding) scalarBetas(betas eval.Value) (eval.Value, error) {
	in := b.in
	f := &pyFrame{in: in}
	defer f.done()
	f.tuple(1)
	f.objects(2)
	var items []eval.Value
	err := in.ForEach(betas, func(v eval.Value) error {
		eval.Incref(v)
		items = append(items, v)
		return nil
	})
	if err != nil {
		for _, v := range items {
			in.Decref(v)
		}
		return nil, err
	}
	return in.NewTupleGuessed(items), nil
}

// optimizerHooks makes what Optimizer.__init__ keeps after its defaults:
// the six OrderedDicts of hooks (step pre and post, state_dict pre and
// post, load_state_dict pre and post), then the state's defaultdict.
func (b *Binding) optimizerHooks(o *Optimizer) error {
	in := b.in
	for range 6 {
		h, err := in.Call(b.orderedDict, nil, nil)
		if err != nil {
			return err
		}
		o.py.hooks = append(o.py.hooks, h)
	}
	st, err := in.Call(b.defaultDict, []eval.Value{eval.DictType}, nil)
	if err != nil {
		return err
	}
	o.py.state = st
	return nil
}

// pyFrame is what a modelled Python call has made and not yet freed: it
// frees them last first.
type pyFrame struct {
	in   *eval.Interp
	made []eval.Value
}

// objects makes n container objects of types no free list serves.
func (f *pyFrame) objects(n int) {
	for range n {
		f.made = append(f.made, f.in.NewInternal())
	}
}

// tuple makes a tuple of n items; list and dict make one of each.
func (f *pyFrame) tuple(n int) {
	items := make([]eval.Value, n)
	for i := range items {
		items[i] = eval.None
	}
	f.made = append(f.made, f.in.NewTuple(items))
}

func (f *pyFrame) list() { f.made = append(f.made, f.in.NewList(nil)) }

func (f *pyFrame) dict() { f.made = append(f.made, f.in.NewDict()) }

// free frees the last n made.
func (f *pyFrame) free(n int) {
	for _, v := range f.made[len(f.made)-n:] {
		f.in.Decref(v)
	}
	f.made = f.made[:len(f.made)-n]
}

// done frees what is left.
func (f *pyFrame) done() { f.free(len(f.made)) }

// call is a call of a Python function taking *args and **kwargs with n
// positional arguments: the tuple of them and a new dict, freed as it
// returns (free(2)).
func (f *pyFrame) call(n int) {
	f.tuple(n)
	f.dict()
}

// disableDynamo runs run, a method torch._disable_dynamo wraps
// (add_param_group, zero_grad) called with n positional arguments (self
// among them): its inner(*args, **kwargs) and, inside,
// DisableContext's _fn(*args, **kwargs), each with its arguments' tuple
// and dict; first runs in inner before the second (the first
// add_param_group imports torch._dynamo there).
func (b *Binding) disableDynamo(n int, first func(), run func() error) error {
	f := &pyFrame{in: b.in}
	defer f.done()
	f.call(n)
	if err := b.in.Check(); err != nil {
		return err
	}
	if first != nil {
		first()
	}
	f.call(n)
	if err := b.in.Check(); err != nil {
		return err
	}
	return run()
}

// zeroGradFirstKept is what the first zero_grad of a process keeps for
// good: gh47589's first zero_grad adds 9 to generation 0's count where
// no gradient exists yet, the later ones nothing but the gradients'
// objects they free (testdata/experiments/gc/gh47589_lambdalr_self.lines.json,
// the GPU call of 2026-12-06 21:48): torch._dynamo.disable's wrapper of
// zero_grad, cached on it at its first call, and torch.ops.profiler's
// operators record_function looks up the first time.
const zeroGradFirstKept = 9

// zeroGradPython runs run, zero_grad's work on the gradients, inside
// what Optimizer.zero_grad's Python makes: its _disable_dynamo
// wrappers, the record_function context object its body runs in, the
// iterators of its loops over the groups and their params; then the
// gradients' objects of params go (set_to_none) with them.
func (b *Binding) zeroGradPython(params []*engine.Tensor, toNone bool, run func()) error {
	in := b.in
	first := func() {
		if b.zeroGradKept == nil {
			for range zeroGradFirstKept {
				b.zeroGradKept = append(b.zeroGradKept, in.NewInternal())
			}
		}
	}
	return b.disableDynamo(1, first, func() error {
		f := &pyFrame{in: in}
		defer f.done()
		f.objects(1) // record_function(self._zero_grad_profile_name)
		if err := in.Check(); err != nil {
			return err
		}
		f.objects(2) // the loops' list iterators
		run()
		if toNone {
			b.dropGradObjects(params)
		}
		return nil
	})
}

// keepGradObject makes the Python object of p's gradient that PyTorch
// keeps while the gradient lives, once (p.grad read in a step).
func (b *Binding) keepGradObject(p *engine.Tensor) {
	if b.gradObjects == nil {
		b.gradObjects = map[*engine.Tensor]eval.Value{}
	}
	if _, ok := b.gradObjects[p]; !ok {
		b.gradObjects[p] = b.in.NewInternal()
	}
}

// dropGradObjects frees the gradients' objects of params, whose
// gradients went.
func (b *Binding) dropGradObjects(params []*engine.Tensor) {
	for _, p := range params {
		if g, ok := b.gradObjects[p]; ok {
			delete(b.gradObjects, p)
			b.in.Decref(g)
		}
	}
}

// stepPython runs run, the engine's step, inside what an optimizer's
// step() makes in Python: the scheduler's wrapper of step where one made
// it (its dict of keywords, the bound method it calls), then
// Optimizer.profile_hook_step's wrapper (its arguments' tuple and dict,
// the list of `self, *_ = args`, its record_function context and the
// chain of the hooks' dicts' values it walks), _use_grad_for_differentiable's
// (its arguments, a set_grad_enabled object before and after the step)
// and, for Adam and AdamW, Adam.step (the iterator over the groups, its
// six lists, _init_group's objects for each parameter with a gradient,
// kept: held) and the foreach functional it calls (adam's arguments'
// tuple, dict and the tuple of its keywords' names, the lists and
// generators of _default_to_fused_or_foreach, the grouping of the
// tensors by device and dtype under no_grad and what it returns: a dict
// of pairs of lists, the casts' aliases, the CPU step's increment, the
// bias corrections' lists, the square roots' list and tensors).
func (b *Binding) stepPython(o *Optimizer, withGrad []*Tensor, run func() error) error {
	in := b.in
	f := &pyFrame{in: in}
	defer f.done()
	if o.stepWrapper != nil {
		f.dict()
		f.objects(1) // func.__get__(opt, opt.__class__)
		o.optCalled = true
	}
	f.call(1) // profile_hook_step's wrapper(*args, **kwargs)
	f.list()  // self, *_ = args
	f.objects(1)
	if err := in.Check(); err != nil {
		return err
	}
	f.objects(3) // chain(...) of two dicts' values
	f.free(3)
	f.call(1) // _use_grad(*args, **kwargs)
	f.objects(1)
	f.free(1)
	if err := in.Check(); err != nil {
		return err
	}
	var err error
	if o.cls == AdamType || o.cls == AdamWType {
		err = b.adamStepPython(o, withGrad, run)
	} else {
		err = run()
	}
	if err != nil {
		return err
	}
	f.objects(1) // set_grad_enabled(prev_grad), in _use_grad's finally
	f.free(1)
	f.objects(3) // chain(...) of the post hooks
	f.free(3)
	return nil
}

// adamStepPython is Adam.step's Python around run: the iterator over
// the groups, its six lists, _init_group's objects, and the foreach
// functional it calls.
func (b *Binding) adamStepPython(o *Optimizer, withGrad []*Tensor, run func() error) error {
	in := b.in
	f := &pyFrame{in: in}
	defer f.done()
	f.objects(1) // for group in self.param_groups
	for range 6 {
		f.list()
	}
	if err := b.initGroupPython(o, withGrad); err != nil {
		return err
	}
	// adam(...) through _disable_dynamo_if_unsupported's
	// maybe_fallback(*args, **kwargs): its six arguments and fifteen
	// keywords, and the tuple of the keywords' names its call of adam
	// unpacks them to
	f.tuple(6)
	f.dict()
	if err := in.Check(); err != nil {
		return err
	}
	f.tuple(15)
	// _default_to_fused_or_foreach: the lists of supported devices, the
	// generator expression all() reads for foreach (a function and a
	// generator), the pair it returns
	f.list()
	f.list()
	f.objects(2)
	f.free(2)
	f.free(2)
	f.tuple(2)
	f.free(1)
	f.objects(2) // all(isinstance(t, torch.Tensor) for t in state_steps)
	f.free(2)
	if err := in.Check(); err != nil { // _multi_tensor_adam
		return err
	}
	f.list() // [params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps]
	f.call(2)
	f.objects(1) // no_grad()
	f.dict()     // {(device, dtype): ([six lists], indices)}
	f.tuple(2)
	for range 8 {
		f.list()
	}
	f.tuple(2)
	f.objects(2) // .values() and its iterator
	for range 6 {
		f.objects(1) // cast(list[Tensor], ...)
		f.free(1)
	}
	f.objects(1) // torch.tensor(1.0, device="cpu")
	f.free(1)
	for range 4 {
		f.list() // the bias corrections, step_size
	}
	f.list() // torch._foreach_sqrt(exp_avg_sqs)
	f.objects(len(withGrad))
	return run()
}

// initGroupPython is Adam._init_group's Python for the parameters with
// a gradient: each one's gradient object (kept while the gradient
// lives), and at its first step its state dict (self.state[p], which the
// defaultdict makes with dict()) with the objects of its step, exp_avg
// and exp_avg_sq tensors.
func (b *Binding) initGroupPython(o *Optimizer, withGrad []*Tensor) error {
	in := b.in
	for _, p := range withGrad {
		b.keepGradObject(p.T)
		st, err := in.GetItem(o.py.state, p)
		if err != nil {
			return err
		}
		d, ok := st.(*eval.Dict)
		if ok && d.Len() == 0 {
			for _, name := range []string{"step", "exp_avg", "exp_avg_sq"} {
				in.PutStr(d, name, in.NewInternal(), "")
			}
		}
		in.Decref(st)
	}
	return nil
}
