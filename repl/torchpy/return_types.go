package torchpy

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// torch.return_types: the named tuples of ops that return several
// tensors (max and min along a dimension: values, indices), tuples
// whose items are also attributes.
var returnTypes = map[string]*eval.Class{}

func init() {
	for _, name := range []string{"max", "min"} {
		cls := eval.NewClass(name, "torch.return_types", eval.TupleType)
		fields := []string{"values", "indices"}
		for i, f := range fields {
			cls.SetAttr(f, eval.NewProperty(eval.NewBuiltin(f, "", func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
				v := self.(*eval.Tuple).Items()[i]
				eval.Incref(v)
				return v, nil
			}), nil))
		}
		cls.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			var parts []string
			for i, v := range self.(*eval.Tuple).Items() {
				r, err := in.Repr(v)
				if err != nil {
					return nil, err
				}
				parts = append(parts, fields[i]+"="+r)
			}
			return "torch.return_types." + name + "(\n" + strings.Join(parts, ",\n") + ")", nil
		}))
		returnTypes[name] = cls
	}
}
