package torchpy

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// nativeRegisterParameter is Module.register_parameter as declared
// here: a module whose class finds another was patched (registerParam).
var nativeRegisterParameter eval.Value

// nonPersistent is the set of the buffers state_dict leaves out
// (PyTorch's _non_persistent_buffers_set).
const nonPersistent = "_non_persistent_buffers_set"

// persistent reports whether o's buffer name is in its state_dict: not
// in its set of non-persistent buffers.
func persistent(o *eval.Instance, name string) bool {
	v, ok := o.Dict.GetStr(nonPersistent)
	if !ok {
		return true
	}
	members, ok := eval.SetOf(v)
	return !ok || !hasKey(members, name)
}

// checkName is PyTorch's check of a name being registered on o.
func (b *Binding) checkName(o *eval.Instance, what string, v eval.Value, reg string) (string, error) {
	name, ok := v.(string)
	switch {
	case !ok:
		return "", b.in.Raise(eval.TypeErrorType, "%s name should be a string. Got %s", what, b.in.TypeName(v))
	case strings.Contains(name, "."):
		return "", b.in.Raise(eval.KeyErrorType, "%s name can't contain \".\", got: %s", what, name)
	case name == "":
		return "", b.in.Raise(eval.KeyErrorType, "%s name can't be empty string \"\"", what)
	case hasAttr(b.in, o, name) && !hasKey(sub(o, reg), name):
		return "", b.in.Raise(eval.KeyErrorType, "attribute '%s' already exists", name)
	}
	return name, nil
}

// hasAttr is hasattr(o, name) for a module: its __dict__, its
// registries, its class. Where neither its attributes nor its class has
// name, hasattr calls Module.__getattr__, which reads self.__dict__:
// CPython makes the instance's dict then, if it has not yet.
func hasAttr(in *eval.Interp, o *eval.Instance, name string) bool {
	if hasKey(o.Dict, name) || o.Type().Lookup(name) != nil {
		return true
	}
	in.MaterializeDict(o)
	for _, reg := range []string{"_parameters", "_buffers", "_modules"} {
		if d := sub(o, reg); d != nil && hasKey(d, name) {
			return true
		}
	}
	return false
}

// put registers v (borrowed) as name in o's registry reg, taking it out
// of the other registries and __dict__ (as __setattr__ does).
func (b *Binding) put(o *eval.Instance, reg, name string, v eval.Value) {
	for _, other := range []string{"_parameters", "_buffers", "_modules"} {
		if d := sub(o, other); other != reg && d != nil {
			b.in.DelStr(d, name)
		}
	}
	b.in.DelStr(o.Dict, name)
	eval.Incref(v)
	b.in.PutStr(sub(o, reg), name, v, "old ."+name)
}

// registration declares register_buffer, register_parameter,
// add_module and register_module.
func registration(m *eval.Class) {
	modMethod(m, "register_buffer", "register_buffer(name, tensor, persistent=True)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("register_buffer", args, kw, 2, "name", "tensor", "persistent")
		if err != nil {
			return nil, err
		}
		if sub(o, "_buffers") == nil {
			return nil, b.in.Raise(eval.AttributeErrorType, "cannot assign buffer before Module.__init__() call")
		}
		name, err := b.checkName(o, "buffer", a[0], "_buffers")
		if err != nil {
			return nil, err
		}
		if _, ok := a[1].(*Tensor); !ok && a[1] != eval.None {
			return nil, b.in.Raise(eval.TypeErrorType, "cannot assign '%s' object to buffer '%s' (torch Tensor or None required)", b.in.TypeName(a[1]), name)
		}
		keep, err := b.boolArg(a[2], true)
		if err != nil {
			return nil, err
		}
		b.put(o, "_buffers", name, a[1])
		np, ok := o.Dict.GetStr(nonPersistent)
		if !ok {
			return nil, b.in.Raise(eval.AttributeErrorType, "'%s' object has no attribute '%s'", o.Type().Name, nonPersistent)
		}
		method := "discard"
		if !keep {
			method = "add"
		}
		r, err := b.in.CallMethod(np, method, name)
		b.in.Decref(r)
		return eval.None, err
	})
	modMethod(m, "register_parameter", "register_parameter(name, param)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("register_parameter", args, kw, 2, "name", "param")
		if err != nil {
			return nil, err
		}
		if sub(o, "_parameters") == nil {
			return nil, b.in.Raise(eval.AttributeErrorType, "cannot assign parameter before Module.__init__() call")
		}
		name, err := b.checkName(o, "parameter", a[0], "_parameters")
		if err != nil {
			return nil, err
		}
		if t, ok := a[1].(*Tensor); (!ok || !t.param) && a[1] != eval.None {
			return nil, b.in.Raise(eval.TypeErrorType, "cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or None required)", b.in.TypeName(a[1]), name)
		}
		b.put(o, "_parameters", name, a[1])
		return eval.None, nil
	})
	nativeRegisterParameter = m.Lookup("register_parameter")
	for _, method := range []string{"add_module", "register_module"} {
		modMethod(m, method, method+"(name, module)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			a, err := b.in.ArgSpec(method, args, kw, 2, "name", "module")
			if err != nil {
				return nil, err
			}
			if sub(o, "_modules") == nil {
				return nil, b.in.Raise(eval.AttributeErrorType, "cannot assign module before Module.__init__() call")
			}
			if _, ok := isModule(a[1]); !ok && a[1] != eval.None {
				return nil, b.in.Raise(eval.TypeErrorType, "%s is not a Module subclass", b.in.TypeName(a[1]))
			}
			name, err := b.checkName(o, "module", a[0], "_modules")
			if err != nil {
				return nil, err
			}
			b.put(o, "_modules", name, a[1])
			return eval.None, nil
		})
	}
}

// lookups declares get_submodule, get_parameter and get_buffer.
func lookups(m *eval.Class) {
	modMethod(m, "get_submodule", "get_submodule(target)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		target, err := b.target("get_submodule", args, kw)
		if err != nil {
			return nil, err
		}
		sm, err := b.submodule(o, target)
		if err != nil {
			return nil, err
		}
		eval.Incref(sm)
		return sm, nil
	})
	for method, reg := range map[string]string{"get_parameter": "_parameters", "get_buffer": "_buffers"} {
		modMethod(m, method, method+"(target)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			target, err := b.target(method, args, kw)
			if err != nil {
				return nil, err
			}
			path, name := "", target
			if i := strings.LastIndexByte(target, '.'); i >= 0 {
				path, name = target[:i], target[i+1:]
			}
			sm, err := b.submodule(o, path)
			if err != nil {
				return nil, err
			}
			if !hasAttr(b.in, sm, name) {
				return nil, b.in.Raise(eval.AttributeErrorType, "%s has no attribute `%s`", sm.Type().Name, name)
			}
			v, ok := sub(sm, reg).GetStr(name)
			if !ok {
				what := map[string]string{"_parameters": "an nn.Parameter", "_buffers": "a buffer"}[reg]
				return nil, b.in.Raise(eval.AttributeErrorType, "`%s` is not %s", name, what)
			}
			eval.Incref(v)
			return v, nil
		})
	}
}

// target reads the one str argument of the get_ methods.
func (b *Binding) target(fn string, args []eval.Value, kw []eval.KeywordArg) (string, error) {
	a, err := b.in.ArgSpec(fn, args, kw, 1, "target")
	if err != nil {
		return "", err
	}
	return b.strArg(fn, a[0])
}

// submodule is get_submodule(target): the module at the dotted path.
func (b *Binding) submodule(o *eval.Instance, target string) (*eval.Instance, error) {
	if target == "" {
		return o, nil
	}
	mod := o
	for _, item := range strings.Split(target, ".") {
		ms := sub(mod, "_modules")
		if ms == nil || !hasKey(ms, item) {
			return nil, b.in.Raise(eval.AttributeErrorType, "%s has no attribute `%s`", mod.Type().Name, item)
		}
		v, _ := ms.GetStr(item)
		next, ok := isModule(v)
		if !ok {
			return nil, b.in.Raise(eval.AttributeErrorType, "`%s` is not an nn.Module", item)
		}
		mod = next
	}
	return mod, nil
}
