package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// Optimizer is a torch.optim optimizer: it holds its parameters (a
// Python list of them, as param_groups does) and the engine's state,
// freed when the optimizer dies.
type Optimizer struct {
	eval.Header
	cls    *eval.Class
	params *eval.List
	o      *engine.Optimizer
	b      *Binding
}

// The optimizer classes.
var (
	SGDType   = eval.NewClass("SGD", "torch.optim.sgd")
	AdamType  = eval.NewClass("Adam", "torch.optim.adam")
	AdamWType = eval.NewClass("AdamW", "torch.optim.adamw")
)

// Type is the optimizer's class.
func (o *Optimizer) Type() *eval.Class { return o.cls }

// Traverse visits the parameter list.
func (o *Optimizer) Traverse(visit func(eval.Value)) {
	if o.params != nil {
		visit(o.params)
	}
}

// Clear drops the parameter list.
func (o *Optimizer) Clear(in *eval.Interp) {
	p := o.params
	o.params = nil
	if p != nil {
		in.Decref(p)
	}
}

// Finalize frees the optimizer's state (before its parameter list goes).
func (o *Optimizer) Finalize(in *eval.Interp) {
	if o.o != nil {
		o.b.S.FreeOptimizer(o.o)
		o.o = nil
	}
}

func optSelf(in *eval.Interp, v eval.Value) (*Optimizer, error) {
	o, ok := v.(*Optimizer)
	if !ok || o.o == nil {
		return nil, in.Raise(eval.TypeErrorType, "an optimizer method needs an optimizer")
	}
	return o, nil
}

func init() {
	for _, c := range []*eval.Class{SGDType, AdamType, AdamWType} {
		c.SetMethod(eval.NewBuiltin("step", "step()", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			o, err := optSelf(in, s)
			if err != nil {
				return nil, err
			}
			if len(args) > 0 {
				return nil, o.b.notModelled("step(closure)")
			}
			return eval.None, o.b.pyErr(o.b.S.Step(o.o))
		}))
		c.SetMethod(eval.NewBuiltin("zero_grad", "zero_grad(set_to_none=True)", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			o, err := optSelf(in, s)
			if err != nil {
				return nil, err
			}
			a, err := in.ArgSpec("zero_grad", args, kw, 0, "set_to_none")
			if err != nil {
				return nil, err
			}
			toNone := true
			if a[0] != nil {
				if toNone, err = in.Truth(a[0]); err != nil {
					return nil, err
				}
			}
			o.b.S.ZeroGrad(o.o.Params, toNone)
			return eval.None, nil
		}))
	}
}

func (b *Binding) optimModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.optim")
	for _, c := range []*eval.Class{SGDType, AdamType, AdamWType} {
		m.Set(in, c.Name, c)
		c.New = func(in *eval.Interp, cls *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return b.newOptimizer(cls, args, kw)
		}
	}
	for _, name := range []string{"RMSprop", "Adagrad", "LBFGS", "Adafactor"} {
		b.fn(m, name, "not modelled yet", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return nil, b.notModelled("torch.optim." + name)
		})
	}
	return m, nil
}

// newOptimizer is SGD(params, lr=..., momentum=0), Adam(params, ...) or
// AdamW(params, ...). Options other than momentum change no memory of
// the default implementations and are accepted as they are.
func (b *Binding) newOptimizer(cls *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	in := b.in
	var params eval.Value
	if len(args) > 0 {
		params = args[0]
	} else if params = eval.Kwarg(kw, "params"); params == nil {
		return nil, in.Raise(eval.TypeErrorType, "%s.__init__() missing 1 required positional argument: 'params'", cls.Name)
	}
	momentum := 0.0
	for _, k := range kw {
		switch k.Name {
		case "momentum":
			f, ok := number(k.Value)
			if !ok {
				return nil, in.Raise(eval.TypeErrorType, "momentum must be a number")
			}
			momentum = f
		case "foreach", "fused", "capturable", "differentiable", "amsgrad", "nesterov", "maximize":
			if k.Value != eval.None && k.Value != false {
				return nil, b.notModelled(cls.Name + "(" + k.Name + "=...)")
			}
		}
	}
	if momentum != 0 && cls != SGDType {
		return nil, in.Raise(eval.TypeErrorType, "%s.__init__() got an unexpected keyword argument 'momentum'", cls.Name)
	}
	if len(args) > 1 {
		return nil, b.notModelled(cls.Name + " with positional options")
	}
	var items []eval.Value
	err := in.ForEach(params, func(v eval.Value) error {
		t, ok := v.(*Tensor)
		if !ok {
			return in.Raise(eval.TypeErrorType, "optimizer can only optimize Tensors, but one of the params is %s", in.TypeName(v))
		}
		eval.Incref(t)
		items = append(items, t)
		return nil
	})
	if err != nil {
		for _, it := range items {
			in.Decref(it)
		}
		return nil, err
	}
	if len(items) == 0 {
		return nil, in.Raise(eval.ValueErrorType, "optimizer got an empty parameter list")
	}
	ts := make([]*engine.Tensor, len(items))
	for i, it := range items {
		ts[i] = it.(*Tensor).T
	}
	o := &Optimizer{cls: cls, params: in.NewList(items), b: b}
	o.o = b.S.NewOptimizer(cls.Name, ts, momentum)
	return eval.Track(in, o), nil
}
