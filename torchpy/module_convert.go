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

// convert is Module._apply(fn): the children's trees first, then the
// module's parameters (each one's data replaced, then its .grad's), then
// its buffers (each replaced in _buffers by the converted one); a
// recurrent layer then flattens its weights again (RNNBase._apply ends
// with _init_flat_weights).
func (b *Binding) convert(o *eval.Instance, c conversion) error {
	if err := b.convertTensors(o, c); err != nil {
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

// convertTensors is convert of the module's tree and its own tensors.
func (b *Binding) convertTensors(o *eval.Instance, c conversion) error {
	for _, ch := range children(o) {
		if err := b.convert(ch.m, c); err != nil {
			return err
		}
	}
	if ps := sub(o, "_parameters"); ps != nil && b.overwriteParams {
		if err := b.overwrite(ps, c); err != nil {
			return err
		}
	} else if ps != nil {
		var err error
		ps.Items(func(_, v eval.Value) bool {
			if t, ok := v.(*Tensor); ok {
				dev, dt := c.target(t.T)
				if c.empty {
					err = b.S.EmptyParameter(t.T, dev)
				} else {
					err = b.S.ConvertParameter(t.T, dev, dt)
				}
			}
			return err == nil
		})
		if errors.Is(err, engine.ErrNoData) {
			return b.in.Raise(eval.NotImplementedErrType, "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module from meta to a different device.")
		}
		if err != nil {
			return b.pyErr(err)
		}
	}
	bs := sub(o, "_buffers")
	if bs == nil {
		return nil
	}
	var names []string
	var bufs []*Tensor
	bs.Items(func(k, v eval.Value) bool {
		if t, ok := v.(*Tensor); ok {
			names, bufs = append(names, k.(string)), append(bufs, t)
		}
		return true
	})
	for i, t := range bufs {
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
	}
	return nil
}

// overwrite is Module._apply's parameters under
// set_overwrite_module_params_on_conversion(True): each parameter
// converted without a graph becomes a new Parameter in _parameters (its
// .grad converted too); the old object keeps its storage while
// something holds it.
func (b *Binding) overwrite(ps *eval.Dict, c conversion) error {
	var names []string
	var params []*Tensor
	ps.Items(func(k, v eval.Value) bool {
		if t, ok := v.(*Tensor); ok {
			names, params = append(names, k.(string)), append(params, t)
		}
		return true
	})
	for i, p := range params {
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
		b.in.PutStr(ps, names[i], np, "old ."+names[i])
	}
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
	declare := func(name string, read func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error)) {
		modMethod(m, name, name+"()", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			c, err := read(b, args, kw)
			if err != nil {
				return nil, err
			}
			if c.dev != nil {
				if err := b.cudaStarts(*c.dev); err != nil {
					return nil, err
				}
			}
			if err := b.convert(o, c); err != nil {
				return nil, err
			}
			eval.Incref(o)
			return o, nil
		})
	}
	declare("to", (*Binding).toArgs)
	declare("cuda", func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
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
	declare("to_empty", func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
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
	declare("cpu", func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
		d := engine.CPU
		return conversion{dev: &d}, b.arity("cpu", args, 0)
	})
	for name, dt := range map[string]string{"half": "float16", "float": "float32", "double": "float64", "bfloat16": "bfloat16"} {
		d := engine.DTypes[dt]
		declare(name, func(b *Binding, args []eval.Value, kw []eval.KeywordArg) (conversion, error) {
			return conversion{dt: &d}, b.arity(name, args, 0)
		})
	}
}
