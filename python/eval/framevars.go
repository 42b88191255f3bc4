package eval

// FrameVars visits the values the running code names, innermost frame
// first: a function's locals (a cell's value for a cell variable), then
// a module's or class body's namespace, each frame once. fn is the
// frame's function name ("<module>" for a module); a frame seen again
// (the module, through each function's globals) is not visited twice.
func (in *Interp) FrameVars(visit func(fn, name string, v Value)) {
	seen := map[*Dict]bool{}
	dict := func(fn string, d *Dict) {
		if d == nil || seen[d] {
			return
		}
		seen[d] = true
		d.Items(func(k, v Value) bool {
			if name, ok := k.(string); ok {
				visit(fn, name, v)
			}
			return true
		})
	}
	for fr := in.frame; fr != nil; fr = fr.back {
		if fr.code != nil && fr.code.scope != nil {
			for i, name := range fr.code.scope.Locals {
				if i >= len(fr.locals) || fr.locals[i] == nil {
					continue
				}
				v := fr.locals[i]
				if c, ok := v.(*Cell); ok && fr.code.cells[name] {
					v = c.V
				}
				if v != nil {
					visit(fr.name, name, v)
				}
			}
		}
		dict(fr.name, fr.ns)
	}
	for fr := in.frame; fr != nil; fr = fr.back {
		dict("<module>", fr.globals)
	}
}
