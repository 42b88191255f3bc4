package torchpy

import (
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// The engine's op table as Python: every entry's torch function, Tensor
// method, in-place method and operators are declared by walking
// engine.Ops (and the general rule's entries for the names it lacks),
// and their arguments bound to the entry's Params.

func init() {
	for _, d := range tableOps() {
		doc := d.Signature() + ": " + d.Memory
		if d.Method {
			method(d.Name, doc, func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
				t, err := self(in, s)
				if err != nil {
					return nil, err
				}
				return t.b.call(d, append([]eval.Value{t}, args...), kw)
			})
		}
		for _, u := range d.Dunders {
			method(u.Name, doc, func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
				t, err := self(in, s)
				if err != nil {
					return nil, err
				}
				if err := t.b.arity(u.Name, args, min(len(d.Params)-1, 1)); err != nil {
					return nil, err
				}
				if len(args) == 0 { // -t
					return t.b.run(d, engine.Args{t.T})
				}
				return t.b.operator(d, t, args[0], u.Reflected)
			})
		}
		if d.InPlace == "" {
			continue
		}
		for _, n := range append([]string{d.InPlace}, d.InPlaceDunders...) {
			method(n, doc, func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
				t, err := self(in, s)
				if err != nil {
					return nil, err
				}
				return t.b.callInPlace(d, n, t, args, kw)
			})
		}
	}
}

// The Tensor methods of engine.NotModelled raise NotImplementedError.
func init() {
	for _, name := range engine.NotModelled {
		if m, ok := strings.CutPrefix(name, "Tensor."); ok {
			method(m, "not modelled", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
				t, err := self(in, s)
				if err != nil {
					return nil, err
				}
				return nil, t.b.pyErr(engine.NotModelledError(name))
			})
		}
	}
}

// opFunctions declares the table's torch functions in module m, and
// those of engine.NotModelled.
func (b *Binding) opFunctions(m *eval.ModuleObj) {
	for _, name := range engine.NotModelled {
		if f, ok := strings.CutPrefix(name, "torch."); ok {
			b.fn(m, f, "not modelled", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
				return nil, b.pyErr(engine.NotModelledError(name))
			})
		}
	}
	for _, d := range tableOps() {
		if !d.Function {
			continue
		}
		b.fn(m, d.Name, d.Signature()+": "+d.Memory, func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return b.call(d, args, kw)
		})
	}
}

// tableOps are the op table's entries, then the general rule's for the
// names the table lacks (engine.GeneralOps: estimated at each run).
func tableOps() []*engine.OpDef { return append(engine.OpList(), engine.GeneralOps()...) }

// opFunctional declares the table's torch.nn.functional functions in
// module f (over what nn.go declares there).
func (b *Binding) opFunctional(f *eval.ModuleObj) {
	for _, d := range engine.OpList() {
		if d.Functional {
			b.fn(f, d.Name, d.Signature()+": "+d.Memory, func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
				return b.call(d, args, kw)
			})
		}
	}
}

// call runs op d on Python arguments (a method's receiver first).
func (b *Binding) call(d *engine.OpDef, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	if o := overloads[d.Name]; o != nil {
		var err error
		if args, kw, err = o(b, args, kw); err != nil {
			return nil, err
		}
	}
	a, err := b.bind(d, d.Name, args, kw)
	if err != nil {
		return nil, err
	}
	return b.runBound(d, a, args)
}

// runBound runs op d on a, bound from the Python arguments args: its
// output, a view of args[0] where it shares that tensor's storage, or
// args[0] itself where the op returned its input.
func (b *Binding) runBound(d *engine.OpDef, a engine.Args, args []eval.Value) (eval.Value, error) {
	if d.Tuple() {
		ts, isTuple, err := b.S.RunTuple(d, a)
		if err == nil {
			err = b.opWarnings()
		}
		if err != nil {
			return nil, b.pyErr(err)
		}
		if !isTuple {
			return b.wrap(ts[0]), nil
		}
		items := make([]eval.Value, len(ts))
		for i, t := range ts {
			items[i] = eval.None // an output the op does not make (_native_multi_head_attention's weights)
			if t != nil {
				items[i] = b.result(b.wrap(t), args)
			}
		}
		if d.ReturnType != "" {
			return b.namedTuple(d.ReturnType, items)
		}
		return b.in.NewTuple(items), nil
	}
	r, err := b.S.Run(d, a)
	if err == nil {
		err = b.opWarnings()
	}
	if err != nil {
		return nil, b.pyErr(err)
	}
	if t, ok := args[0].(*Tensor); ok && r == t.T { // the op returned its input
		eval.Incref(t)
		return t, nil
	}
	if d.Detached {
		return b.wrap(r), nil
	}
	return b.result(b.wrap(r), args), nil
}

// opWarnings issues what the op warned, as PyTorch's TORCH_WARN does:
// a UserWarning each, at the Python line that called it.
func (b *Binding) opWarnings() error {
	for _, w := range b.S.TakeWarnings() {
		if err := b.in.Warn(eval.UserWarningType, w, 1); err != nil {
			return err
		}
	}
	return nil
}

// result is an op's new output r: a view of its first argument where it
// shares that tensor's storage.
func (b *Binding) result(r *Tensor, args []eval.Value) *Tensor {
	if t, ok := args[0].(*Tensor); ok && t.T != nil {
		return viewOf(r, t)
	}
	return r
}

// callInPlace runs d's in-place variant, called as name, on t: t
// itself, written.
func (b *Binding) callInPlace(d *engine.OpDef, name string, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	a, err := b.bind(d, name, append([]eval.Value{t}, args...), kw)
	if err != nil {
		return nil, err
	}
	if err := b.S.RunInPlace(d, a); err != nil {
		return nil, b.pyErr(err)
	}
	eval.Incref(t)
	return t, nil
}

// operator runs t op other (other op t when reflected); NotImplemented
// when other is neither a tensor nor a number the op takes, so Python
// tries the other operand's method.
func (b *Binding) operator(d *engine.OpDef, t *Tensor, other eval.Value, reflected bool) (eval.Value, error) {
	var o any
	if d.Params[1].Kind == engine.NumberParam {
		if _, ok := number(other); !ok {
			return eval.NotImplemented, nil
		}
		o = other
	} else {
		ot, ok := b.operand(d.Params[1], other)
		if !ok {
			return eval.NotImplemented, nil
		}
		o = ot
	}
	a := make(engine.Args, len(d.Params))
	a[0], a[1] = t.T, o
	if reflected {
		a[0], a[1] = o, t.T
	}
	for i := 2; i < len(a); i++ {
		a[i] = d.Params[i].DefaultValue()
	}
	return b.run(d, a)
}

// operand is v as the tensor parameter p: the tensor, or Scalar() for
// a number where p takes one.
func (b *Binding) operand(p engine.Param, v eval.Value) (*engine.Tensor, bool) {
	switch x := v.(type) {
	case *Tensor:
		return x.T, x.T != nil
	case int64:
		return engine.ScalarOf(float64(x), false), p.Kind == engine.OperandParam
	case bool:
		return engine.BoolOf(x), p.Kind == engine.OperandParam
	case float64:
		return engine.ScalarOf(x, true), p.Kind == engine.OperandParam
	}
	return nil, false
}

// run runs a bound op and wraps its output.
func (b *Binding) run(d *engine.OpDef, a engine.Args) (eval.Value, error) {
	r, err := b.S.Run(d, a)
	if err != nil {
		return nil, b.pyErr(err)
	}
	return b.wrap(r), nil
}

// bind binds Python arguments to d's Params, as PyTorch's argument
// parser does: by position or keyword, defaults for the rest, each
// checked against its kind.
func (b *Binding) bind(d *engine.OpDef, name string, args []eval.Value, kw []eval.KeywordArg) (engine.Args, error) {
	names := make([]string, len(d.Params))
	required := 0
	for i, p := range d.Params {
		names[i] = p.Name
		if p.Default == "" {
			required = i + 1
		}
	}
	positional := 0 // the parameters before *
	for _, p := range d.Params {
		if !p.KeywordOnly {
			positional++
		}
	}
	if last := positional - 1; last >= 0 && d.Params[last].Default == "" && varargs(d.Params[last].Kind, args, positional) {
		// *dims, *operands: the ints or tensors after the other arguments,
		// in a tuple that goes as the call returns, as CPython's
		// argument tuple does (back to its free list)
		items := slices.Clone(args[last:])
		for _, v := range items {
			eval.Incref(v)
		}
		rest := b.in.NewTuple(items)
		defer b.in.Decref(rest)
		args = append(args[:last:last], rest)
	}
	if len(args) > positional {
		return nil, b.in.Raise(eval.TypeErrorType, "%s() takes %d positional arguments but %d were given", name, positional, len(args))
	}
	vs, err := b.in.ArgSpec(name, args, kw, required, names...)
	if err != nil {
		return nil, err
	}
	a := make(engine.Args, len(d.Params))
	var first *Tensor
	for i, p := range d.Params {
		v := vs[i]
		if v == nil {
			a[i] = p.DefaultValue()
			continue
		}
		if v == eval.None && p.Default == "None" {
			continue
		}
		switch p.Kind {
		case engine.TensorParam, engine.OperandParam:
			t, ok := b.operand(p, v)
			if !ok {
				return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument '%s' (position %d) must be Tensor, not %s", name, p.Name, i+1, eval.TypeOf(v).Name)
			}
			if tt, isT := v.(*Tensor); isT && first == nil {
				first = tt
			}
			a[i] = t
		case engine.NumberParam, engine.NumberOrStringParam:
			if str, ok := v.(string); ok && p.Kind == engine.NumberOrStringParam {
				a[i] = str
				continue
			}
			f, ok := number(v)
			switch v.(type) {
			case int64, float64, bool:
				a[i] = v
			default:
				a[i] = f
			}
			if !ok {
				return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument '%s' must be Number, not %s", name, p.Name, eval.TypeOf(v).Name)
			}
		case engine.IntParam:
			n, err := b.in.Index(v)
			if err != nil {
				return nil, err
			}
			a[i] = n
		case engine.DimParam:
			dim, err := b.dim(first, v)
			if err != nil {
				return nil, err
			}
			a[i] = int64(dim)
		case engine.PaddingParam:
			if str, ok := v.(string); ok {
				a[i] = str
				continue
			}
			dims, err := b.intsOf(name, v)
			if err != nil {
				return nil, err
			}
			a[i] = dims
		case engine.DimsParam:
			dims, err := b.intsOf(name, v)
			if p.Name == "size" { // a shape, checked as PyTorch checks sizes
				dims, err = b.shapeArgs(name, []eval.Value{v})
			}
			if err != nil {
				return nil, err
			}
			a[i] = dims
		case engine.TensorsParam:
			var ts []*engine.Tensor
			if err := b.in.ForEach(v, func(x eval.Value) error {
				t, err := b.tensorOf(x, name)
				if err == nil {
					ts = append(ts, t.T)
				}
				return err
			}); err != nil {
				return nil, err
			}
			a[i] = ts
		case engine.DTypeParam:
			dt, ok := v.(*DTypeObj)
			if !ok {
				return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument '%s' must be torch.dtype, not %s", name, p.Name, eval.TypeOf(v).Name)
			}
			a[i] = dt.D
		case engine.DeviceParam:
			dev, err := b.deviceArg(v)
			if err == nil {
				err = b.cudaStarts(dev)
			}
			if err != nil {
				return nil, err
			}
			a[i] = dev
		case engine.BoolParam:
			t, err := b.in.Truth(v)
			if err != nil {
				return nil, err
			}
			a[i] = t

		case engine.DataParam:
			shape, vals, kind, err := b.data(v)
			if err != nil {
				return nil, err
			}
			a[i] = engine.Data{Shape: shape, Values: vals, DType: map[int]engine.DType{kindBool: engine.DTypes["bool"], kindInt: engine.DTypes["int64"], kindFloat: engine.Float32}[kind]}
		case engine.MemoryFormatParam:
			f, ok := v.(*memoryFormatObj)
			if !ok {
				return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument '%s' must be torch.memory_format, not %s", name, p.Name, eval.TypeOf(v).Name)
			}
			a[i] = f.F
		case engine.GeneratorParam:
			// a torch.Generator (generator.py): the op checks its device
			if eval.TypeOf(v).Name != "Generator" {
				return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument '%s' must be torch.Generator, not %s", name, p.Name, eval.TypeOf(v).Name)
			}
			dv, err := b.in.GetAttr(v, "device")
			if err != nil {
				return nil, err
			}
			dev, err := b.deviceArg(dv)
			b.in.Decref(dv)
			if err != nil {
				return nil, err
			}
			a[i] = dev
		case engine.StringParam:
			str, ok := v.(string)
			if !ok {
				return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument '%s' must be str, not %s", name, p.Name, eval.TypeOf(v).Name)
			}
			a[i] = str
		}
	}
	return a, nil
}

// varargs reports whether args give a last parameter of kind k, the
// positional-th, as separate values: ints for dimensions, or tensors
// (einsum's operands, one of them a tensor alone).
func varargs(k engine.ParamKind, args []eval.Value, positional int) bool {
	switch k {
	case engine.DimsParam:
		return len(args) > positional
	case engine.TensorsParam:
		if len(args) == positional {
			_, one := args[positional-1].(*Tensor)
			return one
		}
		return len(args) > positional
	}
	return false
}

// intsOf is an int or a sequence of ints.
func (b *Binding) intsOf(fn string, v eval.Value) ([]int64, error) {
	if n, ok := v.(int64); ok {
		return []int64{n}, nil
	}
	var out []int64
	err := b.in.ForEach(v, func(x eval.Value) error {
		n, err := b.in.Index(x)
		out = append(out, n)
		return err
	})
	if err != nil {
		return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument 'dims' must be tuple of ints, not %s", fn, eval.TypeOf(v).Name)
	}
	return out, nil
}
