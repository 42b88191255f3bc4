package torchpy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// torch.return_types: the structseqs of ops that return several tensors
// (max and min along a dimension: values, indices). Each is a tuple
// subclass (isinstance(r, tuple)) with its fields as properties, n_fields
// and n_sequence_fields, that prints as PyTorch's does and frees its
// tensors in order, values first, as a structseq does
// (testdata/pyrules/ops_structseq.py, ops_div.py's del).

// structSeqFields are the fields of each return type.
var structSeqFields = []string{"values", "indices"}

// returnTypes are the op table's return types by name.
var returnTypes = map[string]*eval.Class{}

func init() {
	for _, d := range engine.OpList() {
		if rt := d.ReturnType; rt != "" && returnTypes[rt] == nil {
			returnTypes[rt] = structSeq(rt)
		}
	}
}

// structSeq is the class torch.return_types.name.
func structSeq(name string) *eval.Class {
	cls := eval.NewClass(name, "torch.return_types", eval.TupleType)
	cls.StructSeq = true
	n := int64(len(structSeqFields))
	cls.SetAttr("n_fields", n)
	cls.SetAttr("n_sequence_fields", n)
	cls.SetAttr("n_unnamed_fields", int64(0))
	for i, f := range structSeqFields {
		cls.SetAttr(f, eval.NewProperty(eval.NewBuiltin(f, "", func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			v := self.(*eval.Tuple).Items()[i]
			eval.Incref(v)
			return v, nil
		}), nil))
	}
	cls.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		parts := make([]string, len(structSeqFields))
		for i, v := range self.(*eval.Tuple).Items() {
			parts[i] = structSeqFields[i] + "=" + in.ReprOf(v)
		}
		return fmt.Sprintf("torch.return_types.%s(\n%s)", name, strings.Join(parts, ",\n")), nil
	}))
	return cls
}

func (b *Binding) returnTypesModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.return_types")
	names := make([]string, 0, len(returnTypes))
	for name := range returnTypes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		m.Set(in, name, returnTypes[name])
	}
	return m, nil
}

// namedTuple is torch.return_types.name(*items), taking over the
// references in items.
func (b *Binding) namedTuple(name string, items []eval.Value) (eval.Value, error) {
	return b.in.NewTupleOf(returnTypes[name], items), nil
}
