package torchpy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// Optimizer is a torch.optim optimizer: its param_groups (a Python list
// of dicts, as PyTorch keeps them: a step reads each group's options
// from its dict, so a scheduler's or a user's change counts), its
// defaults, and the engine's state, freed when the optimizer dies
// (before its groups, as PyTorch's __dict__ holds state first).
type Optimizer struct {
	eval.Header
	cls      *eval.Class
	groups   *eval.List
	defaults *eval.Dict
	// py is what PyTorch's optimizer keeps of Python objects beside
	// them (optim_python.go): its hooks' registries and its state.
	py optimizerPython
	// stepWrapper is the wrapper of step a scheduler made
	// (lr_scheduler.py), which PyTorch keeps as the optimizer's step;
	// optCalled is set once the optimizer stepped after it was made.
	stepWrapper eval.Value
	optCalled   bool
	o           *engine.Optimizer
	b           *Binding
}

// The optimizer classes, over torch.optim.Optimizer (which isinstance
// and annotations name; it makes no optimizer itself).
var (
	OptimizerType = eval.NewClass("Optimizer", "torch.optim.optimizer")
	SGDType       = eval.NewClass("SGD", "torch.optim.sgd", OptimizerType)
	AdamType      = eval.NewClass("Adam", "torch.optim.adam", OptimizerType)
	AdamWType     = eval.NewClass("AdamW", "torch.optim.adamw", OptimizerType)
	RMSpropType   = eval.NewClass("RMSprop", "torch.optim.rmsprop", OptimizerType)
	// optimizerClasses are the optimizers modelled, in torch.optim's
	// order of definition here.
	optimizerClasses = []*eval.Class{SGDType, AdamType, AdamWType, RMSpropType}
)

// Type is the optimizer's class.
func (o *Optimizer) Type() *eval.Class { return o.cls }

// Traverse visits the groups, the defaults and the Python objects kept
// beside them.
func (o *Optimizer) Traverse(visit func(eval.Value)) {
	if o.groups != nil {
		visit(o.groups)
	}
	if o.defaults != nil {
		visit(o.defaults)
	}
	o.py.traverse(visit)
	if o.stepWrapper != nil {
		visit(o.stepWrapper)
	}
}

// Clear drops the groups, the defaults and the objects kept beside them.
func (o *Optimizer) Clear(in *eval.Interp) {
	g, d, w := o.groups, o.defaults, o.stepWrapper
	o.groups, o.defaults, o.stepWrapper = nil, nil, nil
	o.py.clear(in)
	if w != nil {
		in.Decref(w)
	}
	if d != nil {
		in.Decref(d)
	}
	if g != nil {
		in.Decref(g)
	}
}

// Finalize frees the optimizer's state (before its groups go).
func (o *Optimizer) Finalize(in *eval.Interp) {
	if o.o != nil {
		o.b.S.FreeOptimizer(o.o)
		o.o = nil
	}
}

func optSelf(in *eval.Interp, v eval.Value) (*Optimizer, error) {
	o, ok := v.(*Optimizer)
	if !ok || o.o == nil || o.groups == nil {
		return nil, in.Raise(eval.TypeErrorType, "an optimizer method needs an optimizer")
	}
	return o, nil
}

// optMethod declares a method of the optimizer classes.
func optMethod(name, doc string, fn func(o *Optimizer, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error)) {
	for _, c := range optimizerClasses {
		c.SetMethod(eval.NewBuiltin(name, doc, func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			o, err := optSelf(in, s)
			if err != nil {
				return nil, err
			}
			return fn(o, args, kw)
		}))
	}
}

// optProperty declares a read-only attribute of the optimizer classes.
func optProperty(name string, get func(o *Optimizer) (eval.Value, error)) {
	for _, c := range optimizerClasses {
		c.SetAttr(name, eval.NewProperty(eval.NewBuiltin(name, "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			o, err := optSelf(in, s)
			if err != nil {
				return nil, err
			}
			return get(o)
		}), nil))
	}
}

func init() {
	optMethod("step", "step()", func(o *Optimizer, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) > 0 || len(kw) > 0 {
			return nil, o.b.notModelled("step(closure)")
		}
		groups, err := o.engineGroups()
		if err != nil {
			return nil, err
		}
		var withGrad []*Tensor
		for _, g := range o.groupDicts() {
			for _, p := range groupParams(g) {
				if p.T.HasGrad() {
					withGrad = append(withGrad, p)
				}
			}
		}
		return eval.None, o.b.stepPython(o, withGrad, func() error { return o.b.pyErr(o.b.S.Step(o.o, groups)) })
	})
	optMethod("zero_grad", "zero_grad(set_to_none=True)", func(o *Optimizer, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		toNone, err := o.b.setToNone(args, kw)
		if err != nil {
			return nil, err
		}
		var ps []*engine.Tensor
		for _, g := range o.groupDicts() {
			ps = append(ps, engineTensors(groupParams(g))...)
		}
		return eval.None, o.b.zeroGradPython(ps, toNone, func() { o.b.S.ZeroGrad(ps, toNone) })
	})
	optMethod("add_param_group", "add_param_group(param_group)", func(o *Optimizer, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) != 1 || len(kw) > 0 {
			return nil, o.b.in.Raise(eval.TypeErrorType, "add_param_group() takes one dict")
		}
		return eval.None, o.b.addParamGroup(o, args[0])
	})
	optMethod("state_dict", "state_dict(): references to the state, no copies", func(o *Optimizer, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return o.b.optStateDict(o)
	})
	optMethod("__repr__", "", func(o *Optimizer, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return o.repr(), nil
	})
	optMethod("load_state_dict", "load_state_dict(state_dict): the saved groups' options replace the groups' own; nothing allocated. A state that holds tensors (on either side) is not modelled", func(o *Optimizer, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := o.b.in.ArgSpec("load_state_dict", args, kw, 1, "state_dict")
		if err != nil {
			return nil, err
		}
		return eval.None, o.b.optLoadStateDict(o, a[0])
	})
	optProperty("param_groups", func(o *Optimizer) (eval.Value, error) {
		eval.Incref(o.groups)
		return o.groups, nil
	})
	optProperty("defaults", func(o *Optimizer) (eval.Value, error) {
		eval.Incref(o.defaults)
		return o.defaults, nil
	})
	optProperty("state", func(o *Optimizer) (eval.Value, error) {
		return o.b.optState(o, func(p *Tensor) eval.Value { eval.Incref(p); return p })
	})
}

// setToNone reads zero_grad's set_to_none argument (default True).
func (b *Binding) setToNone(args []eval.Value, kw []eval.KeywordArg) (bool, error) {
	a, err := b.in.ArgSpec("zero_grad", args, kw, 0, "set_to_none")
	if err != nil {
		return false, err
	}
	if a[0] == nil {
		return true, nil
	}
	return b.in.Truth(a[0])
}

func (b *Binding) optimModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.optim")
	m.Set(in, "Optimizer", OptimizerType)
	b.adamBetas = in.NewTuple([]eval.Value{0.9, 0.999})
	for _, c := range optimizerClasses {
		m.Set(in, c.Name, c)
		c.New = func(in *eval.Interp, cls *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return b.newOptimizer(cls, args, kw)
		}
		c.SetAttr("__signature_params__", b.signatureParams(c))
	}
	for _, name := range []string{"Adagrad", "LBFGS", "Adafactor", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "SparseAdam", "Muon"} {
		b.fn(m, name, "not modelled yet", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return nil, b.notModelled("torch.optim." + name)
		})
	}
	sched, err := b.lrSchedulerModule(in)
	if err != nil {
		return nil, err
	}
	in.AddModule("torch.optim.lr_scheduler", sched)
	m.Set(in, "lr_scheduler", sched)
	return m, nil
}

// repr is PyTorch's Optimizer.__repr__: each group's options but its
// params, sorted by name.
func (o *Optimizer) repr() string {
	in := o.b.in
	var sb strings.Builder
	sb.WriteString(o.cls.Name + " (")
	for i, g := range o.groupDicts() {
		fmt.Fprintf(&sb, "\nParameter Group %d\n", i)
		var keys []string
		g.Items(func(k, _ eval.Value) bool {
			if name, ok := k.(string); ok && name != "params" {
				keys = append(keys, name)
			}
			return true
		})
		sort.Strings(keys)
		for _, k := range keys {
			v, _ := g.GetStr(k)
			fmt.Fprintf(&sb, "    %s: %s\n", k, in.StrOf(v))
		}
	}
	sb.WriteString(")")
	return sb.String()
}

// signatureParams is cls's constructor as inspect.signature reads a
// class of the tool's: params, then its options by position, then by
// keyword only ((name, kind) and (name, kind, default) tuples).
func (b *Binding) signatureParams(cls *eval.Class) eval.Value {
	in := b.in
	opts, positional := b.optDefaults(cls)
	items := []eval.Value{in.NewTuple([]eval.Value{"params", int64(1)})}
	for i, o := range opts {
		kind := int64(1)
		if i >= positional {
			kind = 3
		}
		items = append(items, in.NewTuple([]eval.Value{o.name, kind, o.def(in)}))
	}
	return in.NewTuple(items)
}
