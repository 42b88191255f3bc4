package torchpy

import (
	"fmt"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// maxItems is how many items of a list, tuple or dict the walk of names
// looks into.
const maxItems = 256

// NameTensors visits the tensors that the values roots gives can reach,
// each under the name a reader knows it by: a variable (h, or h in
// forward for a function's local), a module's parameters and buffers by
// their path (model.blocks.0.qkv.weight), an optimizer's state by its
// parameter's name (AdamW state exp_avg of model.head.weight), the
// tensors in a list, tuple or dict (batch[0], out['logits']). Module
// level names come first, so a parameter is named by its model's path
// before a method's self.weight.
func (b *Binding) NameTensors(roots func(visit func(fn, name string, v eval.Value)), visit func(name string, t *engine.Tensor, buffer bool)) {
	type root struct {
		label string
		v     eval.Value
	}
	var module, local []root
	roots(func(fn, name string, v eval.Value) {
		if strings.HasPrefix(name, "__") || strings.HasPrefix(name, ".") {
			return
		}
		if fn == "<module>" {
			module = append(module, root{name, v})
		} else {
			local = append(local, root{name + " in " + fn, v})
		}
	})
	paramNames := map[*engine.Tensor]string{}
	var opts []root
	value := func(label string, v eval.Value) {
		switch x := v.(type) {
		case *Tensor:
			if x.T != nil {
				visit(label, x.T, false)
			}
		case *Optimizer:
			opts = append(opts, root{label, x})
		default:
			if o, ok := isModule(v); ok {
				for _, reg := range []string{"_parameters", "_buffers"} {
					for _, m := range namedMembers(o, reg, label, true, false) {
						if m.t.T == nil {
							continue
						}
						if _, ok := paramNames[m.t.T]; !ok {
							paramNames[m.t.T] = m.name
						}
						visit(m.name, m.t.T, reg == "_buffers")
					}
				}
			}
		}
	}
	walk := func(rs []root) {
		for _, r := range rs {
			value(r.label, r.v)
			switch c := r.v.(type) {
			case *eval.List:
				for i, it := range c.Items()[:min(len(c.Items()), maxItems)] {
					value(fmt.Sprintf("%s[%d]", r.label, i), it)
				}
			case *eval.Tuple:
				for i, it := range c.Items()[:min(len(c.Items()), maxItems)] {
					value(fmt.Sprintf("%s[%d]", r.label, i), it)
				}
			case *eval.Dict:
				n := 0
				c.Items(func(k, v eval.Value) bool {
					if s, ok := k.(string); ok {
						value(fmt.Sprintf("%s[%q]", r.label, s), v)
					}
					n++
					return n < maxItems
				})
			}
		}
	}
	walk(module)
	walk(local)
	for _, r := range opts {
		o := r.v.(*Optimizer)
		if o.o == nil {
			continue
		}
		ps, states := o.o.State()
		for i, p := range ps {
			of, ok := paramNames[p]
			if !ok {
				of = fmt.Sprintf("its parameter %d", i)
			}
			for j, t := range states[i].Tensors {
				visit(fmt.Sprintf("%s state %s of %s", o.cls.Name, states[i].Names[j], of), t, false)
			}
		}
	}
}
