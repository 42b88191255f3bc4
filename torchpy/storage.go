package torchpy

import "github.com/gpumemrepl/gpumemrepl/python/eval"

// untypedStorage is t.untyped_storage(): it holds t's storage (through
// a detached tensor over it), so the memory lives as long as it does,
// and t.set_(storage, ...) takes it.
type untypedStorage struct {
	eval.Header
	t *Tensor
}

var untypedStorageType = eval.NewClass("UntypedStorage", "torch")

func (u *untypedStorage) Type() *eval.Class { return untypedStorageType }

func (u *untypedStorage) Traverse(visit func(eval.Value)) {
	if u.t != nil {
		visit(u.t)
	}
}

func (u *untypedStorage) Clear(in *eval.Interp) {
	if t := u.t; t != nil {
		u.t = nil
		in.Decref(t)
	}
}

// storageObj is t.untyped_storage().
func (b *Binding) storageObj(t *Tensor) eval.Value {
	return eval.Track(b.in, &untypedStorage{t: b.wrap(b.S.Detach(t.T))})
}

func init() {
	bytesOf := func(s eval.Value) int64 { return int64(s.(*untypedStorage).t.T.StorageBytes()) }
	method := func(name, doc string, f func(u *untypedStorage) eval.Value) {
		untypedStorageType.SetMethod(eval.NewBuiltin(name, doc, func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			if err := in.UnpackArgs(name, args, kw); err != nil {
				return nil, err
			}
			return f(s.(*untypedStorage)), nil
		}))
	}
	method("nbytes", "nbytes(): the storage's size in bytes", func(u *untypedStorage) eval.Value { return bytesOf(u) })
	method("size", "size(): an untyped storage's size is its bytes", func(u *untypedStorage) eval.Value { return bytesOf(u) })
	method("data_ptr", "data_ptr(): the storage's address", func(u *untypedStorage) eval.Value { return int64(u.t.T.StoragePtr()) })
	method("element_size", "element_size(): an untyped storage's elements are bytes", func(u *untypedStorage) eval.Value { return int64(1) })
	property := func(name string, f func(u *untypedStorage) eval.Value) {
		untypedStorageType.SetAttr(name, eval.NewProperty(eval.NewBuiltin(name, "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return f(s.(*untypedStorage)), nil
		}), nil))
	}
	property("device", func(u *untypedStorage) eval.Value { return u.t.b.deviceObj(u.t.T.Device()) })
	property("is_cuda", func(u *untypedStorage) eval.Value { return u.t.T.Device().CUDA })
	// a storage is made with its tensor here; one of its own (memory
	// not under any tensor) is not modelled
	untypedStorageType.New = func(in *eval.Interp, _ *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return nil, in.Refuse(eval.NotImplementedErrType, "torch.UntypedStorage(...) is not modelled by gpumemrepl: a storage is made with its tensor (Tensor.untyped_storage())")
	}
}

// tensorSet is t.set_(source=None, storage_offset=0, size=None,
// stride=None): source a tensor (its storage, offset, shape and
// strides; nothing else may be given), an untyped storage (laid out
// from storage_offset by size and stride: the whole storage as one
// dimension without size), or none (an empty storage).
func (b *Binding) tensorSet(t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	var src, offset, size, stride eval.Value = eval.None, int64(0), eval.None, eval.None
	if err := b.in.UnpackArgs("set_", args, kw, "source?", &src, "storage_offset?", &offset, "size?", &size, "stride?", &stride); err != nil {
		return nil, err
	}
	var err error
	switch s := src.(type) {
	case *untypedStorage:
		err = b.setStorage(t, s, offset, size, stride)
	case *Tensor:
		if len(args)+len(kw) > 1 {
			return nil, b.in.Raise(eval.TypeErrorType, "set_(source, storage_offset, size, stride) takes an untyped storage, not a Tensor, with a layout")
		}
		err = b.pyErr(b.S.SetSource(t.T, s.T))
	default:
		if src != eval.None {
			return nil, b.in.Raise(eval.TypeErrorType, "set_(): source must be a Tensor or an UntypedStorage, not %s", eval.TypeOf(src).Name)
		}
		err = b.pyErr(b.S.SetSource(t.T, nil))
	}
	if err != nil {
		return nil, err
	}
	eval.Incref(t)
	return t, nil
}

// setStorage is tensorSet of an untyped storage.
func (b *Binding) setStorage(t *Tensor, s *untypedStorage, offset, size, stride eval.Value) error {
	off, err := b.in.Index(offset)
	if err != nil {
		return err
	}
	var shape, strides []int64
	if size == eval.None {
		shape = []int64{int64(s.t.T.StorageBytes()/t.T.DType.Size) - off}
	} else if shape, err = b.intsOf("set_", size); err != nil {
		return err
	}
	if stride != eval.None {
		if strides, err = b.intsOf("set_", stride); err != nil {
			return err
		}
	}
	return b.pyErr(b.S.SetStorage(t.T, s.t.T, off, shape, strides))
}
