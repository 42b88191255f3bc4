package torchpy

import (
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// torch.utils.checkpoint: checkpoint and checkpoint_sequential over the
// engine's two variants (engine/checkpoint.go says what each keeps and
// recomputes; testdata/pyrules/ckpt_*.py are the recordings).

// The warnings PyTorch 2.11 gives (a UserWarning each).
const (
	warnCheckpoint = "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants."
	warnSequential = "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants."
	warnNoGrad     = "None of the inputs have requires_grad=True. Gradients will be None"
)

// segmentFn runs a checkpointed function on its arguments (borrowed),
// returning an owned result.
type segmentFn func(args []eval.Value) (eval.Value, error)

// segment is a checkpointed function: the call, the Python values it
// needs (the function, its keyword values), which the region or node
// keeps for backward's rerun as PyTorch's frame and context do, and the
// autocast setting of its forward (run sets it).
type segment struct {
	call segmentFn
	hold []eval.Value
	amp  engine.AutocastState
}

// keep takes a reference to each of vs; the function returned lets go.
func (c *checkpointer) keep(vs []eval.Value) func() {
	vs = append([]eval.Value(nil), vs...)
	for _, v := range vs {
		eval.Incref(v)
	}
	return func() {
		for _, v := range vs {
			c.b.in.Decref(v)
		}
	}
}

// keywordValues are the values of kw.
func keywordValues(kw []eval.KeywordArg) []eval.Value {
	vs := make([]eval.Value, len(kw))
	for i, k := range kw {
		vs[i] = k.Value
	}
	return vs
}

// checkpointer is the torch.utils.checkpoint module over its binding.
type checkpointer struct {
	b *Binding
}

// checkpointModule is torch.utils.checkpoint.
func (b *Binding) checkpointModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.utils.checkpoint")
	c := &checkpointer{b: b}
	b.fn(m, "checkpoint", "checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs): use_reentrant=False keeps the inputs only and recomputes function at the first unpack in backward (stopping once every saved tensor is made again), freeing each recomputed tensor once used; True runs it under no_grad and reruns it with grad inside CheckpointFunctionBackward; not passed: a warning, then True", c.checkpoint)
	b.fn(m, "checkpoint_sequential", "checkpoint_sequential(functions, segments, input, use_reentrant=None, preserve_rng_state=True): every segment but the last checkpointed, the last run as it is", c.sequential)
	return m, nil
}

// checkpointOpts are checkpoint's keywords.
type checkpointOpts struct {
	reentrant, preserve bool
}

// options reads use_reentrant= and preserve_rng_state= from kw and
// returns the rest; warn is the warning for a missing use_reentrant.
// checkpoint's other options (single is false for checkpoint_sequential,
// which takes none) are taken at the values that change no memory:
// determinism_check= (a check of shapes), debug=False, early_stop=True;
// others are refused.
func (c *checkpointer) options(kw []eval.KeywordArg, warn string, single bool) (checkpointOpts, []eval.KeywordArg, error) {
	o := checkpointOpts{reentrant: true, preserve: true}
	given := false
	var rest []eval.KeywordArg
	for _, k := range kw {
		var err error
		switch k.Name {
		case "use_reentrant":
			if k.Value != eval.None {
				given = true
				o.reentrant, err = c.b.in.Truth(k.Value)
			}
		case "preserve_rng_state":
			o.preserve, err = c.b.in.Truth(k.Value)
		case "determinism_check", "early_stop", "debug", "context_fn":
			if !single {
				rest = append(rest, k)
				continue
			}
			if !c.memoryNeutral(k) {
				return o, nil, c.b.notModelled("torch.utils.checkpoint's " + k.Name + "=" + c.b.in.ReprOf(k.Value))
			}
		default:
			rest = append(rest, k)
		}
		if err != nil {
			return o, nil, err
		}
	}
	if !given {
		if err := c.b.in.Warn(eval.UserWarningType, warn, 1); err != nil {
			return o, nil, err
		}
	}
	return o, rest, nil
}

// memoryNeutral reports whether checkpoint's option k is at a value that
// changes no memory.
func (c *checkpointer) memoryNeutral(k eval.KeywordArg) bool {
	switch k.Name {
	case "determinism_check":
		s, ok := k.Value.(string)
		return ok && (s == "default" || s == "none")
	case "debug":
		return k.Value == false
	case "early_stop":
		return k.Value == true
	}
	return false
}

// checkpoint is torch.utils.checkpoint.checkpoint; with no function and
// no arguments it is the decorator form.
func (c *checkpointer) checkpoint(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	if len(args) == 0 || args[0] == eval.None && len(args) == 1 {
		o, rest, err := c.options(kw, warnCheckpoint, true)
		if err != nil {
			return nil, err
		}
		if len(rest) > 0 {
			return nil, in.Raise(eval.ValueErrorType, "Unexpected keyword arguments: %s", kwNames(rest))
		}
		return eval.NewBuiltin("checkpoint_wrapper", "", func(in *eval.Interp, _ eval.Value, fa []eval.Value, _ []eval.KeywordArg) (eval.Value, error) {
			if len(fa) != 1 {
				return nil, in.Raise(eval.TypeErrorType, "checkpoint's decorator takes one function")
			}
			fn := fa[0]
			eval.Incref(fn)
			return eval.Track(in, &eval.Builtin{Name: "checkpointed", Self: fn, Fn: func(in *eval.Interp, fn eval.Value, a []eval.Value, k []eval.KeywordArg) (eval.Value, error) {
				k = slices.Clone(k)
				seg := segment{call: func(a []eval.Value) (eval.Value, error) { return in.Call(fn, a, k) }, hold: append([]eval.Value{fn}, keywordValues(k)...)}
				return c.run(o, seg, a, len(k) > 0)
			}}), nil
		}), nil
	}
	o, rest, err := c.options(kw, warnCheckpoint, true)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 && o.reentrant {
		return nil, in.Raise(eval.ValueErrorType, "Unexpected keyword arguments: %s", kwNames(rest))
	}
	fn := args[0]
	seg := segment{call: func(a []eval.Value) (eval.Value, error) { return in.Call(fn, a, rest) }, hold: append([]eval.Value{fn}, keywordValues(rest)...)}
	return c.run(o, seg, args[1:], len(rest) > 0)
}

// kwNames joins keyword names as PyTorch's ValueError does.
func kwNames(kw []eval.KeywordArg) string {
	names := make([]string, len(kw))
	for i, k := range kw {
		names[i] = k.Name
	}
	return strings.Join(names, ",")
}

// run checkpoints one call of fn on args (borrowed) in the variant o
// says; keywords passed to fn are refused by the reentrant one.
func (c *checkpointer) run(o checkpointOpts, seg segment, args []eval.Value, keywords bool) (eval.Value, error) {
	seg.amp = c.b.S.Autocast()
	if o.reentrant {
		if keywords {
			return nil, c.b.in.Raise(eval.ValueErrorType, "Unexpected keyword arguments")
		}
		return c.reentrant(o, seg, args)
	}
	return c.nonReentrant(o, seg, args)
}

// rerun is seg's call in backward, under the autocast setting the
// forward had: PyTorch's recomputation enters torch.autocast(**the
// forward's kwargs) around the function, also when autocast was off. It
// is a region of its own, whose cast cache goes when it exits as the
// outermost (a backward outside the forward's block makes the casts
// again), before the frames of a stopped rerun are let go.
func (c *checkpointer) rerun(seg segment, args []eval.Value) (eval.Value, error) {
	prev := c.b.S.EnterAutocast(seg.amp)
	v, err := seg.call(args)
	c.b.S.ExitAutocast(prev)
	return v, err
}

// tensorArgs are the tensors among args (top level, as checkpoint saves
// them) and the RNG states preserve_rng_state stashes: the CPU
// generator's, and one per CUDA tensor once CUDA is initialized.
func (c *checkpointer) tensorArgs(o checkpointOpts, args []eval.Value) ([]*engine.Tensor, int) {
	var ts []*engine.Tensor
	rng := 0
	if o.preserve {
		rng = 1
	}
	for _, a := range args {
		if t, ok := a.(*Tensor); ok && t.T != nil {
			ts = append(ts, t.T)
			if o.preserve && t.T.Device().CUDA && c.b.S.CUDAInitialized() {
				rng++
			}
		}
	}
	return ts, rng
}

// nonReentrant is use_reentrant=False: the region keeps args and what
// seg holds (Python references, until the engine says the region died)
// and reruns seg on args in backward.
func (c *checkpointer) nonReentrant(o checkpointOpts, seg segment, args []eval.Value) (eval.Value, error) {
	ts, rng := c.tensorArgs(o, args)
	region, err := c.b.S.BeginCheckpoint(ts, rng)
	if err != nil {
		return nil, c.b.pyErr(err)
	}
	kept := append([]eval.Value(nil), args...)
	release := c.keep(append(slices.Clone(kept), seg.hold...))
	v, err := seg.call(kept)
	c.b.S.EndCheckpoint(region, func() error {
		r, err := c.rerun(seg, kept)
		if err != nil {
			if region.Stopped() {
				c.b.in.Drop(err)
				return nil
			}
			return err
		}
		c.b.in.Decref(r)
		return nil
	}, release)
	return v, err
}

// reentrant is use_reentrant=True: seg runs under no_grad and its output
// becomes CheckpointFunctionBackward's, which keeps what seg holds and the
// arguments that are not tensors.
func (c *checkpointer) reentrant(o checkpointOpts, seg segment, args []eval.Value) (eval.Value, error) {
	ts, rng := c.tensorArgs(o, args)
	needs := false
	for _, t := range ts {
		needs = needs || t.RequiresGrad()
	}
	if !needs {
		if err := c.b.in.Warn(eval.UserWarningType, warnNoGrad, 1); err != nil {
			return nil, err
		}
	}
	was := c.b.S.SetGradEnabled(false)
	v, err := seg.call(args)
	c.b.S.SetGradEnabled(was)
	if err != nil {
		return nil, err
	}
	out, ok := v.(*Tensor)
	if !ok || out.T == nil {
		c.b.in.Decref(v)
		return nil, c.b.notModelled("a reentrant checkpoint whose function returns other than one tensor")
	}
	var others []eval.Value
	for _, a := range args {
		if t, ok := a.(*Tensor); !ok || t.T == nil {
			others = append(others, a)
		}
	}
	args = slices.Clone(args)
	err = c.b.S.ReentrantCheckpoint(out.T, ts, rng, func(detached []*engine.Tensor) (*engine.Tensor, func(), error) {
		again := make([]eval.Value, len(args))
		k := 0
		for i, a := range args {
			if t, ok := a.(*Tensor); ok && t.T != nil {
				again[i] = c.b.wrap(detached[k])
				k++
				continue
			}
			again[i] = a
			eval.Incref(a)
		}
		r, err := c.rerun(seg, again)
		for _, a := range again {
			c.b.in.Decref(a)
		}
		if err != nil {
			return nil, nil, err
		}
		rt, ok := r.(*Tensor)
		if !ok || rt.T == nil {
			c.b.in.Decref(r)
			return nil, nil, c.b.notModelled("a reentrant checkpoint whose function returns other than one tensor")
		}
		return rt.T, func() { c.b.in.Decref(r) }, nil
	}, c.keep(append(others, seg.hold...)))
	if err != nil {
		c.b.in.Decref(v)
		return nil, c.b.pyErr(err)
	}
	return v, nil
}

// sequential is checkpoint_sequential(functions, segments, input): the
// functions (a Sequential's children, or a list) cut into segments of
// len // segments, each but the last checkpointed.
func (c *checkpointer) sequential(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	o, rest, err := c.options(kw, warnSequential, false)
	if err != nil {
		return nil, err
	}
	var unexpected []eval.KeywordArg
	for _, k := range rest {
		if !slices.Contains([]string{"functions", "segments", "input"}, k.Name) {
			unexpected = append(unexpected, k)
		}
	}
	if len(unexpected) > 0 {
		return nil, in.Raise(eval.ValueErrorType, "Unexpected keyword arguments: %s", kwNames(unexpected))
	}
	a, err := in.ArgSpec("checkpoint_sequential", args, rest, 3, "functions", "segments", "input")
	if err != nil {
		return nil, err
	}
	fns, err := c.functionList(a[0])
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, f := range fns {
			in.Decref(f)
		}
	}()
	segments, err := in.Index(a[1])
	if err != nil {
		return nil, err
	}
	var size int64
	switch {
	case segments == 0:
		return nil, in.Raise(eval.ZeroDivisionErrorType, "integer division or modulo by zero")
	case segments > 0:
		size = int64(len(fns)) / segments
		if size == 0 {
			return nil, in.Raise(eval.ValueErrorType, "range() arg 3 must not be zero")
		}
	} // fewer than none: Python's range is empty, nothing is checkpointed
	run := func(start, end int64) segmentFn {
		return func(x []eval.Value) (eval.Value, error) {
			cur := x[0]
			eval.Incref(cur)
			for j := start; j <= end; j++ {
				nxt, err := in.Call(fns[j], []eval.Value{cur}, nil)
				in.Decref(cur)
				if err != nil {
					return nil, err
				}
				cur = nxt
			}
			return cur, nil
		}
	}
	input := a[2]
	eval.Incref(input)
	end := int64(-1)
	for start := int64(0); start < size*(segments-1); start += size {
		end = start + size - 1
		next, err := c.run(o, segment{call: run(start, end), hold: fns[start : end+1]}, []eval.Value{input}, false)
		in.Decref(input)
		if err != nil {
			return nil, err
		}
		input = next
	}
	out, err := run(end+1, int64(len(fns))-1)([]eval.Value{input})
	in.Decref(input)
	return out, err
}

// functionList is checkpoint_sequential's functions as a list of owned
// references: a Sequential's children, or the items of a sequence.
func (c *checkpointer) functionList(v eval.Value) ([]eval.Value, error) {
	in := c.b.in
	if o, ok := isModule(v); ok && isSequential(o.Type()) {
		ch, err := in.CallMethod(v, "children")
		if err != nil {
			return nil, err
		}
		defer in.Decref(ch)
		v = ch
	}
	var fns []eval.Value
	err := in.ForEach(v, func(f eval.Value) error {
		eval.Incref(f)
		fns = append(fns, f)
		return nil
	})
	return fns, err
}

// isSequential reports whether cls is torch.nn.Sequential or a subclass.
func isSequential(cls *eval.Class) bool {
	for _, c := range cls.MRO {
		if c.Name == "Sequential" && strings.HasPrefix(c.Module, "torch.nn") {
			return true
		}
	}
	return false
}
