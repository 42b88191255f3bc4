package torchpy

import (
	_ "embed"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// torch.layout and torch.strided (layout.py), Tensor.layout and
// Tensor.is_sparse: every tensor is strided (save_on_cpu's pack asks).

//go:embed layout.py
var layoutSource string

func init() {
	property("layout", func(b *Binding, t *Tensor) (eval.Value, error) {
		eval.Incref(b.strided)
		return b.strided, nil
	})
	property("is_sparse", func(b *Binding, t *Tensor) (eval.Value, error) { return false, nil })
}
