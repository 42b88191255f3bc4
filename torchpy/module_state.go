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
		d, err := b.stateDestination(o, prefix)
		if err != nil {
			return nil, err
		}
		for _, e := range stateEntries(o, prefix, nil) {
			var v eval.Value = e.t
			if keep {
				eval.Incref(v)
			} else {
				v = b.wrap(b.S.Detach(e.t.T))
			}
			err := b.in.SetItem(d, e.name, v)
			b.in.Decref(v)
			if err != nil {
				b.in.Decref(d)
				return nil, err
			}
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

// stateDestination is state_dict()'s destination as PyTorch 2.11 makes
// it: an OrderedDict whose _metadata, an OrderedDict too, holds each
// module's local_metadata, dict(version=module._version), under its
// prefix less the dot, the module first and its children after. For
// CPython's collector the two OrderedDicts are objects of their own and
// each dict(...) call an allocation no free list serves, which goes back
// to the dict free list when the state dict dies (the object each
// load_state_dict(state_dict()) round of gh20199_state_dict_cycle adds).
func (b *Binding) stateDestination(o *eval.Instance, prefix string) (eval.Value, error) {
	in := b.in
	ordered := func() (eval.Value, error) {
		v, err := in.Call(b.orderedDict, nil, nil)
		if err == nil {
			in.CountAsOwn(v.(eval.Object))
		}
		return v, err
	}
	d, err := ordered()
	if err != nil {
		return nil, err
	}
	meta, err := ordered()
	if err == nil {
		err = in.SetAttr(d, "_metadata", meta)
		in.Decref(meta)
	}
	var add func(m *eval.Instance, prefix string) error
	add = func(m *eval.Instance, prefix string) error {
		version, err := in.GetAttr(m, "_version")
		if err != nil {
			return err
		}
		local, err := in.Call(eval.DictType, nil, []eval.KeywordArg{{Name: "version", Value: version}})
		in.Decref(version)
		if err != nil {
			return err
		}
		err = in.SetItem(meta, strings.TrimSuffix(prefix, "."), local)
		in.Decref(local)
		for _, c := range children(m) {
			if err == nil {
				err = add(c.m, prefix+c.name+".")
			}
		}
		return err
	}
	if err == nil {
		err = add(o, prefix)
	}
	if err != nil {
		in.Decref(d)
		return nil, err
	}
	return d, nil
}

// loadStateDict copies each entry of sd into the module's tensor of the
// same key (param.copy_(input) under no_grad: in place, across devices
// and dtypes with no new GPU memory; into a meta tensor, nothing), or
// with assign makes it the module's (a parameter a Parameter over the
// entry's storage, requiring grad as the one it replaces), and returns
// _IncompatibleKeys.
func (b *Binding) loadStateDict(o *eval.Instance, sd *eval.Dict, strict, assign bool) (eval.Value, error) {
	in := b.in
	live := b.loadStateDictPython(o)
	defer func() {
		for _, v := range live {
			in.Decref(v)
		}
	}()
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
		// torch.no_grad(): the object, what its __enter__ makes and the
		// set_grad_enabled its __exit__ makes, freed by the next entry
		noGrad := []eval.Value{in.NewInternal(), in.NewInternal(), in.NewInternal(), in.NewInternal()}
		was := b.S.SetGradEnabled(false)
		err := in.Check()
		var r eval.Value
		if err == nil {
			r, err = in.CallMethod(e.t, "copy_", src)
		}
		b.S.SetGradEnabled(was)
		for _, v := range noGrad {
			in.Decref(v)
		}
		if err != nil {
			return nil, err
		}
		in.Decref(r)
	}
	if strict {
		splitKeys(in, o, sd, "")
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

// loadStateDictPython makes what load_state_dict's Python keeps while
// it runs, as scripts/record_gc.py --trace recorded it for an nn.Linear
// (gh20199_state_dict_cycle.py): its five cells and its load closure,
// and for each module load visits two objects; the first call in a
// process also makes three it keeps (that round adds 6, the later ones
// 1, which is the state dict's dict(...) going back to the free list).
// Its lists missing_keys, unexpected_keys and error_msgs come from
// CPython's free list of lists, and go back there as it returns: where
// that list holds two, the third is counted (the trace's round 0, whose
// free-list reads (rounds/gh20199_state_dict_cycle) find three lists
// more after it than before).
func (b *Binding) loadStateDictPython(o *eval.Instance) []eval.Value {
	in := b.in
	if !b.stateLoaded {
		b.stateLoaded = true
		for range 3 {
			b.typingHeld = append(b.typingHeld, in.NewInternal())
		}
	}
	live := []eval.Value{in.NewList(nil), in.NewList(nil), in.NewList(nil)}
	var visit func(m *eval.Instance)
	visit = func(m *eval.Instance) {
		live = append(live, in.NewInternal(), in.NewInternal())
		for _, c := range children(m) {
			visit(c.m)
		}
	}
	for range 6 {
		live = append(live, in.NewInternal())
	}
	visit(o)
	return live
}

// splitKeys makes the lists of _load_from_state_dict's strict check,
// module m's first and its children's after, as load() visits them:
// key[len(prefix):].split(".", 1) of each key of the state dict that m
// is given (those under its prefix), each list made while the one before
// is still held (input_name), the last freed as the call returns.
func splitKeys(in *eval.Interp, m *eval.Instance, sd *eval.Dict, prefix string) {
	var held eval.Value
	sd.Items(func(k, _ eval.Value) bool {
		if name, ok := k.(string); ok && strings.HasPrefix(name, prefix) {
			l := in.NewList(nil)
			if held != nil {
				in.Decref(held)
			}
			held = l
		}
		return true
	})
	if held != nil {
		in.Decref(held)
	}
	for _, c := range children(m) {
		splitKeys(in, c.m, sd, prefix+c.name+".")
	}
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
