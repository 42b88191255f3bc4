package syntax

// nameScope is where a name of a scope lives, as CPython's symbol table
// analysis decides.
type nameScope uint8

const (
	scopeLocal nameScope = iota + 1
	scopeFree
	scopeGlobalExplicit
	scopeGlobalImplicit
)

// nameSet is a set of names that remembers the order they came in.
type nameSet struct {
	list []string
	has  map[string]bool
}

func newNameSet() *nameSet { return &nameSet{has: map[string]bool{}} }

// clone copies s; the clone of nil is nil.
func (s *nameSet) clone() *nameSet {
	if s == nil {
		return nil
	}
	c := newNameSet()
	c.addAll(s)
	return c
}

func (s *nameSet) add(name string) {
	if !s.has[name] {
		s.has[name] = true
		s.list = append(s.list, name)
	}
}

func (s *nameSet) addAll(o *nameSet) {
	if o != nil {
		for _, name := range o.list {
			if o.has[name] {
				s.add(name)
			}
		}
	}
}

// contains reports whether s holds name; nil holds nothing.
func (s *nameSet) contains(name string) bool { return s != nil && s.has[name] }

// remove drops name; the order list keeps it, marked absent.
func (s *nameSet) remove(name string) {
	if s != nil {
		delete(s.has, name)
	}
}

// names returns the names s holds, in order.
func (s *nameSet) names() []string {
	var out []string
	for _, name := range s.list {
		if s.has[name] {
			out = append(out, name)
		}
	}
	return out
}

// analyze decides where each name of s lives, as CPython does, and fills
// s's Scope and its children's. bound holds the names enclosing function
// scopes bind (nil at module level), global those declared global there.
// It returns the names free in s or in its children.
func (r *resolver) analyze(s *symScope, bound, global *nameSet) *nameSet {
	bound, global = bound.clone(), global.clone()
	scopes := map[string]nameScope{}
	local, free := newNameSet(), newNameSet()
	newBound, newGlobal := newNameSet(), newNameSet()
	if s.kind == classScope {
		// A class's own names are not visible in the functions it holds.
		newGlobal.addAll(global)
		newBound.addAll(bound)
	}
	for _, name := range s.order {
		f := s.flags[name]
		switch {
		case f&symGlobal != 0:
			if f&symNonlocal != 0 {
				r.fail(s.directives[name], "name '%s' is nonlocal and global", name)
			}
			scopes[name] = scopeGlobalExplicit
			global.add(name)
			bound.remove(name)
		case f&symNonlocal != 0:
			if bound == nil {
				r.fail(s.directives[name], "nonlocal declaration not allowed at module level")
			}
			if !bound.contains(name) {
				r.fail(s.directives[name], "no binding for nonlocal '%s' found", name)
			}
			scopes[name] = scopeFree
			free.add(name)
		case f&symBound != 0:
			scopes[name] = scopeLocal
			local.add(name)
			global.remove(name)
		case bound.contains(name):
			scopes[name] = scopeFree
			free.add(name)
		default:
			scopes[name] = scopeGlobalImplicit
		}
	}
	if s.kind == classScope {
		newBound.add("__class__") // what super() and __class__ in a method find
	} else {
		if s.kind == functionScope {
			newBound.addAll(local)
		}
		newBound.addAll(bound)
		newGlobal.addAll(global)
	}
	childFree := newNameSet()
	for _, c := range s.children {
		childFree.addAll(r.analyze(c, newBound, newGlobal))
	}
	if s.out != nil {
		fillScope(s, scopes, childFree, bound)
	}
	if s.out != nil {
		for _, name := range s.out.Cells {
			childFree.remove(name) // taken from here, not passed on
		}
	}
	free.addAll(childFree)
	return free
}

// fillScope writes s's Scope. childFree are the names its children take
// from it or from further out.
func fillScope(s *symScope, scopes map[string]nameScope, childFree, bound *nameSet) {
	out := s.out
	isParam := map[string]bool{}
	out.Locals = append(out.Locals, s.params...)
	for _, p := range s.params {
		isParam[p] = true
	}
	for _, name := range s.order {
		switch scopes[name] {
		case scopeLocal:
			if !isParam[name] {
				out.Locals = append(out.Locals, name)
			}
		case scopeFree:
			out.Free = append(out.Free, name)
		case scopeGlobalExplicit:
			out.Globals = append(out.Globals, name)
		}
		if s.flags[name]&symNonlocal != 0 {
			out.Nonlocals = append(out.Nonlocals, name)
		}
	}
	if s.kind == classScope && childFree.contains("__class__") {
		out.Cells = append(out.Cells, "__class__")
	}
	if s.kind == functionScope {
		for _, name := range out.Locals {
			if childFree.contains(name) {
				out.Cells = append(out.Cells, name)
			}
		}
	}
	for _, name := range childFree.names() {
		sc, known := scopes[name]
		switch {
		case name == "__class__" && s.kind == classScope:
		case !known && bound.contains(name):
			out.Free = append(out.Free, name) // passed through to a child
		case known && s.kind == classScope && (sc == scopeLocal || sc == scopeGlobalExplicit) && bound.contains(name):
			out.Free = append(out.Free, name) // a class name that a method takes from outside
		}
	}
}
