package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// KeywordArg is one keyword argument of a call.
type KeywordArg struct {
	Name  string
	Value Value
}

// Function is a function made by def or lambda.
type Function struct {
	Header
	Name, QualName string
	Module         string
	code           *code
	params         *syntax.Arguments
	body           []syntax.Stmt // def
	expr           syntax.Expr   // lambda
	globals        *Dict
	defaults       []Value // for the last len(defaults) positional parameters
	kwdefaults     []Value // per keyword-only parameter; nil where none
	closure        []*Cell // the cells of code.free, in order
	// closureTuple is the tuple of those cells CPython makes for the
	// function (func_closure), from its free list where it has one
	closureTuple *Tuple
	dict         *Dict // function attributes, made on first use
	file         string
	line         int32
}

// Type is function.
func (f *Function) Type() *Class { return FunctionType }

// Traverse visits what the function holds: globals, defaults, closure.
func (f *Function) Traverse(visit func(Value)) {
	visit(f.globals)
	for _, v := range f.defaults {
		visit(v)
	}
	for _, v := range f.kwdefaults {
		if v != nil {
			visit(v)
		}
	}
	for _, c := range f.closure {
		visit(c)
	}
	if f.closureTuple != nil {
		visit(f.closureTuple)
	}
	if f.dict != nil {
		visit(f.dict)
	}
}

// Clear drops what the function holds.
func (f *Function) Clear(in *Interp) {
	g, defs, kwd, cl, d, ct := f.globals, f.defaults, f.kwdefaults, f.closure, f.dict, f.closureTuple
	f.globals, f.defaults, f.kwdefaults, f.closure, f.dict, f.closureTuple = nil, nil, nil, nil, nil, nil
	in.decrefAll(defs)
	if ct != nil {
		in.Decref(ct)
	}
	for _, v := range kwd {
		if v != nil {
			in.Decref(v)
		}
	}
	for _, c := range cl {
		in.Decref(c)
	}
	if d != nil {
		in.Decref(d)
	}
	if g != nil {
		in.Decref(g)
	}
}

// Builtin is a function written in Go: a builtin, a method of a Go
// type, or one bound to its receiver (Self).
type Builtin struct {
	Header
	Name string
	Fn   func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error)
	Self Value // the receiver of a bound method, or nil
	// Method is set for a method of a class (SetMethod): called
	// unbound, its first argument is the receiver.
	Method bool
	// Doc is the one-line signature and summary help shows.
	Doc string
	// Owner is the class a method was declared on (SetMethod): called
	// unbound, its receiver must be an instance of it.
	Owner *Class
	// VarArgs is set for a method CPython declares METH_VARARGS
	// (str.find, set.union): called as a bound method object, it
	// refuses keywords under its bare name ("find() takes no keyword
	// arguments"), where obj.find(x=1) names its class.
	VarArgs bool
}

// Type is builtin_function_or_method.
func (b *Builtin) Type() *Class { return BuiltinType }

// Traverse visits the receiver.
func (b *Builtin) Traverse(visit func(Value)) {
	if b.Self != nil {
		visit(b.Self)
	}
}

// Clear drops the receiver.
func (b *Builtin) Clear(in *Interp) {
	s := b.Self
	b.Self = nil
	if s != nil {
		in.Decref(s)
	}
}

// NewBuiltin declares a Go function (never freed: declared once for
// the session).
func NewBuiltin(name, doc string, fn func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error)) *Builtin {
	b := &Builtin{Name: name, Fn: fn, Doc: doc}
	b.refs = 1 << 30
	return b
}

// bind returns b bound to self (a new, counted object).
func (in *Interp) bindBuiltin(b *Builtin, self Value) *Builtin {
	nb := &Builtin{Name: b.Name, Fn: b.Fn, Self: newRef(self), Doc: b.Doc, Method: true, VarArgs: b.VarArgs}
	in.track(nb)
	return nb
}

// code is what a function's Scope tells of its names, made once per
// definition: where each name lives in a frame.
type code struct {
	name   string
	scope  *syntax.Scope
	slots  map[string]int // local name -> index in Frame.locals
	cells  map[string]bool
	free   map[string]int // free name -> index in Function.closure
	global map[string]bool
	gen    bool
	nlocal int
}

func newCode(name string, sc *syntax.Scope) *code {
	c := &code{name: name, scope: sc, slots: map[string]int{}, cells: map[string]bool{}, free: map[string]int{}, global: map[string]bool{}}
	if sc == nil {
		return c
	}
	for i, n := range sc.Locals {
		c.slots[n] = i
	}
	for _, n := range sc.Cells {
		c.cells[n] = true
	}
	for i, n := range sc.Free {
		c.free[n] = i
	}
	for _, n := range sc.Globals {
		c.global[n] = true
	}
	c.gen = sc.HasYield
	c.nlocal = len(sc.Locals)
	return c
}

// codeFor returns the code of a scope, made on first use.
func (in *Interp) codeFor(name string, sc *syntax.Scope) *code {
	if c, ok := in.codes[sc]; ok {
		return c
	}
	c := newCode(name, sc)
	in.codes[sc] = c
	return c
}

// bindArgs puts a call's arguments into a new frame's parameter slots
// in CPython's order (positional arguments, the keywords, then the
// checks), with CPython's TypeError texts. It takes over the references
// of args and the keyword values: each goes into its slot, the *args
// tuple or the **kwargs dict, or is let go where CPython lets go of it
// (an extra positional argument at once; at a keyword's error, that
// keyword's value and those after it). What the frame holds goes with it.
func (in *Interp) bindArgs(f *Function, fr *Frame, args []Value, kw []KeywordArg) error {
	p := f.params
	name := f.QualName // CPython 3.10 and later name the function by its qualified name
	positional := append(append([]*syntax.Arg(nil), p.Posonlyargs...), p.Args...)
	np := len(positional)
	n := min(len(args), np)
	copy(fr.locals, args[:n])
	slot := np + len(p.Kwonlyargs)
	if p.Vararg != nil {
		fr.locals[slot] = in.NewTuple(slices.Clone(args[n:]))
		slot++
	} else {
		for _, a := range args[n:] {
			in.Decref(a)
		}
	}
	var kwargs *Dict
	if p.Kwarg != nil {
		kwargs = in.NewDict()
		fr.locals[slot] = kwargs
	}
	for i, k := range kw {
		idx := paramIndex(p, positional, k.Name)
		if idx < 0 && kwargs != nil {
			err := in.dictSet(kwargs, k.Name, k.Value)
			in.Decref(k.Value)
			if err != nil {
				in.dropArgs(nil, kw[i+1:])
				return err
			}
			continue
		}
		var err error
		switch {
		case idx < 0 && posonlyPassed(p, kw) != "":
			err = in.typeError("%s() got some positional-only arguments passed as keyword arguments: '%s'", name, posonlyPassed(p, kw))
		case idx < 0:
			err = in.typeError("%s() got an unexpected keyword argument '%s'", name, k.Name)
		case fr.locals[idx] != nil:
			err = in.typeError("%s() got multiple values for argument '%s'", name, k.Name)
		}
		if err != nil {
			in.dropArgs(nil, kw[i:])
			return err
		}
		fr.locals[idx] = k.Value
	}
	if len(args) > np && p.Vararg == nil {
		given, verb := "", wasWere(len(args))
		if k := countSet(fr.locals[np : np+len(p.Kwonlyargs)]); k > 0 {
			given = fmt.Sprintf(" positional argument%s (and %d keyword-only argument%s)", plural(len(args)), k, plural(k))
			verb = "were"
		}
		return in.typeError("%s() takes %s but %d%s %s given", name, countArgs(np, len(f.defaults), "positional argument"), len(args), given, verb)
	}
	set := func(i int, v Value) { fr.locals[i] = newRef(v) }
	// defaults, and what is missing
	var missing []string
	firstDefault := np - len(f.defaults)
	for i := range np {
		if fr.locals[i] != nil {
			continue
		}
		if i >= firstDefault {
			set(i, f.defaults[i-firstDefault])
			continue
		}
		missing = append(missing, "'"+positional[i].Arg+"'")
	}
	if len(missing) > 0 {
		return in.typeError("%s() missing %d required positional argument%s: %s", name, len(missing), plural(len(missing)), joinMissing(missing))
	}
	for i, a := range p.Kwonlyargs {
		if fr.locals[np+i] != nil {
			continue
		}
		if d := f.kwdefaults[i]; d != nil {
			set(np+i, d)
			continue
		}
		missing = append(missing, "'"+a.Arg+"'")
	}
	if len(missing) > 0 {
		return in.typeError("%s() missing %d required keyword-only argument%s: %s", name, len(missing), plural(len(missing)), joinMissing(missing))
	}
	return nil
}

// paramIndex is the frame slot of the parameter a keyword names, or -1
// (a positional-only parameter cannot be named).
func paramIndex(p *syntax.Arguments, positional []*syntax.Arg, name string) int {
	for i, a := range positional[len(p.Posonlyargs):] {
		if a.Arg == name {
			return len(p.Posonlyargs) + i
		}
	}
	for i, a := range p.Kwonlyargs {
		if a.Arg == name {
			return len(positional) + i
		}
	}
	return -1
}

// posonlyPassed lists the positional-only parameters that keywords
// name, in the parameters' order, as CPython's error names them.
func posonlyPassed(p *syntax.Arguments, kw []KeywordArg) string {
	var names []string
	for _, a := range p.Posonlyargs {
		if slices.ContainsFunc(kw, func(k KeywordArg) bool { return k.Name == a.Arg }) {
			names = append(names, a.Arg)
		}
	}
	return strings.Join(names, ", ")
}

// countSet is how many of vs are set.
func countSet(vs []Value) int {
	n := 0
	for _, v := range vs {
		if v != nil {
			n++
		}
	}
	return n
}

func countArgs(n, defaults int, what string) string {
	if defaults > 0 {
		return fmt.Sprintf("from %d to %d %ss", n-defaults, n, what)
	}
	return fmt.Sprintf("%d %s%s", n, what, plural(n))
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// joinMissing writes names as CPython lists missing arguments: 'a',
// 'a' and 'b', 'a', 'b', and 'c'.
func joinMissing(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " and " + names[1]
	}
	return strings.Join(names[:len(names)-1], ", ") + ", and " + names[len(names)-1]
}

// docString is a body's docstring (its first statement, a string
// literal), or None.
func docString(body []syntax.Stmt) Value {
	if len(body) > 0 {
		if e, ok := body[0].(*syntax.ExprStmt); ok {
			if c, ok := e.Value.(*syntax.Constant); ok {
				if s, ok := c.Value.(string); ok {
					return s
				}
			}
		}
	}
	return None
}
