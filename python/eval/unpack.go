package eval

import (
	"fmt"
	"slices"
	"strings"
)

// UnpackArgs reads a Go function's arguments into typed destinations,
// checking them as CPython checks a C function's and failing with
// CPython's TypeError words. fn is the function's name as those words
// give it: "len", "math.sqrt", "list.pop" (the part after the last dot
// where CPython's message has the bare name: "pop expected at most 1
// argument, got 2"). params declares the parameters once, as a Python
// signature does, each a name followed by the pointer that receives its
// argument:
//
//	"x"   a required parameter
//	"x?"  an optional one: its destination keeps its value when absent
//	"/"   the parameters before it are positional-only
//	"*"   the parameters after it are keyword-only
//
// A destination is a *Value (the argument, borrowed), *string (a str),
// *int64 (an int or an object with __index__), *float64 (a real number)
// or *bool (the argument's truth).
//
// A function whose parameters are all positional-only (or that has
// none) is checked as CPython's METH_NOARGS, METH_O and
// _PyArg_CheckPositional functions are; any other as Argument Clinic's
// keyword parsing is.
func (in *Interp) UnpackArgs(fn string, args []Value, kw []KeywordArg, params ...any) error {
	return in.unpackArgs(fn, styleC, args, kw, params)
}

// unpackExpected is UnpackArgs for a function whose count CPython checks
// with _PyArg_CheckPositional even for one parameter: a type's
// constructor (reversed(seq), staticmethod(f)), sorted ("reversed
// expected 1 argument, got 0"), deque.rotate, named in full as
// CPython names it there ("deque.rotate expected at most 1 argument,
// got 2").
func (in *Interp) unpackExpected(fn string, args []Value, kw []KeywordArg, params ...any) error {
	return in.unpackArgs(fn, styleExpected, args, kw, params)
}

// unpackTuple is UnpackArgs for a method whose positional arguments
// CPython reads with PyArg_ParseTuple or _PyArg_ParseStack (str.find,
// str.count, str.startswith, deque.index): its count is worded
// "find() takes at least 1 argument (0 given)".
func (in *Interp) unpackTuple(fn string, args []Value, kw []KeywordArg, params ...any) error {
	return in.unpackArgs(fn, styleTuple, args, kw, params)
}

// UnpackDefArgs is UnpackArgs for a function that CPython writes in
// Python (os.getenv, functools.wraps, torch.autograd.grad): the
// parameters are checked as a def's are, in its words ("getenv()
// missing 1 required positional argument: 'key'").
func (in *Interp) UnpackDefArgs(fn string, args []Value, kw []KeywordArg, params ...any) error {
	return in.unpackArgs(fn, styleDef, args, kw, params)
}

// unpackMethodDef is UnpackDefArgs for a method that CPython writes in
// Python, called bound (random.seed is the seed of a hidden Random;
// nullcontext(x) calls nullcontext.__init__): fn is its qualified name,
// and its counts include self, as a def's do ("Random.seed() takes from
// 1 to 3 positional arguments but 5 were given").
func (in *Interp) unpackMethodDef(fn string, args []Value, kw []KeywordArg, params ...any) error {
	var self Value
	return in.unpackArgs(fn, styleDef, append([]Value{None}, args...), kw, append([]any{"self", &self}, params...))
}

// unpackIgnored checks a call against params (UnpackArgs's names and
// markers, without destinations) and keeps none of its arguments: for
// a function that is refused once its call is known to be well formed
// (os.remove), as CPython would have checked it first, or whose
// arguments are passed on (itertools' Python functions), in style's
// words.
func (in *Interp) unpackIgnored(fn string, style checkStyle, args []Value, kw []KeywordArg, params []string) error {
	ps := make([]any, 0, 2*len(params))
	for _, p := range params {
		ps = append(ps, p)
		if p != "/" && p != "*" {
			ps = append(ps, new(Value))
		}
	}
	return in.unpackArgs(fn, style, args, kw, ps)
}

// A checkStyle is whose words UnpackArgs uses for a wrong call.
type checkStyle int

const (
	styleC        checkStyle = iota // a C function: METH_O, clinic...
	styleExpected                   // a C function counted by _PyArg_CheckPositional
	styleTuple                      // a C function counted by PyArg_ParseTuple
	styleDef                        // a function written in Python
)

func (in *Interp) unpackArgs(fn string, style checkStyle, args []Value, kw []KeywordArg, params []any) error {
	ps := make([]param, 0, 8)
	posonly, kwonly := 0, -1
	for i := 0; i < len(params); i++ {
		name := params[i].(string)
		switch name {
		case "/":
			posonly = len(ps)
			continue
		case "*":
			kwonly = len(ps)
			continue
		}
		p := param{name: name}
		if n, ok := strings.CutSuffix(name, "?"); ok {
			p.name, p.optional = n, true
		}
		i++
		p.dest = params[i]
		ps = append(ps, p)
	}
	sig := signature{fn: fn, short: fn[strings.LastIndexByte(fn, '.')+1:], params: ps, posonly: posonly, maxpos: len(ps), style: style}
	if kwonly >= 0 {
		sig.maxpos = kwonly
	}
	var vals [8]Value
	v := vals[:0]
	if len(ps) > len(vals) {
		v = make([]Value, 0, len(ps))
	}
	v = v[:len(ps)]
	var err error
	switch {
	case style == styleDef:
		err = in.unpackDef(&sig, args, kw, v)
	case posonly == len(ps):
		err = in.unpackPositional(&sig, args, kw, v)
	default:
		err = in.unpackKeywords(&sig, args, kw, v)
	}
	if err != nil {
		return err
	}
	for i, p := range ps {
		if v[i] != nil {
			if err := in.convertArg(&sig, i, v[i], p.dest); err != nil {
				return err
			}
		}
	}
	return nil
}

// param is one declared parameter of UnpackArgs.
type param struct {
	name     string
	optional bool
	dest     any
}

// signature is a Go function's parameters as UnpackArgs reads them.
type signature struct {
	fn, short string
	params    []param
	// posonly is how many parameters are positional-only; maxpos, how
	// many may be given by position (the rest are keyword-only).
	posonly, maxpos int
	// style says whose words a wrong count is given in: a METH_O or
	// METH_NOARGS function's, or only _PyArg_CheckPositional's
	// (unpackExpected) or PyArg_ParseTuple's (unpackTuple).
	style checkStyle
}

// required is how many of the first n parameters are required.
func (s *signature) required(n int) int {
	r := 0
	for _, p := range s.params[:n] {
		if !p.optional {
			r++
		}
	}
	return r
}

// unpackPositional places the arguments of a function without keyword
// parameters, as CPython's METH_NOARGS, METH_O, PyArg_ParseTuple and
// _PyArg_CheckPositional word a wrong count.
func (in *Interp) unpackPositional(s *signature, args []Value, kw []KeywordArg, v []Value) error {
	if len(kw) > 0 {
		return in.typeError("%s() takes no keyword arguments", s.fn)
	}
	n, min := len(s.params), s.required(len(s.params))
	switch {
	case s.style == styleTuple && (len(args) < min || len(args) > n):
		want, bound := min, "at least"
		if len(args) > n {
			want, bound = n, "at most"
		}
		if min == n {
			bound = "exactly"
		}
		return in.typeError("%s() takes %s %d argument%s (%d given)", s.short, bound, want, plural(want), len(args))
	case s.style == styleC && n == 0 && len(args) > 0:
		return in.typeError("%s() takes no arguments (%d given)", s.fn, len(args))
	case s.style == styleC && n == 1 && min == 1 && len(args) != 1:
		return in.typeError("%s() takes exactly one argument (%d given)", s.fn, len(args))
	}
	if len(args) < min || len(args) > n {
		want, bound := min, "at least "
		if len(args) > n {
			want, bound = n, "at most "
		}
		if min == n {
			bound = ""
		}
		name := s.short
		if s.style == styleExpected {
			name = s.fn
		}
		return in.typeError("%s expected %s%d argument%s, got %d", name, bound, want, plural(want), len(args))
	}
	copy(v, args)
	return nil
}

// unpackKeywords places the arguments of a function with keyword
// parameters, checking them in the order Argument Clinic's keyword
// parsing does, in its words.
func (in *Interp) unpackKeywords(s *signature, args []Value, kw []KeywordArg, v []Value) error {
	n, nargs := len(s.params), len(args)
	if total := nargs + len(kw); total > n {
		keyword := ""
		if nargs == 0 {
			keyword = "keyword "
		}
		return in.typeError("%s() takes at most %d %sargument%s (%d given)", s.short, n, keyword, plural(n), total)
	}
	minpos, minposonly := s.required(s.maxpos), s.required(s.posonly)
	switch {
	case nargs > s.maxpos && s.maxpos == 0:
		return in.typeError("%s() takes no positional arguments", s.short)
	case nargs > s.maxpos:
		bound := "at most"
		if minpos == s.maxpos {
			bound = "exactly"
		}
		return in.typeError("%s() takes %s %d positional argument%s (%d given)", s.short, bound, s.maxpos, plural(s.maxpos), nargs)
	case nargs < minposonly:
		bound := "at least"
		if minposonly == s.maxpos {
			bound = "exactly"
		}
		return in.typeError("%s() takes %s %d positional argument%s (%d given)", s.short, bound, minposonly, plural(minposonly), nargs)
	}
	copy(v, args)
	used := 0
	for i := max(nargs, s.posonly); i < n; i++ {
		p := s.params[i]
		if a := Kwarg(kw, p.name); a != nil {
			v[i] = a
			used++
			continue
		}
		if p.optional {
			continue
		}
		if i < s.maxpos {
			return in.typeError("%s() missing required argument '%s' (pos %d)", s.short, p.name, i+1)
		}
		return in.typeError("%s() missing required keyword-only argument '%s'", s.short, p.name)
	}
	if used == len(kw) {
		return nil
	}
	for _, k := range kw {
		for i := s.posonly; i < nargs; i++ {
			if s.params[i].name == k.Name {
				return in.typeError("argument for %s() given by name ('%s') and position (%d)", s.short, k.Name, i+1)
			}
		}
		if !s.keyword(k.Name) {
			return in.typeError("'%s' is an invalid keyword argument for %s()", k.Name, s.short)
		}
	}
	return nil
}

// unpackDef places the arguments of a function CPython writes in
// Python, checking them as a call binds a def's parameters, in its
// words.
func (in *Interp) unpackDef(s *signature, args []Value, kw []KeywordArg, v []Value) error {
	n, nargs := len(s.params), len(args)
	copy(v, args[:min(nargs, s.maxpos)])
	for _, k := range kw {
		i := slices.IndexFunc(s.params, func(p param) bool { return p.name == k.Name })
		switch {
		case i >= 0 && i < s.posonly:
			return in.typeError("%s() got some positional-only arguments passed as keyword arguments: '%s'", s.fn, k.Name)
		case i < 0:
			return in.typeError("%s() got an unexpected keyword argument '%s'", s.fn, k.Name)
		case v[i] != nil:
			return in.typeError("%s() got multiple values for argument '%s'", s.fn, k.Name)
		}
		v[i] = k.Value
	}
	if nargs > s.maxpos {
		given, verb := "", wasWere(nargs)
		if k := countSet(v[s.maxpos:]); k > 0 {
			given = fmt.Sprintf(" positional argument%s (and %d keyword-only argument%s)", plural(nargs), k, plural(k))
			verb = "were"
		}
		optional := s.maxpos - s.required(s.maxpos)
		return in.typeError("%s() takes %s but %d%s %s given", s.fn, countArgs(s.maxpos, optional, "positional argument"), nargs, given, verb)
	}
	for _, part := range [][2]int{{0, s.maxpos}, {s.maxpos, n}} {
		var missing []string
		for i := part[0]; i < part[1]; i++ {
			if v[i] == nil && !s.params[i].optional {
				missing = append(missing, "'"+s.params[i].name+"'")
			}
		}
		if len(missing) > 0 {
			kind := "positional"
			if part[0] > 0 {
				kind = "keyword-only"
			}
			return in.typeError("%s() missing %d required %s argument%s: %s", s.fn, len(missing), kind, plural(len(missing)), joinMissing(missing))
		}
	}
	return nil
}

// keyword reports whether name is a parameter that may be given by
// keyword.
func (s *signature) keyword(name string) bool {
	for _, p := range s.params[s.posonly:] {
		if p.name == name {
			return true
		}
	}
	return false
}

// convertArg stores argument i's value v in its destination, converted
// as CPython's converters do, with their errors.
func (in *Interp) convertArg(s *signature, i int, v Value, dest any) error {
	switch d := dest.(type) {
	case *Value:
		*d = v
	case *string:
		str, ok := asStr(v)
		if !ok {
			return in.typeError("%s() %s must be str, not %s", s.short, s.argName(i), TypeOf(v).Name)
		}
		*d = str
	case *int64:
		n, err := in.Index(v)
		if err != nil {
			return err
		}
		*d = n
	case *float64:
		f, err := in.floatArg(s.short, v)
		if err != nil {
			return err
		}
		*d = f
	case *bool:
		t, err := in.Truth(v)
		if err != nil {
			return err
		}
		*d = t
	default:
		panic("UnpackArgs: destination of unknown type for " + s.fn)
	}
	return nil
}

// argName is how CPython's converters name argument i: "argument" for
// a METH_O function's one, "argument 2" for a positional-only one,
// "argument 'name'" for one that may be given by keyword.
func (s *signature) argName(i int) string {
	switch {
	case i >= s.posonly:
		return "argument '" + s.params[i].name + "'"
	case len(s.params) == 1:
		return "argument"
	}
	return "argument " + itoa(int64(i+1))
}

// slotArgs checks the arguments of a slot's method called by name
// (x.__eq__(y), d.__len__()): n of them, no keywords, as CPython's slot
// wrappers word it.
func (in *Interp) slotArgs(name string, args []Value, kw []KeywordArg, n int) error {
	if len(kw) > 0 {
		return in.typeError("wrapper %s() takes no keyword arguments", name)
	}
	if len(args) != n {
		space := "" // a wrapper of two arguments counts them with an empty name
		if n == 2 {
			space = " "
		}
		return in.typeError("%sexpected %d argument%s, got %d", space, n, plural(n), len(args))
	}
	return nil
}

// Kwarg finds a keyword argument (borrowed), or nil.
func Kwarg(kw []KeywordArg, name string) Value {
	for _, k := range kw {
		if k.Name == name {
			return k.Value
		}
	}
	return nil
}

// noKw is the error for keywords passed to a function taking none.
func (in *Interp) noKw(fn string, kw []KeywordArg) error {
	if len(kw) > 0 {
		return in.typeError("%s() takes no keyword arguments", fn)
	}
	return nil
}
