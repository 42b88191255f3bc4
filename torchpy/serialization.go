package torchpy

import (
	"errors"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// serialization declares torch.load: a checkpoint's objects, its tensors
// allocated where torch.load would put them, their data never read.
func (b *Binding) serialization(m *eval.ModuleObj) {
	b.fn(m, "save", "save(obj, f): writes the checkpoint PyTorch writes (tensors' values where the tool knows them, else zeros)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.save(in, args, kw)
	})
	b.fn(m, "load", "load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None): reads the checkpoint's pickle and zip directory, not its tensor data", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("load", args, kw, 1, "f", "map_location", "pickle_module", "weights_only", "mmap")
		if err != nil {
			return nil, err
		}
		path, ok := a[0].(string)
		if !ok {
			return nil, b.notModelled("torch.load of a " + in.TypeName(a[0]) + " (a path is read)")
		}
		if a[2] != nil && a[2] != eval.None {
			return nil, b.notModelled("torch.load with a pickle_module")
		}
		mmap, err := b.boolArg(optional(a[4]), false)
		if err != nil {
			return nil, err
		}
		where, err := b.mapLocation(optional(a[1]))
		if err != nil {
			return nil, err
		}
		f, err := engine.OpenSaved(path)
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			return nil, in.RaiseOS(err)
		case err != nil:
			return nil, in.Raise(eval.RuntimeErrorType, "%v", err)
		case f.Legacy && mmap:
			return nil, in.Raise(eval.RuntimeErrorType, "mmap can only be used with files saved with `torch.save(%s, _use_new_zipfile_serialization=True), please torch.save your checkpoint with this option in order to use mmap.", path)
		case f.Legacy:
			return nil, b.notModelled("torch.load of a checkpoint in the format from before PyTorch 1.6 (_use_new_zipfile_serialization=False)")
		}
		l := &savedLoad{b: b, loader: b.S.NewSavedLoader(mmap), where: where, made: map[any]eval.Value{}}
		defer l.loader.Close()
		return l.value(f.Root)
	})
}

// save is torch.save(obj, f): the checkpoint PyTorch writes, its
// tensors' data the values the tool knows (zeros where it knows none).
func (b *Binding) save(in *eval.Interp, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	a, err := in.ArgSpec("save", args, kw, 2, "obj", "f", "pickle_module", "pickle_protocol", "_use_new_zipfile_serialization", "_disable_byteorder_record")
	if err != nil {
		return nil, err
	}
	path, ok := a[1].(string)
	if !ok {
		return nil, b.notModelled("torch.save to a " + in.TypeName(a[1]) + " (a path is written)")
	}
	if p := optional(a[2]); p != nil {
		return nil, b.notModelled("torch.save with a pickle_module")
	}
	if p, ok := optional(a[3]).(int64); optional(a[3]) != nil && (!ok || p != 2) {
		return nil, b.notModelled("torch.save with a pickle_protocol other than 2")
	}
	if zipped, err := b.boolArg(optional(a[4]), true); err != nil || !zipped {
		if err == nil {
			err = b.notModelled("torch.save(_use_new_zipfile_serialization=False), the format from before PyTorch 1.6")
		}
		return nil, err
	}
	if off, err := b.boolArg(optional(a[5]), false); err != nil || off {
		if err == nil {
			err = b.notModelled("torch.save(_disable_byteorder_record=True)")
		}
		return nil, err
	}
	obj, err := b.savedValue(a[0], map[eval.Value]any{}, 0)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(path)
	o := engine.SaveOptions{Name: strings.TrimSuffix(base, filepath.Ext(base))}
	write := func(w io.Writer) error { return b.S.Save(w, obj, o) }
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		// a device (os.devnull) or a pipe: written as it is
		var f *os.File
		if f, err = os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			err = write(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return nil, in.RaiseOS(err)
		}
		return eval.None, nil
	}
	err = fileio.Write(path, nil, write)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, in.RaiseOS(err)
	case err != nil:
		return nil, b.pyErr(err)
	}
	return eval.None, nil
}

// savedValue is v as engine.Session.Save takes it: plain data, an
// OrderedDict with its attributes as BUILD's state, a tensor or a
// parameter; each object met again the same value.
func (b *Binding) savedValue(v eval.Value, made map[eval.Value]any, depth int) (any, error) {
	in := b.in
	if depth > 1000 {
		return nil, in.Raise(eval.RecursionErrorType, "maximum recursion depth exceeded while pickling an object")
	}
	if o, ok := v.(eval.Object); ok {
		if m, ok := made[o]; ok {
			return m, nil
		}
	}
	switch x := v.(type) {
	case eval.NoneType:
		return nil, nil
	case bool, int64, float64, string, *big.Int:
		return x, nil
	case *Tensor:
		var out any = x.T
		if x.param {
			out = engine.SavedParameter{T: x.T}
		}
		made[x] = out
		return out, nil
	case *eval.Tuple:
		if x.Type() != eval.TupleType {
			break
		}
		out := make(snapshot.Tuple, len(x.Items()))
		for i, e := range x.Items() {
			var err error
			if out[i], err = b.savedValue(e, made, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *eval.List:
		out := &snapshot.List{}
		made[x] = out
		for _, e := range x.Items() {
			item, err := b.savedValue(e, made, depth+1)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, item)
		}
		return out, nil
	}
	d, ok := eval.DictOf(v)
	if !ok {
		return nil, b.notModelled("torch.save of a " + in.TypeName(v) + " (dicts, OrderedDicts, lists, tuples, numbers, strings, None and tensors are written)")
	}
	out := &snapshot.Dict{}
	made[v] = out
	var err error
	d.Items(func(k, val eval.Value) bool {
		var kk, vv any
		if kk, err = b.savedValue(k, made, depth+1); err == nil {
			vv, err = b.savedValue(val, made, depth+1)
		}
		out.Items = append(out.Items, snapshot.Pair{Key: kk, Value: vv})
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if inst, ok := v.(*eval.Instance); ok {
		if in.TypeName(v) != "OrderedDict" {
			return nil, b.notModelled("torch.save of a " + in.TypeName(v))
		}
		out.Ordered = true
		if inst.Dict.Len() > 0 {
			if out.State, err = b.savedValue(inst.Dict, made, depth+1); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// optional is a keyword's value, nil for None.
func optional(v eval.Value) eval.Value {
	if v == eval.None {
		return nil
	}
	return v
}

// mapLocation reads torch.load's map_location (None, a device or its
// string, or a dict from saved locations to devices) as the device of
// each saved location.
func (b *Binding) mapLocation(v eval.Value) (func(string) (engine.Device, error), error) {
	own := func(loc string) (engine.Device, error) { return b.parseDevice(loc) }
	switch x := v.(type) {
	case nil:
		return own, nil
	case string, *DeviceObj:
		d, err := b.parseDevice(x)
		return func(string) (engine.Device, error) { return d, err }, nil
	case *eval.Dict:
		return func(loc string) (engine.Device, error) {
			if to, ok := x.GetStr(loc); ok {
				return b.parseDevice(to)
			}
			return own(loc)
		}, nil
	}
	return nil, b.notModelled("map_location of a " + b.in.TypeName(v) + " (a device, its name or a dict of them is modelled)")
}

// savedLoad turns a checkpoint's objects into Python values, each shared
// one made once.
type savedLoad struct {
	b      *Binding
	loader *engine.SavedLoader
	where  func(string) (engine.Device, error)
	made   map[any]eval.Value
}

// value is v as a new reference.
func (l *savedLoad) value(v any) (eval.Value, error) {
	in := l.b.in
	switch v.(type) {
	case *snapshot.List, *snapshot.Dict, *engine.SavedTensor:
		if o, ok := l.made[v]; ok {
			eval.Incref(o)
			return o, nil
		}
	}
	switch x := v.(type) {
	case nil:
		return eval.None, nil
	case bool, int64, float64, string:
		return x, nil
	case *big.Int:
		return x, nil
	case []byte:
		return eval.Bytes(x), nil
	case snapshot.Tuple:
		items, err := l.values(x)
		if err != nil {
			return nil, err
		}
		return in.NewTuple(items), nil
	case *snapshot.List:
		out := in.NewList(nil)
		l.made[v] = out
		for _, e := range x.Items {
			item, err := l.value(e)
			if err != nil {
				in.Decref(out)
				return nil, err
			}
			out.Append(item)
			in.Decref(item)
		}
		return out, nil
	case *snapshot.Dict:
		return l.dict(x)
	case *engine.SavedTensor:
		dev, err := l.where(x.Location)
		if err != nil {
			return nil, err
		}
		et, err := l.loader.Tensor(x, dev)
		if err != nil {
			return nil, l.b.pyErr(err)
		}
		t := l.b.wrap(et)
		t.param = x.Parameter
		l.made[v] = t
		return t, nil
	}
	return nil, in.Raise(eval.RuntimeErrorType, "torch.load: a %T in the checkpoint", v) // not reached: SavedFile holds no other kind
}

// values are each of vs as a new reference.
func (l *savedLoad) values(vs []any) ([]eval.Value, error) {
	out := make([]eval.Value, 0, len(vs))
	for _, e := range vs {
		item, err := l.value(e)
		if err != nil {
			for _, o := range out {
				l.b.in.Decref(o)
			}
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// dict is a dict, or a collections.OrderedDict with its _metadata.
func (l *savedLoad) dict(x *snapshot.Dict) (eval.Value, error) {
	in := l.b.in
	var out eval.Value
	if x.Ordered {
		collections, err := in.Import("collections")
		if err != nil {
			return nil, err
		}
		cls, err := in.GetAttr(collections, "OrderedDict")
		if err != nil {
			return nil, err
		}
		out, err = in.Call(cls, nil, nil)
		in.Decref(cls)
		if err != nil {
			return nil, err
		}
	} else {
		out = in.NewDict()
	}
	l.made[x] = out
	fail := func(err error) (eval.Value, error) {
		in.Decref(out)
		return nil, err
	}
	for _, it := range x.Items {
		kv, err := l.values([]any{it.Key, it.Value})
		if err != nil {
			return fail(err)
		}
		err = in.SetItem(out, kv[0], kv[1])
		in.Decref(kv[0])
		in.Decref(kv[1])
		if err != nil {
			return fail(err)
		}
	}
	if st, ok := x.State.(*snapshot.Dict); ok && x.Ordered {
		for _, it := range st.Items {
			name, ok := it.Key.(string)
			if !ok {
				continue
			}
			v, err := l.value(it.Value)
			if err != nil {
				return fail(err)
			}
			err = in.SetAttr(out, name, v)
			in.Decref(v)
			if err != nil {
				return fail(err)
			}
		}
	}
	return out, nil
}
