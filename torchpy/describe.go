package torchpy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// Describe says in one line what a module or an optimizer is and holds,
// for the step report and vars: "Linear(in_features=2, out_features=3,
// bias=True): 32 bytes of parameters on cuda:0". ok is false for other
// values.
func (b *Binding) Describe(v eval.Value) (string, bool) {
	if o, ok := isModule(v); ok {
		ps := parameters(o, map[*Tensor]bool{}, nil)
		var bytes, grads uint64
		for _, p := range ps {
			bytes += p.T.Bytes()
			if g := b.S.Grad(p.T); g != nil {
				grads += g.Bytes()
				b.S.Release(g)
			}
		}
		d := fmt.Sprintf("%s: %s of parameters", b.summary(o), allocator.FormatSize(bytes))
		if len(ps) > 0 {
			d += " on " + ps[0].T.Device().String()
		}
		if grads > 0 {
			d += fmt.Sprintf(", %s of .grad", allocator.FormatSize(grads))
		}
		return d, true
	}
	if o, ok := v.(*Optimizer); ok {
		return fmt.Sprintf("%s over %d parameters", o.cls.Name, o.numParams()), true
	}
	return "", false
}

// maxRepr is the longest module repr a step's note shows whole.
const maxRepr = 160

// summary is a module's repr on one line when it is short; else its
// class and how many submodules of each class it holds, most first:
// "GPT with 27 submodules (Linear ×9, LayerNorm ×5, ...)".
func (b *Binding) summary(o *eval.Instance) string {
	if r := b.oneLine(o, map[*eval.Instance]bool{}); len(r) <= maxRepr {
		return r
	}
	count := map[string]int{}
	var order []string
	mods := namedModules(o, "", map[*eval.Instance]bool{}, nil)[1:]
	for _, m := range mods {
		n := m.m.Type().Name
		if count[n] == 0 {
			order = append(order, n)
		}
		count[n]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprintf("%s ×%d", n, count[n])
	}
	if len(parts) > 6 {
		parts = append(parts[:6], "...")
	}
	return fmt.Sprintf("%s with %d submodules (%s)", o.Type().Name, len(mods), strings.Join(parts, ", "))
}

// oneLine is a module's repr on one line: Name(extra, child, ...); a
// module inside itself (a cycle) is "...".
func (b *Binding) oneLine(o *eval.Instance, open map[*eval.Instance]bool) string {
	if open[o] {
		return "..."
	}
	open[o] = true
	defer delete(open, o)
	var parts []string
	b.S.Reporting(func() { // EmbeddingBag's prints its weight
		if extra, err := b.in.CallMethod(o, "extra_repr"); err == nil {
			if s, _ := extra.(string); s != "" {
				parts = append(parts, strings.ReplaceAll(s, "\n", " "))
			}
			b.in.Decref(extra)
		} else {
			b.in.Drop(err)
		}
	})
	if ms := sub(o, "_modules"); ms != nil {
		ms.Items(func(_, v eval.Value) bool {
			if m, ok := isModule(v); ok {
				parts = append(parts, b.oneLine(m, open))
			}
			return true
		})
	}
	return o.Type().Name + "(" + strings.Join(parts, ", ") + ")"
}

// CUDAIndex reads an optional device argument (an index, 'cuda:N', a
// torch.device; none: the current device) as torch.cuda's functions do.
func (b *Binding) CUDAIndex(args []eval.Value, kw []eval.KeywordArg) (int, error) {
	return b.cudaIndex(args, kw)
}

// Module is the torch module of the interpreter (imported once).
func (b *Binding) Module() (*eval.ModuleObj, error) { return b.in.Import("torch") }
