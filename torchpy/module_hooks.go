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

// hookRegistries are where a module keeps each kind of hook.
var hookRegistries = map[string]string{"register_forward_pre_hook": "_forward_pre_hooks", "register_forward_hook": "_forward_hooks"}

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
			d := sub(o, reg)
			if d == nil {
				return nil, b.in.Raise(eval.AttributeErrorType, "cannot register a hook before Module.__init__() call")
			}
			id := int64(0)
			d.Items(func(k, _ eval.Value) bool {
				if n, ok := k.(int64); ok && n >= id {
					id = n + 1
				}
				return true
			})
			if err := b.in.SetItem(d, id, a[0]); err != nil {
				return nil, err
			}
			nn, err := b.in.Import("torch.nn")
			if err != nil {
				return nil, err
			}
			cls, _ := nn.Dict.GetStr("RemovableHandle")
			return b.in.Call(cls, []eval.Value{d, id}, nil)
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
