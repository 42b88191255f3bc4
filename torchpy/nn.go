package torchpy

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// The nn classes. Module instances are Python instances laid out as
// PyTorch lays them out: __dict__ holds training, _parameters, _buffers
// and _modules first, so a module's tensors are freed in PyTorch's
// order when it dies (its own parameters, then its submodules').
var (
	ModuleType = nnClass("Module", "torch.nn.modules.module", nil)
	LinearType = nnClass("Linear", "torch.nn.modules.linear", ModuleType)
	GELUType   = nnClass("GELU", "torch.nn.modules.activation", ModuleType)
)

func nnClass(name, module string, base *eval.Class) *eval.Class {
	var c *eval.Class
	if base == nil {
		c = eval.NewClass(name, module)
	} else {
		c = eval.NewClass(name, module, base)
	}
	c.Native = false
	c.Subclassable = true
	return c
}

// modMethod declares a method of an nn class whose receiver is an
// instance.
func modMethod(c *eval.Class, name, doc string, fn func(b *Binding, self *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error)) {
	c.SetMethod(eval.NewBuiltin(name, doc, func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		o, ok := s.(*eval.Instance)
		if !ok {
			return nil, in.Raise(eval.TypeErrorType, "%s() needs a Module", name)
		}
		// each is a Python function of PyTorch's: the evaluation loop's
		// check at its start
		if err := in.Check(); err != nil {
			return nil, err
		}
		return fn(bindingOf(in), o, args, kw)
	}))
}

// sub is one of a module's registries (_parameters, _modules), or nil
// before Module.__init__ ran.
func sub(o *eval.Instance, name string) *eval.Dict {
	v, ok := o.Dict.GetStr(name)
	if !ok {
		return nil
	}
	d, _ := eval.DictOf(v) // a dict, or an OrderedDict's
	return d
}

func isModule(v eval.Value) (*eval.Instance, bool) {
	o, ok := v.(*eval.Instance)
	return o, ok && o.Type().IsSubclass(ModuleType)
}

// moduleRegistries are what PyTorch 2.11's Module.__init__ sets, in its
// order: dicts, the set of non-persistent buffers' names, OrderedDicts
// (the hooks') and None.
var moduleRegistries = []struct{ name, kind string }{
	{"_parameters", "dict"}, {"_buffers", "dict"}, {nonPersistent, "set"},
	{"_backward_pre_hooks", "ordered"}, {"_backward_hooks", "ordered"}, {"_is_full_backward_hook", "none"},
	{"_forward_hooks", "ordered"}, {"_forward_hooks_with_kwargs", "ordered"}, {"_forward_hooks_always_called", "ordered"},
	{"_forward_pre_hooks", "ordered"}, {"_forward_pre_hooks_with_kwargs", "ordered"},
	{"_state_dict_hooks", "ordered"}, {"_state_dict_pre_hooks", "ordered"},
	{"_load_state_dict_pre_hooks", "ordered"}, {"_load_state_dict_post_hooks", "ordered"},
	{"_modules", "dict"},
}

// moduleInit is Module.__init__: the registries, in PyTorch's order,
// counted by CPython's collector as PyTorch makes them (a set or an
// OrderedDict one object from no free list). The instance's __dict__
// CPython makes later (from its attributes, kept inline until then),
// when Module.__setattr__ or __getattr__ first reads self.__dict__: an
// attribute set, or a child or parameter added (hasattr's lookup of a
// new name), as every torch.nn module's __init__ does after it; a
// subclass of the script's, at its first such statement
// (gh46386_hook_self's LeakyModule sets self.body once its Sequential
// is made).
func (b *Binding) moduleInit(o *eval.Instance) error {
	in := b.in
	// Module.__init__(self, *args, **kwargs): the dict of its keywords,
	// which CPython makes for every call, held while it runs; the check
	// at its start
	kwargs := in.NewDict()
	defer in.Decref(kwargs)
	if err := in.Check(); err != nil {
		return err
	}
	// each attribute is set by super().__setattr__(name, value): a
	// module's type looks attributes up through Module.__getattr__, so
	// LOAD_SUPER_ATTR binds object.__setattr__, a method-wrapper that
	// lives while the value is made and the call runs (the check after
	// an OrderedDict() or set() call counts it), dropped before the
	// check after the call
	setattr := func(name string, v eval.Value) error {
		in.PutStr(o.Dict, name, v, "")
		return in.Check()
	}
	wrapper := in.NewInternal()
	if err := setattr("training", true); err != nil {
		in.Decref(wrapper)
		return err
	}
	in.Decref(wrapper)
	for _, r := range moduleRegistries {
		if _, ok := o.Dict.GetStr(r.name); ok {
			continue
		}
		wrapper := in.NewInternal()
		var v eval.Value
		switch r.kind {
		case "none":
			v = eval.None
		case "dict":
			v = in.NewDict()
		default:
			cls := b.orderedDict
			if r.kind == "set" {
				cls = eval.SetType
			}
			made, err := in.Call(cls, nil, nil)
			if err == nil {
				in.CountAsOwn(made.(eval.Object))
				v = made
				err = in.Check()
			}
			if err != nil {
				in.Decref(wrapper)
				return err
			}
		}
		in.PutStr(o.Dict, r.name, v, "")
		in.Decref(wrapper)
		if err := in.Check(); err != nil {
			return err
		}
	}
	return nil
}

// parameters lists a module's parameters as parameters() yields them:
// its own, then each submodule's, each once (a module met again, as in a
// cycle of modules, is not walked again: PyTorch keeps a memo too).
func parameters(o *eval.Instance, seen map[*Tensor]bool, out []*Tensor) []*Tensor {
	return walkParameters(o, seen, map[*eval.Instance]bool{}, out)
}

func walkParameters(o *eval.Instance, seen map[*Tensor]bool, walked map[*eval.Instance]bool, out []*Tensor) []*Tensor {
	if walked[o] {
		return out
	}
	walked[o] = true
	if ps := sub(o, "_parameters"); ps != nil {
		ps.Items(func(_, v eval.Value) bool {
			if t, ok := v.(*Tensor); ok && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
			return true
		})
	}
	if ms := sub(o, "_modules"); ms != nil {
		ms.Items(func(_, v eval.Value) bool {
			if m, ok := isModule(v); ok {
				out = walkParameters(m, seen, walked, out)
			}
			return true
		})
	}
	return out
}

func engineTensors(ts []*Tensor) []*engine.Tensor {
	out := make([]*engine.Tensor, len(ts))
	for i, t := range ts {
		out[i] = t.T
	}
	return out
}

// newParam makes an nn.Parameter over an engine tensor reference.
func (b *Binding) newParam(t *engine.Tensor) *Tensor {
	p := b.wrap(t)
	p.param = true
	return p
}

// registerParam puts p, a reference it takes over, among o's parameters
// as name, as self.name = p does: through register_parameter when the
// program has replaced Module's (accelerate's init_empty_weights does).
func (b *Binding) registerParam(o *eval.Instance, name string, p *Tensor) error {
	if f := o.Type().Lookup("register_parameter"); f != nil && f != nativeRegisterParameter {
		r, err := b.in.CallMethod(o, "register_parameter", name, p)
		b.in.Decref(p)
		if err == nil {
			b.in.Decref(r)
		}
		return err
	}
	b.in.PutStr(sub(o, "_parameters"), name, p, "old ."+name)
	return nil
}

func init() {
	m := ModuleType
	m.SetAttr("_version", int64(1)) // state_dict()'s local_metadata
	modMethod(m, "__init__", "Module()", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return eval.None, b.moduleInit(o)
	})
	modMethod(m, "__setattr__", "", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("__setattr__", args, 2); err != nil {
			return nil, err
		}
		name, _ := args[0].(string)
		v := args[1]
		in := b.in
		in.MaterializeDict(o) // params = self.__dict__.get("_parameters")
		ps, bs, ms := sub(o, "_parameters"), sub(o, "_buffers"), sub(o, "_modules")
		t, isTensor := v.(*Tensor)
		_, isMod := isModule(v)
		switch {
		case isTensor && t.param:
			if ps == nil {
				return nil, in.Raise(eval.AttributeErrorType, "cannot assign parameters before Module.__init__() call")
			}
			in.DelStr(o.Dict, name)
			if ms != nil {
				in.DelStr(ms, name)
			}
			eval.Incref(v)
			if err := b.registerParam(o, name, t); err != nil {
				return nil, err
			}
		case isMod:
			if ms == nil {
				return nil, in.Raise(eval.AttributeErrorType, "cannot assign module before Module.__init__() call")
			}
			in.DelStr(o.Dict, name)
			in.DelStr(ps, name)
			eval.Incref(v)
			in.PutStr(ms, name, v, "old ."+name)
		case ps != nil && hasKey(ps, name):
			if v != eval.None {
				return nil, in.Raise(eval.TypeErrorType, "cannot assign '%s' as parameter '%s' (torch.nn.Parameter or None expected)", in.TypeName(v), name)
			}
			eval.Incref(v)
			in.PutStr(ps, name, v, "old ."+name)
		case bs != nil && hasKey(bs, name):
			if _, ok := v.(*Tensor); !ok && v != eval.None {
				return nil, in.Raise(eval.TypeErrorType, "cannot assign '%s' as buffer '%s' (torch.nn.Buffer, torch.Tensor or None expected)", in.TypeName(v), name)
			}
			eval.Incref(v)
			in.PutStr(bs, name, v, "old ."+name)
		case ms != nil && hasKey(ms, name):
			if v != eval.None {
				return nil, in.Raise(eval.TypeErrorType, "cannot assign '%s' as child module '%s' (torch.nn.Module or None expected)", in.TypeName(v), name)
			}
			eval.Incref(v)
			in.PutStr(ms, name, v, "old ."+name)
		default:
			eval.Incref(v)
			in.PutStr(o.Dict, name, v, "old ."+name)
		}
		return eval.None, nil
	})
	modMethod(m, "__getattr__", "", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("__getattr__", args, 1); err != nil {
			return nil, err
		}
		name, _ := args[0].(string)
		b.in.MaterializeDict(o) // if "_parameters" in self.__dict__
		for _, reg := range []string{"_parameters", "_buffers", "_modules"} {
			if d := sub(o, reg); d != nil {
				if v, ok := d.GetStr(name); ok {
					eval.Incref(v)
					return v, nil
				}
			}
		}
		return nil, b.in.AttrError(o, name)
	})
	modMethod(m, "__delattr__", "", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("__delattr__", args, 1); err != nil {
			return nil, err
		}
		name, _ := args[0].(string)
		for _, reg := range []string{"_parameters", "_buffers", "_modules"} {
			if d := sub(o, reg); d != nil && b.in.DelStr(d, name) {
				return eval.None, nil
			}
		}
		if !b.in.DelStr(o.Dict, name) {
			return nil, b.in.Raise(eval.AttributeErrorType, "'%s' object has no attribute '%s'", o.Type().Name, name)
		}
		return eval.None, nil
	})
	modMethod(m, "__call__", "module(*input): forward, with its hooks", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.callModule(o, args, kw)
	})
	modMethod(m, "forward", "forward(*input)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return nil, b.in.Raise(eval.NotImplementedErrType, "Module [%s] is missing the required \"forward\" function", o.Type().Name)
	})
	modMethod(m, "zero_grad", "zero_grad(set_to_none=True)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		toNone, err := b.setToNone(args, kw)
		if err != nil {
			return nil, err
		}
		ps := engineTensors(parameters(o, map[*Tensor]bool{}, nil))
		b.S.ZeroGrad(ps, toNone)
		if toNone {
			b.dropGradObjects(ps)
		}
		return eval.None, nil
	})
	modMethod(m, "__repr__", "", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.moduleRepr(o)
	})
	modMethod(m, "extra_repr", "", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return "", nil
	})
	layers()
}

func hasKey(d *eval.Dict, name string) bool {
	_, ok := d.GetStr(name)
	return ok
}

// moduleRepr is PyTorch's module repr: Name(extra) when extra_repr is
// one line and there are no children, else the extra lines and the
// children one per line, indented.
func (b *Binding) moduleRepr(o *eval.Instance) (eval.Value, error) {
	extra, err := b.in.CallMethod(o, "extra_repr")
	if err != nil {
		return nil, err
	}
	es, _ := extra.(string)
	var lines []string
	if es != "" {
		lines = strings.Split(es, "\n")
	}
	extraLines := len(lines)
	if ms := sub(o, "_modules"); ms != nil {
		var rerr error
		ms.Items(func(k, v eval.Value) bool {
			r, err := b.in.Repr(v)
			if err != nil {
				rerr = err
				return false
			}
			lines = append(lines, "("+k.(string)+"): "+strings.ReplaceAll(r, "\n", "\n  "))
			return true
		})
		if rerr != nil {
			return nil, rerr
		}
	}
	name := o.Type().Name
	if len(lines) == 0 || extraLines == 1 && len(lines) == 1 {
		return name + "(" + es + ")", nil
	}
	return name + "(\n  " + strings.Join(lines, "\n  ") + "\n)", nil
}

// layers declares Linear and GELU (ReLU, with inplace=, is module_cnn.go's).
func layers() {
	modMethod(LinearType, "__init__", "Linear(in_features, out_features, bias=True, device=None, dtype=None)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		in := b.in
		a, err := in.ArgSpec("Linear", args, kw, 2, "in_features", "out_features", "bias", "device", "dtype")
		if err != nil {
			return nil, err
		}
		dev, dt := b.S.DefaultDevice(), b.S.DefaultDType()
		if a[3] != nil && a[3] != eval.None {
			if dev, err = b.deviceArg(a[3]); err != nil {
				return nil, err
			}
		}
		if a[4] != nil && a[4] != eval.None {
			d, ok := a[4].(*DTypeObj)
			if !ok || !d.D.IsFloatingPoint() {
				return nil, in.Raise(eval.TypeErrorType, "Linear(): dtype must be a floating point torch.dtype")
			}
			dt = d.D
		}
		nIn, err := in.Index(a[0])
		if err != nil {
			return nil, err
		}
		nOut, err := in.Index(a[1])
		if err != nil {
			return nil, err
		}
		bias := true
		if a[2] != nil {
			if bias, err = in.Truth(a[2]); err != nil {
				return nil, err
			}
		}
		if err := b.cudaStarts(dev); err != nil {
			return nil, err
		}
		// factory_kwargs = {"device": device, "dtype": dtype}, held until
		// Linear.__init__ returns
		factory := in.NewDict()
		defer in.Decref(factory)
		if err := b.moduleInit(o); err != nil {
			return nil, err
		}
		in.MaterializeDict(o) // self.in_features = in_features
		in.PutStr(o.Dict, "in_features", nIn, "")
		in.PutStr(o.Dict, "out_features", nOut, "")
		ps := sub(o, "_parameters")
		w, err := b.S.NewParameterOf([]int64{nOut, nIn}, dt, dev)
		if err != nil {
			return nil, b.pyErr(err)
		}
		if err := b.registerParam(o, "weight", b.newParam(w)); err != nil {
			return nil, err
		}
		if bias {
			bt, err := b.S.NewParameterOf([]int64{nOut}, dt, dev)
			if err != nil {
				return nil, b.pyErr(err)
			}
			if err := b.registerParam(o, "bias", b.newParam(bt)); err != nil {
				return nil, err
			}
		} else {
			in.PutStr(ps, "bias", eval.None, "")
		}
		// reset_parameters: kaiming_uniform_'s _calculate_correct_fan
		// makes valid_modes = ["fan_in", "fan_out"] and drops it (a list
		// new where CPython's free list of lists is dry:
		// gc_module_conversions' trace)
		in.Decref(in.NewList(nil))
		return eval.None, nil
	})
	modMethod(LinearType, "forward", "forward(input)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) != 1 {
			return nil, b.in.Raise(eval.TypeErrorType, "forward() takes 1 input")
		}
		x, err := b.tensorOf(args[0], "linear")
		if err != nil {
			return nil, err
		}
		// self.weight and self.bias, as F.linear(input, self.weight,
		// self.bias) reads them: a parameter, or what replaced it
		// (weight_norm's weight, made again before each forward)
		wv, err := b.in.GetAttr(o, "weight")
		if err != nil {
			return nil, err
		}
		defer b.in.Decref(wv)
		bv, err := b.in.GetAttr(o, "bias")
		if err != nil {
			return nil, err
		}
		defer b.in.Decref(bv)
		w, ok := wv.(*Tensor)
		if !ok {
			return nil, b.in.Raise(eval.TypeErrorType, "linear(): argument 'weight' (position 2) must be Tensor, not %s", eval.TypeOf(wv).Name)
		}
		var bias *engine.Tensor
		if bt, ok := bv.(*Tensor); ok {
			bias = bt.T
		}
		y, err := b.S.Linear(x.T, w.T, bias)
		if err != nil {
			return nil, b.pyErr(err)
		}
		return b.wrap(y), nil
	})
	modMethod(LinearType, "extra_repr", "", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		nIn, _ := o.Dict.GetStr("in_features")
		nOut, _ := o.Dict.GetStr("out_features")
		bv, _ := sub(o, "_parameters").GetStr("bias")
		return "in_features=" + b.in.ReprOf(nIn) + ", out_features=" + b.in.ReprOf(nOut) + ", bias=" + b.in.ReprOf(bv != eval.None), nil
	})
	modMethod(GELUType, "__init__", "GELU(approximate='none')", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("GELU", args, kw, 0, "approximate")
		if err != nil {
			return nil, err
		}
		approximate := eval.Value("none")
		if a[0] != nil {
			approximate = a[0]
		}
		if err := b.moduleInit(o); err != nil {
			return nil, err
		}
		b.in.MaterializeDict(o) // self.approximate = approximate
		b.in.PutStr(o.Dict, "approximate", approximate, "")
		return eval.None, nil
	})
	modMethod(GELUType, "forward", "forward(input)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) != 1 {
			return nil, b.in.Raise(eval.TypeErrorType, "forward() takes 1 input")
		}
		x, err := b.tensorOf(args[0], "gelu")
		if err != nil {
			return nil, err
		}
		av, _ := o.Dict.GetStr("approximate")
		approximate, ok := av.(string)
		if !ok {
			return nil, b.in.Raise(eval.TypeErrorType, "gelu(): argument 'approximate' must be str, not %s", b.in.TypeName(av))
		}
		y, err := b.S.Run(engine.Ops["gelu"], engine.Args{x.T, approximate})
		if err != nil {
			return nil, b.pyErr(err)
		}
		return b.wrap(y), nil
	})
	modMethod(GELUType, "extra_repr", "", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		av, _ := o.Dict.GetStr("approximate")
		return "approximate=" + b.in.ReprOf(av), nil
	})
}

// layerFamilies declare the torch.nn layers kept in files of their own
// (losses, normalization, ...): each family's file appends one in its
// init. (Their torch.nn.functional forms are op table entries, Functional.)
// A name a family declares is no longer among the "not modelled yet"
// placeholders.
var layerFamilies []func(b *Binding, in *eval.Interp, nn *eval.ModuleObj) error

// pythonLayers is a layer family written in Python: src runs in
// torch.nn's namespace (where Module and Parameter are), defining its
// classes there.
func pythonLayers(src string) func(b *Binding, in *eval.Interp, nn *eval.ModuleObj) error {
	return func(b *Binding, in *eval.Interp, nn *eval.ModuleObj) error {
		fr := in.ModuleFrame("<torch.nn>", nn.Dict)
		defer in.Release(fr)
		return in.ExecSource(fr, "<torch.nn>", src)
	}
}

func (b *Binding) nnModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.nn")
	for _, c := range []*eval.Class{ModuleType, LinearType, GELUType} {
		m.Set(in, c.Name, c)
	}
	// Parameter is the class (isinstance(p, nn.Parameter), as model code
	// checks), made by newParameter
	m.Set(in, "Parameter", ParameterType)
	f, err := b.functionalModule(in)
	if err != nil {
		return nil, err
	}
	in.AddModule("torch.nn.functional", f)
	m.Set(in, "functional", f)
	b.fn(m, "_is_parameter", "_is_parameter(v): whether v is an nn.Parameter", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("_is_parameter", args, 1); err != nil {
			return nil, err
		}
		t, ok := args[0].(*Tensor)
		return ok && t.param, nil
	})
	b.fn(m, "_name_node", "_name_node(t, name): t's grad_fn named as PyTorch's C++ composite names it", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("_name_node", args, 2); err != nil {
			return nil, err
		}
		t, ok := args[0].(*Tensor)
		name, err := b.strArg("_name_node", args[1])
		if !ok || err != nil {
			return nil, in.Raise(eval.TypeErrorType, "_name_node(t, name)")
		}
		t.T.NameNode(name)
		return eval.None, nil
	})
	b.fn(m, "_estimate", "_estimate(op, why, *tensors): the figures of op, a layer composed here as PyTorch composes it, are estimated (why: the rule script that waits for the GPU)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) < 2 || len(kw) > 0 {
			return nil, in.Raise(eval.TypeErrorType, "_estimate(op, why, *tensors)")
		}
		op, err := b.strArg("_estimate", args[0])
		if err != nil {
			return nil, err
		}
		why, err := b.strArg("_estimate", args[1])
		if err != nil {
			return nil, err
		}
		if err := b.S.EstimateComposite(op, why, tensorsAmong(args[2:])...); err != nil {
			return nil, b.pyErr(err)
		}
		return eval.None, nil
	})
	if err := b.containerLayers(in, m); err != nil {
		return nil, err
	}
	for _, sub := range []struct {
		name string
		make func(*eval.Interp) (*eval.ModuleObj, error)
	}{{"utils", b.utilsModule}, {"init", b.initModule}} {
		mod, err := sub.make(in)
		if err != nil {
			return nil, err
		}
		in.AddModule("torch.nn."+sub.name, mod)
		m.Set(in, sub.name, mod)
	}
	for _, family := range layerFamilies {
		if err := family(b, in, m); err != nil {
			return nil, err
		}
	}
	if err := b.nnModuleAliases(in, m); err != nil {
		return nil, err
	}
	for _, name := range []string{"Conv2d", "Conv1d", "Conv3d", "BatchNorm2d", "LayerNorm", "Embedding", "Dropout", "MaxPool2d", "CrossEntropyLoss", "MSELoss", "LSTM", "Softmax", "TransformerEncoderLayer", "MultiheadAttention"} {
		if _, declared := m.Dict.GetStr(name); declared {
			continue
		}
		b.fn(m, name, "not modelled yet", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return nil, b.notModelled("torch.nn." + name)
		})
	}
	return m, nil
}

// functionalModule is torch.nn.functional: the op table's functions
// (opFunctional) and those written here.
func (b *Binding) functionalModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.nn.functional")
	b.opFunctional(m)
	return m, nil
}

// nn.Parameter(data, requires_grad=True): a Parameter over data's
// storage (detached), a leaf that requires grad unless told not to.
func init() {
	ParameterType.New = func(in *eval.Interp, _ *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		b := bindingOf(in)
		a, err := in.ArgSpec("Parameter", args, kw, 1, "data", "requires_grad")
		if err != nil {
			return nil, err
		}
		t, err := b.tensorOf(a[0], "Parameter")
		if err != nil {
			return nil, err
		}
		grad, err := b.boolArg(a[1], true)
		if err != nil {
			return nil, err
		}
		d := b.S.Detach(t.T)
		if grad {
			if err := b.S.SetRequiresGrad(d); err != nil {
				b.S.Release(d)
				return nil, b.pyErr(err)
			}
		}
		return b.newParam(d), nil
	}
}

// tensorsAmong is the engine's tensors among vs, in order.
func tensorsAmong(vs []eval.Value) []*engine.Tensor {
	var ts []*engine.Tensor
	for _, v := range vs {
		if t, ok := v.(*Tensor); ok {
			ts = append(ts, t.T)
		}
	}
	return ts
}
