package torchpy

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// Forward hooks: module(*args) runs each forward pre-hook(module, args)
// (a result that is not None replaces args; one that is not a tuple is
// the one argument), then forward, then each forward hook(module, args,
// output) (a result that is not None replaces the output), as
// Module._call_impl does; register_forward_pre_hook and
// register_forward_hook return a handle whose remove() drops the hook.
// The hooks are the user's Python, so their memory is their ops'.

// hookRegistries are where a module keeps each kind of hook, and the
// registries its handle also holds weakly (a pre-hook's one dict, a
// hook's list of two, as Module's register methods pass them).
var hookRegistries = map[string]struct {
	hooks  string
	extras []string
}{
	"register_forward_pre_hook": {"_forward_pre_hooks", []string{"_forward_pre_hooks_with_kwargs"}},
	"register_forward_hook":     {"_forward_hooks", []string{"_forward_hooks_with_kwargs", "_forward_hooks_always_called"}},
}

// hookMethods declares the two register methods.
func hookMethods(m *eval.Class) {
	for method, reg := range hookRegistries {
		modMethod(m, method, method+"(hook)", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			a, err := b.in.ArgSpec(method, args, kw, 1, "hook", "prepend", "with_kwargs", "always_call")
			if err != nil {
				return nil, err
			}
			for i, name := range []string{1: "prepend", 2: "with_kwargs", 3: "always_call"} {
				if on, err := b.boolArg(a[i], false); i > 0 && (err != nil || on) {
					if err == nil {
						err = b.notModelled(method + "(" + name + "=True)")
					}
					return nil, err
				}
			}
			hooks, _ := o.Dict.GetStr(reg.hooks)
			d := sub(o, reg.hooks)
			extras := make([]eval.Value, len(reg.extras))
			for i, name := range reg.extras {
				extras[i], _ = o.Dict.GetStr(name)
				if extras[i] == nil {
					d = nil
				}
			}
			if d == nil {
				return nil, b.in.Raise(eval.AttributeErrorType, "cannot register a hook before Module.__init__() call")
			}
			for _, e := range extras {
				eval.Incref(e)
			}
			// one reference to the handle's extra_dict: a pre-hook's dict,
			// or a new list of a hook's two
			extra := extras[0]
			if len(extras) > 1 {
				extra = b.in.NewList(extras)
			}
			nn, err := b.in.Import("torch.nn")
			if err != nil {
				b.in.Decref(extra)
				return nil, err
			}
			cls, _ := nn.Dict.GetStr("RemovableHandle")
			handle, err := b.in.Call(cls, []eval.Value{hooks}, []eval.KeywordArg{{Name: "extra_dict", Value: extra}})
			b.in.Decref(extra)
			if err != nil {
				return nil, err
			}
			id, err := b.in.GetAttr(handle, "id")
			if err == nil {
				err = b.in.SetItem(d, id, a[0])
				b.in.Decref(id)
			}
			if err != nil {
				b.in.Decref(handle)
				return nil, err
			}
			return handle, nil
		})
	}
}

// hooks are the hooks of one registry, in order (new references).
func (b *Binding) hooks(o *eval.Instance, reg string) []eval.Value {
	var out []eval.Value
	if d := sub(o, reg); d != nil {
		d.Items(func(_, v eval.Value) bool {
			eval.Incref(v)
			out = append(out, v)
			return true
		})
	}
	return out
}

// callModule is module(*args, **kw): the pre-hooks, forward, the hooks.
func (b *Binding) callModule(o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	in := b.in
	pre, post := b.hooks(o, "_forward_pre_hooks"), b.hooks(o, "_forward_hooks")
	defer func() {
		for _, h := range append(pre, post...) {
			in.Decref(h)
		}
	}()
	var argt *eval.Tuple // args as the hooks see them, when there are hooks
	if len(pre)+len(post) > 0 {
		for _, a := range args {
			eval.Incref(a)
		}
		argt = in.NewTuple(append([]eval.Value{}, args...))
		defer func() { in.Decref(argt) }()
	}
	for _, h := range pre {
		r, err := in.Call(h, []eval.Value{o, argt}, nil)
		if err != nil {
			return nil, err
		}
		if r == eval.None {
			continue
		}
		t, ok := r.(*eval.Tuple)
		if !ok {
			t = in.NewTuple([]eval.Value{r})
		}
		in.Decref(argt)
		argt = t
		args = t.Items()
	}
	fwd, err := in.GetAttr(o, "forward")
	if err != nil {
		return nil, err
	}
	out, err := in.Call(fwd, args, kw)
	in.Decref(fwd)
	for _, h := range post {
		if err != nil {
			break
		}
		var r eval.Value
		if r, err = in.Call(h, []eval.Value{o, argt, out}, nil); err == nil && r != eval.None {
			in.Decref(out)
			out = r
		} else if err == nil {
			in.Decref(r)
		}
	}
	if err != nil {
		if out != nil {
			in.Decref(out)
		}
		return nil, err
	}
	return out, nil
}

//go:embed lib/nn_hooks.py
var hookSource string
