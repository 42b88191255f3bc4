package torchpy

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// stateEntry is one tensor of state_dict(): its key, and the registry
// (_parameters or _buffers) and name it is held under.
type stateEntry struct {
	namedMember
	reg   *eval.Dict
	key   string
	param bool
}

// stateEntries are the tensors state_dict() lists, by key, in PyTorch's
// order: a module's own parameters, its persistent buffers, then each
// child's entries under the child's name (duplicates kept).
func stateEntries(o *eval.Instance, prefix string, out []stateEntry) []stateEntry {
	if ps := sub(o, "_parameters"); ps != nil {
		ps.Items(func(k, v eval.Value) bool {
			if t, ok := v.(*Tensor); ok {
				out = append(out, stateEntry{namedMember{prefix + k.(string), t}, ps, k.(string), true})
			}
			return true
		})
	}
	if bs := sub(o, "_buffers"); bs != nil {
		bs.Items(func(k, v eval.Value) bool {
			if t, ok := v.(*Tensor); ok && persistent(o, k.(string)) {
				out = append(out, stateEntry{namedMember{prefix + k.(string), t}, bs, k.(string), false})
			}
			return true
		})
	}
	for _, c := range children(o) {
		out = stateEntries(c.m, prefix+c.name+".", out)
	}
	return out
}

// stateDicts declares state_dict and load_state_dict.
func stateDicts(m *eval.Class) {
	modMethod(m, "state_dict", "state_dict(prefix='', keep_vars=False): detached references, no copies", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("state_dict", args, kw, 0, "destination", "prefix", "keep_vars")
		if err != nil {
			return nil, err
		}
		if a[0] != nil && a[0] != eval.None {
			return nil, b.notModelled("state_dict(destination=...)")
		}
		prefix, err := b.strArg("state_dict", a[1])
		if err != nil {
			return nil, err
		}
		keep, err := b.boolArg(a[2], false)
		if err != nil {
			return nil, err
		}
		d := b.in.NewDict()
		for _, e := range stateEntries(o, prefix, nil) {
			var v eval.Value = e.t
			if keep {
				eval.Incref(v)
			} else {
				v = b.wrap(b.S.Detach(e.t.T))
			}
			b.in.PutStr(d, e.name, v, "")
		}
		return d, nil
	})
	modMethod(m, "load_state_dict", "load_state_dict(state_dict, strict=True): copies in place, no new memory", func(b *Binding, o *eval.Instance, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("load_state_dict", args, kw, 1, "state_dict", "strict", "assign")
		if err != nil {
			return nil, err
		}
		sd, ok := eval.DictOf(a[0])
		if !ok {
			return nil, b.in.Raise(eval.TypeErrorType, "Expected state_dict to be dict-like, got %s.", b.in.TypeName(a[0]))
		}
		strict, err := b.boolArg(a[1], true)
		if err != nil {
			return nil, err
		}
		assign, err := b.boolArg(a[2], false)
		if err != nil {
			return nil, err
		}
		return b.loadStateDict(o, sd, strict, assign)
	})
}

// loadStateDict copies each entry of sd into the module's tensor of the
// same key (param.copy_(input) under no_grad: in place, across devices
// and dtypes with no new GPU memory; into a meta tensor, nothing), or
// with assign makes it the module's (a parameter a Parameter over the
// entry's storage, requiring grad as the one it replaces), and returns
// _IncompatibleKeys.
func (b *Binding) loadStateDict(o *eval.Instance, sd *eval.Dict, strict, assign bool) (eval.Value, error) {
	in := b.in
	var missing, unexpected, mismatched []string
	expected := map[string]bool{}
	for _, e := range stateEntries(o, "", nil) {
		expected[e.name] = true
		v, ok := sd.GetStr(e.name)
		if !ok {
			missing = append(missing, e.name)
			continue
		}
		src, ok := v.(*Tensor)
		if !ok {
			return nil, in.Raise(eval.RuntimeErrorType, "Error(s) in loading state_dict for %s:\n\tWhile copying the parameter named \"%s\", expected torch.Tensor or Tensor-like object from checkpoint but received %s", o.Type().Name, e.name, in.TypeName(v))
		}
		if !sameShape(src.T, e.t.T) {
			mismatched = append(mismatched, "size mismatch for "+e.name+": copying a param with shape "+b.sizeRepr(src.T)+" from checkpoint, the shape in current model is "+b.sizeRepr(e.t.T)+".")
			continue
		}
		if assign {
			b.assignEntry(e, src)
			continue
		}
		was := b.S.SetGradEnabled(false)
		r, err := in.CallMethod(e.t, "copy_", src)
		b.S.SetGradEnabled(was)
		if err != nil {
			return nil, err
		}
		in.Decref(r)
	}
	sd.Items(func(k, _ eval.Value) bool {
		if name, ok := k.(string); !ok || !expected[name] {
			unexpected = append(unexpected, in.StrOf(k))
		}
		return true
	})
	var msgs []string
	if strict && len(missing) > 0 {
		msgs = append(msgs, "Missing key(s) in state_dict: "+quoted(missing)+". ")
	}
	if strict && len(unexpected) > 0 {
		msgs = append(msgs, "Unexpected key(s) in state_dict: "+quoted(unexpected)+". ")
	}
	if msgs = append(msgs, mismatched...); len(msgs) > 0 {
		return nil, in.Raise(eval.RuntimeErrorType, "Error(s) in loading state_dict for %s:\n\t%s", o.Type().Name, strings.Join(msgs, "\n\t"))
	}
	nn, err := in.Import("torch.nn")
	if err != nil {
		return nil, err
	}
	cls, _ := nn.Dict.GetStr("_IncompatibleKeys")
	mk, un := strList(in, missing), strList(in, unexpected)
	r, err := in.Call(cls, []eval.Value{mk, un}, nil)
	in.Decref(mk)
	in.Decref(un)
	return r, err
}

// assignEntry makes src the module's tensor of entry e (setattr): for a
// parameter, src itself when it is a Parameter, else a new Parameter
// over its storage; its requires_grad that of the parameter it replaces.
func (b *Binding) assignEntry(e stateEntry, src *Tensor) {
	v := src
	grad := e.t.T.RequiresGrad()
	switch {
	case e.param && !src.param:
		v = b.newParam(b.S.Detach(src.T))
	default:
		eval.Incref(v)
	}
	if e.param && grad {
		b.S.SetRequiresGrad(v.T) //nolint:errcheck // a detached tensor or a Parameter is a leaf
	}
	b.in.PutStr(e.reg, e.key, v, "old ."+e.key)
}

func sameShape(a, b *engine.Tensor) bool {
	if len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	return true
}

// sizeRepr is torch.Size([...]) of t's shape.
func (b *Binding) sizeRepr(t *engine.Tensor) string {
	s := b.size(t.Shape)
	r := b.in.ReprOf(s)
	b.in.Decref(s)
	return r
}

func quoted(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = "\"" + k + "\""
	}
	return strings.Join(q, ", ")
}

// strList is a new list of Python strs.
func strList(in *eval.Interp, ss []string) eval.Value {
	items := make([]eval.Value, len(ss))
	for i, s := range ss {
		items[i] = s
	}
	return in.NewList(items)
}
