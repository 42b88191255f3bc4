package torchpy

import (
	"math"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// pyNumber is a tensor element as item() and tolist() give it: an int
// for integral dtypes, a bool for bool, a float for float32 (the value
// rounded to float32) and float64; ok false where the tool would have
// to round to a narrower float (float16, bfloat16) and the value is not
// an exact small integer.
func pyNumber(v float64, dt engine.DType) (eval.Value, bool) {
	switch dt.Name {
	case "bool":
		return v != 0, true
	case "float64":
		return v, true
	case "float32":
		return float64(float32(v)), true
	case "float16", "bfloat16":
		if v == math.Trunc(v) && math.Abs(v) <= 256 {
			return v, true
		}
		return nil, false
	}
	return int64(v), true
}

// knownItem is t.item() when the tool knows t's value.
func knownItem(t *engine.Tensor) (eval.Value, bool) {
	vals, ok := t.Values()
	if !ok || len(vals) != 1 {
		return nil, false
	}
	return pyNumber(vals[0], t.DType)
}

// tolist is t.tolist(): nested lists of its elements when the tool knows
// them; otherwise the values are not computed.
func (b *Binding) tolist(t *engine.Tensor) (eval.Value, error) {
	if t.Numel() > eval.MaxItems {
		return nil, b.in.Refuse(eval.MemoryErrorType, "this tool builds containers of at most %d items", eval.MaxItems)
	}
	vals, ok := t.Values()
	if !ok {
		return eval.Unknown{What: "tensor.tolist()"}, nil
	}
	items := make([]eval.Value, len(vals))
	for i, v := range vals {
		n, ok := pyNumber(v, t.DType)
		if !ok {
			return eval.Unknown{What: "tensor.tolist()"}, nil
		}
		items[i] = n
	}
	if len(t.Shape) == 0 {
		return items[0], nil
	}
	var nest func(dim int, items []eval.Value) eval.Value
	nest = func(dim int, items []eval.Value) eval.Value {
		if dim == len(t.Shape)-1 {
			return b.in.NewList(items)
		}
		n := int(t.Shape[dim])
		step := 0
		if n > 0 {
			step = len(items) / n
		}
		out := make([]eval.Value, n)
		for i := range n {
			out[i] = nest(dim+1, items[i*step:(i+1)*step])
		}
		return b.in.NewList(out)
	}
	return nest(0, items), nil
}

func init() {
	tensorMethod("tolist", "tolist(): the elements as nested lists, when the tool knows them", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("tolist", args, 0); err != nil {
			return nil, err
		}
		return b.tolist(t.T)
	})
	tensorMethod("numpy", "numpy(*, force=False): an array sharing the host tensor's memory (no copy); force=True copies a CUDA tensor to the host first", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		vs, err := b.in.ArgSpec("numpy", args, kw, 0, "force")
		if err != nil {
			return nil, err
		}
		force := eval.Value(false)
		if vs[0] != nil {
			force = vs[0]
		}
		return b.in.Call(b.toNumpy, []eval.Value{t, force}, nil)
	})
}

// Tensor.new, the legacy constructor, as PyTorch's legacy_tensor_new
// reads its arguments: sizes (ints, or one torch.Size) make an
// uninitialized tensor of the tensor's dtype and device (new_empty);
// one list or tuple is data (torch.tensor(data) of that dtype and
// device); no argument an empty one.
func init() {
	tensorMethod("new", "new(*sizes) or new(data): new_empty(sizes), or torch.tensor(data), of this tensor's dtype and device", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		call := func(name string, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			f, err := b.in.GetAttr(t, name)
			if err != nil {
				return nil, err
			}
			defer b.in.Decref(f)
			return b.in.Call(f, args, kw)
		}
		if len(args) == 1 {
			switch x := args[0].(type) {
			case *eval.Tuple:
				if x.Type() == SizeType {
					return call("new_empty", args, kw)
				}
				return call("new_tensor", args, kw)
			case *eval.List:
				return call("new_tensor", args, kw)
			}
		}
		size := b.in.NewTuple(slices.Clone(args))
		defer b.in.Decref(size)
		if len(args) == 0 {
			return call("new_empty", []eval.Value{b.in.NewTuple([]eval.Value{int64(0)})}, kw)
		}
		return call("new_empty", []eval.Value{size}, kw)
	})
}
