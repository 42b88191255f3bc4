package eval

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// Call calls f with args and keywords (borrowed) and returns an owned
// result: a function, a builtin, a bound method, a class (construction)
// or an object with __call__.
func (in *Interp) Call(f Value, args []Value, kw []KeywordArg) (Value, error) {
	return in.call(f, args, kw)
}

func (in *Interp) call(f Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.checkInterrupt(); err != nil {
		return nil, err
	}
	switch f := f.(type) {
	case *Builtin:
		if f.Self != nil || !f.Method {
			if f.VarArgs && f.Self != nil && len(kw) > 0 {
				return nil, in.typeError("%s() takes no keyword arguments", f.Name)
			}
			return f.Fn(in, f.Self, args, kw)
		}
		if len(args) == 0 {
			switch {
			case f.Owner == nil:
				return nil, in.typeError("unbound method %s() needs an argument", f.Name)
			case isSlot(f.Owner, f.Name):
				return nil, in.typeError("descriptor '%s' of '%s' object needs an argument", f.Name, f.Owner.Name)
			}
			return nil, in.typeError("unbound method %s.%s() needs an argument", f.Owner.Name, f.Name)
		}
		if f.Owner != nil && !TypeOf(args[0]).IsSubclass(f.Owner) {
			if isSlot(f.Owner, f.Name) {
				// a slot wrapper's words
				return nil, in.typeError("descriptor '%s' requires a '%s' object but received a '%s'", f.Name, f.Owner.Name, TypeOf(args[0]).Name)
			}
			return nil, in.typeError("descriptor '%s' for '%s' objects doesn't apply to a '%s' object", f.Name, f.Owner.Name, TypeOf(args[0]).Name)
		}
		return in.callBuiltinOn(f, args[0], args[1:], kw)
	case *Function:
		return in.callFunction(f, args, kw)
	case *Method:
		return in.callWithSelf(f.Fn, f.Self, args, kw)
	case *Class:
		return in.construct(f, args, kw)
	}
	if c := TypeOf(f).lookup("__call__"); c != nil {
		return in.callWithSelf(c, f, args, kw)
	}
	return nil, in.typeError("'%s' object is not callable", TypeOf(f).Name)
}

// isSlot reports whether owner's method name is a slot wrapper in
// CPython (list.__len__, object.__eq__), whose errors it words as a
// descriptor's, rather than a method (object.__format__, list.__getitem__).
func isSlot(owner *Class, name string) bool {
	switch name {
	case "__getitem__":
		return owner != ListType && owner != DictType
	case "__contains__":
		return owner != DictType && owner != SetType && owner != FrozenSetType
	}
	return strings.HasPrefix(name, "__") && !dunderMethods[name]
}

// dunderMethods are the dunders that CPython's built-in types define as
// methods, not slots.
var dunderMethods = map[string]bool{
	"__new__": true, "__reduce__": true, "__reduce_ex__": true, "__getstate__": true, "__setstate__": true,
	"__subclasshook__": true, "__init_subclass__": true, "__format__": true, "__sizeof__": true,
	"__dir__": true, "__trunc__": true, "__floor__": true, "__ceil__": true, "__round__": true,
	"__getnewargs__": true, "__getformat__": true, "__bytes__": true, "__reversed__": true,
	"__class_getitem__": true, "__copy__": true, "__subclasses__": true, "__prepare__": true,
	"__instancecheck__": true, "__subclasscheck__": true, "__set_name__": true,
}

// callWithSelf calls fn (found on a class) with self before args.
func (in *Interp) callWithSelf(fn, self Value, args []Value, kw []KeywordArg) (Value, error) {
	if b, ok := fn.(*Builtin); ok && b.Method && b.Self == nil {
		return in.callBuiltinOn(b, self, args, kw)
	}
	a := make([]Value, 0, len(args)+1)
	a = append(a, self)
	a = append(a, args...)
	return in.call(fn, a, kw)
}

// CallMethod calls obj.name(*args) and returns an owned result.
func (in *Interp) CallMethod(obj Value, name string, args ...Value) (Value, error) {
	m, err := in.GetAttr(obj, name)
	if err != nil {
		return nil, err
	}
	r, err := in.call(m, args, nil)
	in.Decref(m)
	return r, err
}

// callStack is a call expression's call (CPython's CALL, or
// CALL_FUNCTION_EX when ex): fn, self (a method call's receiver, or
// nil), args and the keyword values are the caller's stack's
// references, and all of them are let go here. A Python function
// called by CALL -- directly, as a method, or through a bound method
// (a classmethod, super()'s) -- takes the arguments into its frame, as
// CPython does when it inlines the call (pyrules/call_args): the callee's
// parameter is then the only reference to a temporary argument, which
// dies when the callee rebinds or deletes it, or with the frame's slots
// at return. A Python function called by CALL_FUNCTION_EX (not a bound
// method) is given references of its own, and the call's tuple and dict
// go before its body runs (CPython 3.12). Any other call borrows them:
// the callable goes when it returns, then the arguments (through
// CALL_FUNCTION_EX's tuple, last first), then the keyword values.
func (in *Interp) callStack(fn, self Value, args []Value, kw []KeywordArg, ex bool) (Value, error) {
	if f, how, owned := in.inlined(fn, self, args, ex); f != nil {
		r, err := in.enterFunction(f, owned, kw, how)
		in.Decref(f)
		return r, err
	}
	var r Value
	var err error
	if self != nil {
		r, err = in.callWithSelf(fn, self, args, kw)
	} else {
		r, err = in.call(fn, args, kw)
	}
	in.Decref(fn)
	if self != nil {
		in.Decref(self)
	}
	if ex {
		in.decrefAll(args)
		args = nil
	}
	in.dropArgs(args, kw)
	return r, err
}

// dropArgs lets go of a call's arguments, in order, then its keyword
// values.
func (in *Interp) dropArgs(args []Value, kw []KeywordArg) {
	for _, a := range args {
		in.Decref(a)
	}
	for _, k := range kw {
		in.Decref(k.Value)
	}
}

// frameArgs is how a new frame gets its arguments' references.
type frameArgs uint8

const (
	// argsStolen: CALL, inlined: the frame takes the caller's references.
	argsStolen frameArgs = iota
	// argsBorrowed: a call from C; the frame takes references of its
	// own and the caller keeps its until the call returns.
	argsBorrowed
	// argsUnpacked: CALL_FUNCTION_EX; the frame takes references of its
	// own, and the call's tuple (its last item first) and dict go once
	// the frame is made.
	argsUnpacked
)

// inlined returns the Python function a call expression runs in a frame
// of its own (a reference the caller lets go after the call), how the
// frame gets its arguments and the positional ones, self first; nil
// when the call goes through C. A bound method is let go before the
// call, its function and receiver kept (CPython unpacks it on the stack).
func (in *Interp) inlined(fn, self Value, args []Value, ex bool) (*Function, frameArgs, []Value) {
	switch f := fn.(type) {
	case *Function:
		switch {
		case ex && self == nil:
			return f, argsUnpacked, args
		case self == nil:
			return f, argsStolen, args
		case !ex:
			return f, argsStolen, append([]Value{self}, args...)
		}
	case *Method:
		if g, ok := f.Fn.(*Function); ok && self == nil && !ex {
			owned := append([]Value{newRef(f.Self)}, args...)
			Incref(g)
			in.Decref(f)
			return g, argsStolen, owned
		}
	}
	return nil, 0, nil
}

// callFunction runs a def or lambda in a new frame, with borrowed
// arguments (a call from C).
func (in *Interp) callFunction(f *Function, args []Value, kw []KeywordArg) (Value, error) {
	return in.enterFunction(f, args, kw, argsBorrowed)
}

// enterFunction runs a def or lambda in a new frame that gets the
// references of args and the keyword values as how says. A generator
// function returns its generator without running.
func (in *Interp) enterFunction(f *Function, args []Value, kw []KeywordArg, how frameArgs) (Value, error) {
	if how != argsStolen {
		for _, a := range args {
			Incref(a)
		}
		for _, k := range kw {
			Incref(k.Value)
		}
	}
	fr, err := in.bindFrame(f, args, kw)
	if how == argsUnpacked {
		in.decrefAll(args)
		in.dropArgs(nil, kw)
	}
	if err != nil {
		return nil, err
	}
	if f.code.gen {
		return in.newGenerator(fr), nil
	}
	return in.runFrame(fr)
}

// bindFrame makes f's frame with its arguments bound, taking over the
// references of args and the keyword values.
func (in *Interp) bindFrame(f *Function, args []Value, kw []KeywordArg) (*Frame, error) {
	if err := in.checkInterrupt(); err != nil {
		in.dropArgs(args, kw)
		return nil, err
	}
	if in.depth >= recursionLimit {
		in.dropArgs(args, kw)
		return nil, in.Raise(RecursionErrorType, "maximum recursion depth exceeded")
	}
	fr := in.newFrame(f.code, f.Name, f.file, f.globals, f.closure)
	fr.fn = f
	if err := in.bindArgs(f, fr, args, kw); err != nil {
		in.Decref(fr)
		return nil, err
	}
	in.makeCells(fr)
	return fr, nil
}

// runFrame runs a function's frame to its end and lets go of the frame
// (its locals die now unless a traceback holds it).
func (in *Interp) runFrame(fr *Frame) (Value, error) {
	in.depth++
	prev := in.frame
	in.frame = fr
	r, err := in.runCode(fr)
	in.frame = prev
	in.depth--
	in.takeOwnership(fr, err != nil)
	in.Decref(fr)
	return r, err
}

// takeOwnership does what CPython 3.12 does as a frame returns whose
// frame object something else still holds (a traceback, a caught
// exception kept in a local): the frame object takes the frame's
// locals and links its caller's frame object (f_back), making it if
// the caller had none yet -- a container, counted as made (while an
// exception unwinds, without scheduling a collection), which lives as
// long as either does. The caller is the nearest frame of its own: a
// list, set or dict comprehension runs inlined in its function's.
func (in *Interp) takeOwnership(fr *Frame, unwinding bool) {
	if fr.cost == costNone || fr.refs <= 1 || fr.fBack != nil {
		return
	}
	caller := fr.back
	for caller != nil && caller.inlinedComp() {
		caller = caller.back
	}
	if caller == nil {
		return
	}
	if caller.cost == costNone && in.gc.quiet == 0 {
		caller.cost = costPlain
		was := in.gc.unwinding
		in.gc.unwinding = unwinding
		in.gcCount()
		in.gc.unwinding = was
	}
	Incref(caller)
	fr.fBack = caller
}

// runCode runs the body of fr's function, adding fr to the traceback of
// an exception that leaves it.
func (in *Interp) runCode(fr *Frame) (Value, error) {
	f := fr.fn
	if f.expr != nil {
		fr.setPos(f.expr) // a lambda's frame is at its body, as CPython's traceback says
		r, err := in.eval(fr, f.expr)
		if err != nil {
			return nil, in.addTraceback(err, fr)
		}
		return r, nil
	}
	c, err := in.execBlock(fr, f.body)
	if err != nil {
		return nil, in.addTraceback(err, fr)
	}
	if c == ctlReturn {
		r := fr.ret
		fr.ret = nil
		return r, nil
	}
	return None, nil
}

// addTraceback records that err passed through fr, where fr was.
func (in *Interp) addTraceback(err error, fr *Frame) error {
	if e, ok := err.(*Exception); ok && e.Inst != nil && e.Inst.exc != nil {
		if tb := e.Inst.exc.tb; len(tb) > 0 && tb[len(tb)-1].frame == fr {
			return err
		}
		Incref(fr)
		e.Inst.exc.tb = append(e.Inst.exc.tb, tbEntry{frame: fr, start: fr.start, end: fr.end, counted: in.countUnwound(fr)})
	}
	return err
}

// construct is cls(*args, **kw).
func (in *Interp) construct(cls *Class, args []Value, kw []KeywordArg) (Value, error) {
	if cls == TypeType && len(args) == 1 && len(kw) == 0 {
		return newRef(TypeOf(args[0])), nil
	}
	if cls.New != nil {
		return cls.New(in, cls, args, kw)
	}
	if cls.Native {
		return nil, in.typeError("cannot create '%s' instances", cls.QualName())
	}
	for _, k := range cls.MRO {
		if k.Native && k != ObjectType && k.New == nil && k.Subclassable {
			return nil, in.Refuse(NotImplementedErrType, "this tool cannot subclass %s", k.Name)
		}
	}
	if err := in.checkAbstract(cls); err != nil {
		return nil, err
	}
	defer in.heapTypeCall(cls, args, kw)()
	var inst Value
	vb := valueBase(cls)
	if nw := cls.lookup("__new__"); nw != nil && nw != objectNew {
		r, err := in.call(nw, append([]Value{cls}, args...), kw)
		if err != nil {
			return nil, err
		}
		if TypeOf(r) != cls && !TypeOf(r).IsSubclass(cls) {
			return r, nil
		}
		inst = r
	} else if vb != nil {
		o, err := in.newValueInstance(cls, vb, args, kw)
		if err != nil {
			return nil, err
		}
		inst = o
	} else {
		o := in.newInstance(cls)
		if o.exc != nil {
			items := make([]Value, len(args))
			for i, a := range args {
				items[i] = newRef(a)
			}
			o.exc.args = in.NewTuple(items)
		}
		inst = o
	}
	if init := cls.lookupAttr("__init__"); init != nil && init != objectInit {
		r, err := in.callWithSelf(init, inst, args, kw)
		if err != nil {
			in.Decref(inst)
			return nil, err
		}
		if r != None {
			in.Decref(r)
			in.Decref(inst)
			return nil, in.typeError("__init__() should return None, not '%s'", TypeOf(r).Name)
		}
	} else if (len(args) > 0 || len(kw) > 0) && !in.newTakesArgs(cls) {
		in.Decref(inst)
		return nil, in.typeError("%s() takes no arguments", cls.Name)
	}
	return inst, nil
}

// heapTypeCall makes what CPython 3.12 makes to call a class a class
// statement made (a heap type, which has no vectorcall):
// _PyObject_MakeTpCall's tuple of the positional arguments and dict of
// the keyword ones, which live while type_call runs __new__ and
// __init__. It returns what frees them as the call returns. An
// exception's tuple is its args (BaseException_new keeps it).
func (in *Interp) heapTypeCall(cls *Class, args []Value, kw []KeywordArg) func() {
	var t, d Value
	if len(args) > 0 && !isException(cls) {
		items := make([]Value, len(args))
		for i, a := range args {
			items[i] = newRef(a)
		}
		t = in.NewTuple(items)
	}
	if len(kw) > 0 {
		kd := in.NewDict()
		for _, k := range kw {
			in.SetStr(kd, k.Name, k.Value)
		}
		d = kd
	}
	return func() {
		if t != nil {
			in.Decref(t)
		}
		if d != nil {
			in.Decref(d)
		}
	}
}

// HeapTypeCall is what calling a class a class statement made takes,
// for a class written in Go that stands for one (torch.optim.Adam):
// the tuple and dict of heapTypeCall, and what frees them.
func (in *Interp) HeapTypeCall(cls *Class, args []Value, kw []KeywordArg) func() {
	return in.heapTypeCall(cls, args, kw)
}

// newTakesArgs reports whether cls's __new__ is not object's (its own,
// a value type's or an exception's), so that object.__init__ lets the
// arguments a call passes to both go, as CPython's excess_args checks
// do.
func (in *Interp) newTakesArgs(cls *Class) bool {
	if nw := cls.lookup("__new__"); nw != nil && nw != objectNew {
		return true
	}
	return valueBase(cls) != nil || isException(cls)
}

// objectInit and objectNew are object.__init__ and object.__new__.
var objectInit, objectNew *Builtin

func init() {
	objectInit = NewBuiltin("__init__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) == 0 && len(kw) == 0 {
			return None, nil
		}
		cls := TypeOf(self)
		switch {
		case cls.lookupAttr("__init__") != objectInit: // super().__init__(x) reached object
			return nil, in.typeError("object.__init__() takes exactly one argument (the instance to initialize)")
		case !in.newTakesArgs(cls):
			return nil, in.typeError("%s.__init__() takes exactly one argument (the instance to initialize)", cls.Name)
		}
		return None, nil
	})
	ObjectType.SetMethod(objectInit)
	objectNew = NewBuiltin("__new__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) == 0 {
			return nil, in.typeError("object.__new__(): not enough arguments")
		}
		cls, ok := args[0].(*Class)
		if !ok || cls.Native {
			return nil, in.typeError("object.__new__(X): X is not a type object")
		}
		if valueBase(cls) != nil {
			return nil, in.typeError("object.__new__(%s) is not safe, use %s.__new__()", cls.Name, cls.Name)
		}
		if len(args) > 1 || len(kw) > 0 {
			if nw := cls.lookup("__new__"); nw != nil && nw != objectNew { // super().__new__(cls, x) reached object
				return nil, in.typeError("object.__new__() takes exactly one argument (the type to instantiate)")
			}
			if cls.lookupAttr("__init__") == objectInit {
				return nil, in.typeError("%s() takes no arguments", cls.Name)
			}
		}
		return in.newInstance(cls), nil
	})
	ObjectType.SetAttr("__new__", objectNew)
	// object.__init_subclass__, a classmethod that takes no keywords
	initSub := &wrapper{class: true, fn: NewBuiltin("__init_subclass__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(kw) > 0 {
			name := "object"
			if c, ok := self.(*Class); ok {
				name = c.Name
			}
			return nil, in.typeError("%s.__init_subclass__() takes no keyword arguments", name)
		}
		name := "object"
		if c, ok := self.(*Class); ok {
			name = c.Name
		}
		return None, in.UnpackArgs(name+".__init_subclass__", args, nil)
	})}
	initSub.refs = 1 << 30
	initSub.fn.(*Builtin).Method = true
	ObjectType.SetAttr("__init_subclass__", initSub)
}

// makeFunction is def or lambda: a function over the current globals
// and the cells of the names it takes from fr.
func (in *Interp) makeFunction(fr *Frame, name string, sc *syntax.Scope, args *syntax.Arguments, body []syntax.Stmt, expr syntax.Expr, line int32) (*Function, error) {
	f := &Function{Name: name, QualName: name, code: in.codeFor(name, sc), params: args, body: body, expr: expr, globals: fr.globals, file: fr.file, line: line}
	if m, ok := fr.globals.getStr("__name__"); ok {
		f.Module, _ = m.(string)
	}
	defs := make([]Value, 0, len(args.Defaults))
	for _, d := range args.Defaults {
		v, err := in.eval(fr, d)
		if err != nil {
			in.decrefAll(defs)
			return nil, err
		}
		defs = append(defs, v)
	}
	kwd := make([]Value, len(args.Kwonlyargs))
	for i, d := range args.KwDefaults {
		if d == nil {
			continue
		}
		v, err := in.eval(fr, d)
		if err != nil {
			in.decrefAll(defs)
			for _, k := range kwd {
				if k != nil {
					in.Decref(k)
				}
			}
			return nil, err
		}
		kwd[i] = v
	}
	f.defaults, f.kwdefaults = defs, kwd
	for _, n := range sc.Free {
		c, err := in.cellOf(fr, n)
		if err != nil {
			return nil, err
		}
		f.closure = append(f.closure, c)
	}
	if len(f.closure) > 0 {
		// BUILD_TUPLE of the cells, before MAKE_FUNCTION makes the function
		cells := make([]Value, len(f.closure))
		for i, c := range f.closure {
			cells[i] = newRef(c)
		}
		f.closureTuple = in.NewTuple(cells)
	}
	Incref(fr.globals)
	in.track(f)
	for _, c := range f.closure {
		Incref(c)
	}
	return f, nil
}

// cellOf finds the cell of name in fr: a cell local, a free variable,
// or (in a class body) the __class__ cell.
func (in *Interp) cellOf(fr *Frame, name string) (*Cell, error) {
	if fr.code != nil {
		if i, ok := fr.code.slots[name]; ok && fr.code.cells[name] {
			return fr.locals[i].(*Cell), nil
		}
		if i, ok := fr.code.free[name]; ok {
			return fr.closure[i], nil
		}
	}
	if fr.classCell != nil && name == "__class__" {
		return fr.classCell, nil
	}
	return nil, in.Raise(SystemErrorType, "no cell for free variable '%s'", name)
}
