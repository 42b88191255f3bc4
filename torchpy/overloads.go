package torchpy

import (
	"slices"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// overloads pick among an op's PyTorch signatures, as PyTorch's argument
// parser does, by rewriting the Python arguments (a method's receiver
// first) into the one signature the op table declares.
var overloads = map[string]func(b *Binding, args []eval.Value, kw []eval.KeywordArg) ([]eval.Value, []eval.KeywordArg, error){
	// tensor_split(input, sections: int, dim) and tensor_split(input,
	// indices: sequence, dim) are tensor_split(input, sections, indices,
	// dim)
	"tensor_split": func(b *Binding, args []eval.Value, kw []eval.KeywordArg) ([]eval.Value, []eval.KeywordArg, error) {
		if len(args) < 2 {
			return args, kw, nil
		}
		if _, isInt := args[1].(int64); isInt {
			return append([]eval.Value{args[0], args[1], eval.None}, args[2:]...), kw, nil
		}
		return append([]eval.Value{args[0], eval.None, args[1]}, args[2:]...), kw, nil
	},
	// Tensor.to(dtype, ...) and Tensor.to(other, ...) are
	// to(device, dtype, ...): other's device and dtype
	"to": func(b *Binding, args []eval.Value, kw []eval.KeywordArg) ([]eval.Value, []eval.KeywordArg, error) {
		if len(args) < 2 {
			return args, kw, nil
		}
		switch x := args[1].(type) {
		case *DTypeObj:
			return append([]eval.Value{args[0], eval.None}, args[1:]...), kw, nil
		case *Tensor:
			rest := append([]eval.Value{args[0], x.T.Device().String(), dtypeObj(x.T.DType)}, args[2:]...)
			return rest, kw, nil
		}
		return args, kw, nil
	},
	// Tensor.cuda() is cuda(device=the current device): named, so that
	// the binding reads PYTORCH_CUDA_ALLOC_CONF before CUDA starts, as
	// for any device argument
	"cuda": func(b *Binding, args []eval.Value, kw []eval.KeywordArg) ([]eval.Value, []eval.KeywordArg, error) {
		current := int64(b.S.CurrentDevice())
		if len(args) > 1 {
			if args[1] == eval.None {
				args = append([]eval.Value{args[0], current}, args[2:]...)
			}
			return args, kw, nil
		}
		for i, k := range kw {
			if k.Name == "device" {
				if k.Value == eval.None {
					kw = append(slices.Clone(kw[:i]), append([]eval.KeywordArg{{Name: "device", Value: current}}, kw[i+1:]...)...)
				}
				return args, kw, nil
			}
		}
		return append(args, current), kw, nil
	},
}
