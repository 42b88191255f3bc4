package torchpy

import (
	"errors"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// conversion is what Module._apply does to each tensor: a device (nil:
// where it is) and a dtype for floating-point tensors (nil: theirs).
type conversion struct {
	dev *engine.Device
	dt  *engine.DType
	// empty makes each tensor new and uninitialised on dev instead
	// (Module.to_empty: torch.empty_like(t, device=dev)).
	empty bool
	// shape is what the method's Python makes for CPython's collector
	shape applyShape
}

func floating(dt engine.DType) bool {
	switch dt.Name {
	case "float16", "bfloat16", "float32", "float64":
		return true
	}
	return false
}

// target is where and as what t goes.
func (c conversion) target(t *engine.Tensor) (engine.Device, func(engine.DType) engine.DType) {
	dev := t.Device()
	if c.dev != nil {
		dev = *c.dev
	}
	return dev, func(d engine.DType) engine.DType {
		if c.dt != nil && floating(d) {
			return *c.dt
		}
		return d
	}
}

// changes says whether fn(t) makes a new tensor: the method returns t
// itself where t is already on the device with the dtype asked for.
func (c conversion) changes(t *engine.Tensor) bool {
	dev, dt := c.target(t)
	return c.empty || dev != t.Device() || dt(t.DType) != t.DType
}

// convert is Module._apply(fn): the children's trees first, then the
// module's parameters (each one's data replaced, then its .grad's), then
// its buffers (each replaced in _buffers by the converted one); a
// recurrent layer then flattens its weights again (RNNBase._apply ends
// with _init_flat_weights). What its Python makes for CPython's
// collector is made as it runs (module_apply_python.go).
func (b *Binding) convert(o *eval.Instance, c conversion) error {
	h := heldObjects{in: b.in}
	defer h.free()
	if err := b.applyEnter(&h); err != nil {
		return err
	}
	if err := b.childrenPython(o, func(m *eval.Instance) error { return b.convert(m, c) }); err != nil {
		return err
	}
	if err := b.applyHelper(&h); err != nil {
		return err
	}
	if err := b.convertParams(o, c, &h); err != nil {
		return err
	}
	if err := b.convertBuffers(o, c); err != nil {
		return err
	}
	if o.Type().Lookup("_init_flat_weights") == nil {
		return nil
	}
	r, err := b.in.CallMethod(o, "_init_flat_weights")
	if err == nil {
		b.in.Decref(r)
	}
	return err
}

// tensorItems are the tensors of registry d (None skipped) and their
// names, in order.
func tensorItems(d *eval.Dict) ([]string, []*Tensor) {
	var names []string
	var ts []*Tensor
	d.Items(func(k, v eval.Value) bool {
		if t, ok := v.(*Tensor); ok {
			names, ts = append(names, k.(string)), append(ts, t)
		}
		return true
	})
	return names, ts
}

// convertParams is _apply's loop over the module's parameters: each
// converted under no_grad (param_applied = fn(param)), then
// compute_should_use_set_data and is_traceable_wrapper_subclass, then
// its .grad the same way; the last param_applied and grad_applied stay
// in the frame h until _apply returns.
func (b *Binding) convertParams(o *eval.Instance, c conversion, h *heldObjects) error {
	ps := sub(o, "_parameters")
	if ps == nil {
		return nil
	}
	names, params := tensorItems(ps)
	loop := heldObjects{in: b.in}
	defer loop.free()
	b.itemsLoop(&loop)
	var applied, gradApplied eval.Value
	defer func() {
		for _, v := range []eval.Value{applied, gradApplied} {
			if v != nil {
				h.add(v)
			}
		}
	}()
	for i, p := range params {
		// the .grad as it is before the conversion, which converts both
		grad, gradChanges := b.S.Grad(p.T), false
		if grad != nil {
			gradChanges = c.changes(grad)
			b.S.Release(grad)
		}
		err := b.noGradPython(func() error {
			return b.fnPython(c, c.changes(p.T), &applied, func() error { return b.convertParam(ps, names[i], p, c) })
		})
		if err == nil {
			err = b.shouldUseSetData()
		}
		if err == nil {
			err = b.in.Check() // is_traceable_wrapper_subclass(param_applied)
		}
		if err == nil && b.overwriteParams {
			// Parameter(param_applied, param.requires_grad): the class
			// call's argument pair, its __new__
			b.in.Decref(nones(b.in, 2))
			err = b.in.Check()
		}
		if err == nil && grad != nil {
			err = b.noGradPython(func() error {
				return b.fnPython(c, gradChanges, &gradApplied, func() error { return nil })
			})
			if err == nil {
				err = b.shouldUseSetData()
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// convertParam converts parameter p of registry ps, named name, and its
// .grad: in place (param.data = param_applied), or under
// set_overwrite_module_params_on_conversion(True) as a new Parameter.
func (b *Binding) convertParam(ps *eval.Dict, name string, p *Tensor, c conversion) error {
	if b.overwriteParams {
		return b.overwrite(ps, name, p, c)
	}
	dev, dt := c.target(p.T)
	var err error
	if c.empty {
		err = b.S.EmptyParameter(p.T, dev)
	} else {
		err = b.S.ConvertParameter(p.T, dev, dt)
	}
	if errors.Is(err, engine.ErrNoData) {
		return b.in.Raise(eval.NotImplementedErrType, "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module from meta to a different device.")
	}
	if err != nil {
		return b.pyErr(err)
	}
	return nil
}

// convertBuffers is _apply's loop over the module's buffers: each
// replaced in _buffers by fn(buf).
func (b *Binding) convertBuffers(o *eval.Instance, c conversion) error {
	bs := sub(o, "_buffers")
	if bs == nil {
		return nil
	}
	names, bufs := tensorItems(bs)
	loop := heldObjects{in: b.in}
	defer loop.free()
	b.itemsLoop(&loop)
	for i, t := range bufs {
		var out eval.Value
		err := b.fnPython(c, c.changes(t.T), &out, func() error {
			dev, dt := c.target(t.T)
			var n *engine.Tensor
			var err error
			if c.empty {
				n, err = b.S.EmptyLike(t.T, dev)
			} else {
				n, err = b.S.Convert(t.T, dev, dt(t.T.DType))
			}
			if err != nil {
				return b.pyErr(err)
			}
			b.in.PutStr(bs, names[i], b.wrap(n), "old ."+names[i])
			return nil
		})
		if out != nil {
			b.in.Decref(out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// overwrite is Module._apply's parameter p (named name in ps) under
// set_overwrite_module_params_on_conversion(True): converted without a
// graph it becomes a new Parameter in _parameters (its .grad converted
// too); the old object keeps its storage while something holds it.
func (b *Binding) overwrite(ps *eval.Dict, name string, p *Tensor, c conversion) error {
	dev, dt := c.target(p.T)
	prev := b.S.SetGradEnabled(false)
	n, err := b.S.Convert(p.T, dev, dt(p.T.DType))
	var g, oldGrad = (*Tensor)(nil), b.S.Grad(p.T)
	if err == nil && oldGrad != nil {
		var gt = oldGrad
		gt, err = b.S.Convert(oldGrad, dev, dt(oldGrad.DType))
		if err == nil {
			g = b.wrap(gt)
		}
	}
	b.S.SetGradEnabled(prev)
	if err != nil {
		return b.pyErr(err)
	}
	if p.T.RequiresGrad() {
		if err := b.S.SetRequiresGrad(n); err != nil {
			return b.pyErr(err)
		}
	}
	np := b.newParam(n)
	if g != nil {
		err = b.S.SetGrad(np.T, g.T)
		b.in.Decref(g)
		if err != nil {
			b.in.Decref(np)
			return b.pyErr(err)
		}
	}
	b.in.PutStr(ps, name, np, "old ."+name)
	return nil
}

// toArgs reads Module.to's arguments: to(device), to(dtype),
// to(device, dtype), to(tensor), device= and dtype= (non_blocking
// changes nothing here).
func (b *Binding) toArgs(args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
	var c conversion
	vals := append([]eval.Value{}, args...)
	for _, k := range kw {
		switch k.Name {
		case "device", "dtype":
			if k.Value != eval.None {
				vals = append(vals, k.Value)
			}
		case "non_blocking":
		default:
			return c, b.in.Raise(eval.TypeErrorType, "to() received an invalid combination of arguments: '%s'", k.Name)
		}
	}
	for _, v := range vals {
		switch x := v.(type) {
		case *DTypeObj:
			if !floating(x.D) {
				return c, b.in.Raise(eval.TypeErrorType, "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.%s", x.D.Name)
			}
			c.dt = &x.D
		case *Tensor:
			d, dt := x.T.Device(), x.T.DType
			c.dev, c.dt = &d, &dt
		case bool:
		default:
			d, err := b.deviceArg(v)
			if err != nil {
				return c, err
			}
			c.dev = &d
		}
	}
	return c, nil
}

// conversions declares to, cuda, cpu, half, float, double and bfloat16.
func conversions(m *eval.Class) {
	declare := func(name string, shape applyShape, read func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error)) {
		modMethod(m, name, name+"()", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			c, err := read(b, args, kw)
			if err != nil {
				return nil, err
			}
			c.shape = shape
			if c.dev != nil {
				if err := b.cudaStarts(*c.dev); err != nil {
					return nil, err
				}
			}
			if err := b.conversionPython(shape, len(args), func() error { return b.convert(o, c) }); err != nil {
				return nil, err
			}
			eval.Incref(o)
			return o, nil
		})
	}
	declare("to", toShape, (*Binding).toArgs)
	declare("cuda", cudaShape, func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
		d := engine.Device{CUDA: true, Index: b.S.CurrentDevice()}
		v := eval.Kwarg(kw, "device")
		if len(args) > 0 {
			v = args[0]
		}
		if v != nil && v != eval.None {
			var err error
			if d, err = b.deviceArg(v); err != nil {
				return conversion{}, err
			}
		}
		return conversion{dev: &d}, nil
	})
	declare("to_empty", toEmptyShape, func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
		a, err := b.in.ArgSpec("to_empty", args, kw, 1, "device", "recurse")
		if err != nil {
			return conversion{}, err
		}
		if recurse, err := b.boolArg(a[1], true); err != nil || !recurse {
			if err == nil {
				err = b.notModelled("Module.to_empty(recurse=False)")
			}
			return conversion{}, err
		}
		d, err := b.deviceArg(a[0])
		return conversion{dev: &d, empty: true}, err
	})
	declare("cpu", castShape, func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
		d := engine.CPU
		return conversion{dev: &d}, b.arity("cpu", args, 0)
	})
	for name, dt := range map[string]string{"half": "float16", "float": "float32", "double": "float64", "bfloat16": "bfloat16"} {
		d := engine.DTypes[dt]
		declare(name, castShape, func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
			return conversion{dt: &d}, b.arity(name, args, 0)
		})
	}
}
