package torchpy

import "github.com/gpumemrepl/gpumemrepl/python/eval"

// nn.Module's walks, as PyTorch's: named_modules visits a module, then
// its children's trees in registration order, each module once;
// named_parameters and named_buffers list each visited module's own
// tensors (None skipped, each tensor once), named by the module's path
// (testdata/pyrules/module_api.py).

// namedModule is one entry of named_modules().
type namedModule struct {
	name string
	m    *eval.Instance
}

func joinName(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// namedModules is named_modules(prefix=prefix); memo (nil: duplicates
// kept) holds the modules already listed.
func namedModules(o *eval.Instance, prefix string, memo map[*eval.Instance]bool, out []namedModule) []namedModule {
	if memo != nil {
		if memo[o] {
			return out
		}
		memo[o] = true
	}
	out = append(out, namedModule{prefix, o})
	for _, c := range children(o) {
		out = namedModules(c.m, joinName(prefix, c.name), memo, out)
	}
	return out
}

// children are named_children(): the registered submodules, None skipped.
func children(o *eval.Instance) []namedModule {
	var out []namedModule
	if ms := sub(o, "_modules"); ms != nil {
		ms.Items(func(k, v eval.Value) bool {
			if m, ok := isModule(v); ok {
				out = append(out, namedModule{k.(string), m})
			}
			return true
		})
	}
	return out
}

// namedMember is one entry of named_parameters() or named_buffers().
type namedMember struct {
	name string
	t    *Tensor
}

// namedMembers lists the tensors of registry reg (_parameters or
// _buffers) of o's modules (o's alone unless recurse), each once unless
// keepDuplicates.
func namedMembers(o *eval.Instance, reg, prefix string, recurse, keepDuplicates bool) []namedMember {
	mods := []namedModule{{prefix, o}}
	if recurse {
		memo := map[*eval.Instance]bool{}
		if keepDuplicates {
			memo = nil
		}
		mods = namedModules(o, prefix, memo, nil)
	}
	return membersOf(mods, reg, keepDuplicates)
}

// membersOf lists the tensors of registry reg of each of mods, each
// once unless keepDuplicates.
func membersOf(mods []namedModule, reg string, keepDuplicates bool) []namedMember {
	seen := map[*Tensor]bool{}
	var out []namedMember
	for _, m := range mods {
		d := sub(m.m, reg)
		if d == nil {
			continue
		}
		d.Items(func(k, v eval.Value) bool {
			if t, ok := v.(*Tensor); ok && (keepDuplicates || !seen[t]) {
				seen[t] = true
				out = append(out, namedMember{joinName(m.name, k.(string)), t})
			}
			return true
		})
	}
	return out
}

// iterate returns an iterator over items (owned references).
func (b *Binding) iterate(items []eval.Value) (eval.Value, error) {
	l := b.in.NewList(items)
	it, err := b.in.Iter(l)
	b.in.Decref(l)
	return it, err
}

// pair is a new (name, value) tuple.
func (b *Binding) pair(name string, v eval.Value) eval.Value {
	eval.Incref(v)
	return b.in.NewTuple([]eval.Value{name, v})
}

// boolArg is an optional bool argument.
func (b *Binding) boolArg(v eval.Value, def bool) (bool, error) {
	if v == nil {
		return def, nil
	}
	return b.in.Truth(v)
}

// strArg is an optional str argument.
func (b *Binding) strArg(fn string, v eval.Value) (string, error) {
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", b.in.Raise(eval.TypeErrorType, "%s(): expected a str, got %s", fn, b.in.TypeName(v))
	}
	return s, nil
}

// memberMethods declares parameters, buffers and their named forms.
func memberMethods(m *eval.Class) {
	for _, reg := range []struct{ plural, registry string }{{"parameters", "_parameters"}, {"buffers", "_buffers"}} {
		modMethod(m, "named_"+reg.plural, "named_"+reg.plural+"(prefix='', recurse=True, remove_duplicate=True)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			a, err := b.in.ArgSpec("named_"+reg.plural, args, kw, 0, "prefix", "recurse", "remove_duplicate")
			if err != nil {
				return nil, err
			}
			prefix, err := b.strArg("named_"+reg.plural, a[0])
			if err != nil {
				return nil, err
			}
			recurse, err := b.boolArg(a[1], true)
			if err != nil {
				return nil, err
			}
			dedup, err := b.boolArg(a[2], true)
			if err != nil {
				return nil, err
			}
			var items []eval.Value
			for _, nm := range namedMembers(o, reg.registry, prefix, recurse, !dedup) {
				items = append(items, b.pair(nm.name, nm.t))
			}
			return b.iterate(items)
		})
		modMethod(m, reg.plural, reg.plural+"(recurse=True)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			a, err := b.in.ArgSpec(reg.plural, args, kw, 0, "recurse")
			if err != nil {
				return nil, err
			}
			recurse, err := b.boolArg(a[0], true)
			if err != nil {
				return nil, err
			}
			var items []eval.Value
			for _, nm := range namedMembers(o, reg.registry, "", recurse, false) {
				eval.Incref(nm.t)
				items = append(items, nm.t)
			}
			return b.iterate(items)
		})
	}
}

// moduleWalks declares children, named_children, modules and
// named_modules.
func moduleWalks(m *eval.Class) {
	for _, named := range []bool{false, true} {
		name := map[bool]string{false: "children", true: "named_children"}[named]
		modMethod(m, name, name+"()", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			if err := b.arity(name, args, 0); err != nil {
				return nil, err
			}
			var items []eval.Value
			for _, c := range children(o) {
				items = append(items, b.entry(named, c))
			}
			return b.iterate(items)
		})
	}
	modMethod(m, "modules", "modules()", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("modules", args, 0); err != nil {
			return nil, err
		}
		var items []eval.Value
		for _, c := range namedModules(o, "", map[*eval.Instance]bool{}, nil) {
			items = append(items, b.entry(false, c))
		}
		return b.iterate(items)
	})
	modMethod(m, "named_modules", "named_modules(memo=None, prefix='', remove_duplicate=True)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("named_modules", args, kw, 0, "memo", "prefix", "remove_duplicate")
		if err != nil {
			return nil, err
		}
		if a[0] != nil && a[0] != eval.None {
			return nil, b.notModelled("named_modules(memo=...)")
		}
		prefix, err := b.strArg("named_modules", a[1])
		if err != nil {
			return nil, err
		}
		dedup, err := b.boolArg(a[2], true)
		if err != nil {
			return nil, err
		}
		memo := map[*eval.Instance]bool{}
		if !dedup {
			memo = nil
		}
		var items []eval.Value
		for _, c := range namedModules(o, prefix, memo, nil) {
			items = append(items, b.entry(true, c))
		}
		return b.iterate(items)
	})
}

// entry is a walk's item: the module, or (name, module).
func (b *Binding) entry(named bool, c namedModule) eval.Value {
	if named {
		return b.pair(c.name, c.m)
	}
	eval.Incref(c.m)
	return c.m
}

// moduleState declares train, eval, requires_grad_ and apply.
func moduleState(m *eval.Class) {
	modMethod(m, "train", "train(mode=True)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("train", args, kw, 0, "mode")
		if err != nil {
			return nil, err
		}
		mode := eval.Value(true)
		if a[0] != nil {
			mode = a[0]
		}
		if _, ok := mode.(bool); !ok {
			return nil, b.in.Raise(eval.ValueErrorType, "training mode is expected to be boolean")
		}
		return b.train(o, mode)
	})
	modMethod(m, "eval", "eval()", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("eval", args, 0); err != nil {
			return nil, err
		}
		return b.train(o, false)
	})
	modMethod(m, "requires_grad_", "requires_grad_(requires_grad=True)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		on, err := b.requiresGradArg(args, kw)
		if err != nil {
			return nil, err
		}
		for _, nm := range namedMembers(o, "_parameters", "", true, false) {
			if err := b.setRequiresGrad(nm.t.T, on); err != nil {
				return nil, err
			}
		}
		eval.Incref(o)
		return o, nil
	})
	modMethod(m, "apply", "apply(fn)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("apply", args, 1); err != nil {
			return nil, err
		}
		if err := b.apply(o, args[0]); err != nil {
			return nil, err
		}
		eval.Incref(o)
		return o, nil
	})
}

// train is Module.train(mode): its own flag, then each child's
// train(mode); it returns o.
func (b *Binding) train(o *eval.Instance, mode eval.Value) (eval.Value, error) {
	if err := b.in.SetAttr(o, "training", mode); err != nil {
		return nil, err
	}
	for _, c := range children(o) {
		r, err := b.in.CallMethod(c.m, "train", mode)
		if err != nil {
			return nil, err
		}
		b.in.Decref(r)
	}
	eval.Incref(o)
	return o, nil
}

// apply is Module.apply(fn): the children's trees first, then fn(o).
func (b *Binding) apply(o *eval.Instance, fn eval.Value) error {
	for _, c := range children(o) {
		if err := b.apply(c.m, fn); err != nil {
			return err
		}
	}
	r, err := b.in.Call(fn, []eval.Value{o}, nil)
	if err == nil {
		b.in.Decref(r)
	}
	return err
}

func init() {
	m := ModuleType
	memberMethods(m)
	moduleWalks(m)
	moduleState(m)
	registration(m)
	conversions(m)
	stateDicts(m)
	hookMethods(m)
	lookups(m)
}
