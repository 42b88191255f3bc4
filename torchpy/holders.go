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
func (b *Binding) NameTensors(roots func(visit func(fn, name string, v eval.Value)), visit func(name string, t *engine.Tensor, member bool)) {
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
				ms := b.members.of(o, label)
				for _, l := range [][]namedMember{ms.params, ms.buffers} {
					for _, m := range l {
						if m.t.T == nil {
							continue
						}
						if _, ok := paramNames[m.t.T]; !ok {
							paramNames[m.t.T] = m.name
						}
						visit(m.name, m.t.T, true)
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
	b.members.sweep()
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

// memberCache keeps, for each module a walk of names reached and the
// label it was reached by, its parameters and buffers with their
// names, for as long as no dict they were read from changes: a walk
// is taken each time the session's peak rises before a free, and the
// model it walks rarely changes between two.
type memberCache struct {
	entries map[memberKey]*members
	walk    uint64 // the walks taken, this one included
}

type memberKey struct {
	label string
	o     *eval.Instance
}

// members are a module's parameters and buffers (named_parameters(),
// named_buffers() under the prefix label), and the dicts they were
// read from, each with its version then.
type members struct {
	params, buffers []namedMember
	read            []dictVersion
	walk            uint64 // the last walk that used them
}

type dictVersion struct {
	d *eval.Dict
	v uint64
}

// of is o's members under label, read again only where a dict they
// came from changed.
func (c *memberCache) of(o *eval.Instance, label string) *members {
	k := memberKey{label, o}
	m := c.entries[k]
	if m == nil || !m.current() {
		mods := namedModules(o, label, map[*eval.Instance]bool{}, nil)
		m = &members{params: membersOf(mods, "_parameters", false), buffers: membersOf(mods, "_buffers", false)}
		for _, nm := range mods {
			if nm.m.Dict == nil { // cleared by the collector: it holds nothing, and never will
				continue
			}
			m.read = append(m.read, dictVersion{nm.m.Dict, nm.m.Dict.Version()})
			for _, reg := range []string{"_modules", "_parameters", "_buffers"} {
				if d := sub(nm.m, reg); d != nil {
					m.read = append(m.read, dictVersion{d, d.Version()})
				}
			}
		}
		if c.entries == nil {
			c.entries = map[memberKey]*members{}
		}
		c.entries[k] = m
	}
	m.walk = c.walk + 1
	return m
}

// current reports whether no dict m was read from changed since.
func (m *members) current() bool {
	for _, r := range m.read {
		if r.d.Version() != r.v {
			return false
		}
	}
	return true
}

// sweep ends a walk: the modules it did not reach are let go.
func (c *memberCache) sweep() {
	c.walk++
	for k, m := range c.entries {
		if m.walk != c.walk {
			delete(c.entries, k)
		}
	}
}
