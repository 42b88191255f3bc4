package eval

import "sort"

// Dir is the attribute names dir(v) lists, sorted: a module's namespace;
// a class's and its bases'; for any other value its own (an instance's
// __dict__) and its type's.
func Dir(v Value) []string {
	seen := map[string]bool{}
	add := func(d *Dict) {
		if d == nil {
			return
		}
		d.Items(func(k, _ Value) bool {
			if s, ok := k.(string); ok {
				seen[s] = true
			}
			return true
		})
	}
	classes := TypeOf(v).MRO
	switch o := v.(type) {
	case *ModuleObj:
		add(o.Dict)
		classes = nil
	case *Class:
		classes = o.MRO
	case *Instance:
		add(o.Dict)
	}
	for _, c := range classes {
		add(c.Dict)
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
