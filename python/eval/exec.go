package eval

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// ctl is how a statement ends: on to the next, or a jump.
type ctl uint8

const (
	ctlNext ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

// ExecStmt runs one top-level statement of a module in its frame. An
// exception that leaves it comes back as an *Exception carrying its
// traceback; the caller prints it (FormatError) and drops it (Drop).
func (in *Interp) ExecStmt(fr *Frame, s syntax.Stmt) error {
	prev := in.frame
	in.frame = fr
	defer func() { in.frame = prev }()
	_, err := in.exec(fr, s)
	if err != nil {
		return in.addTraceback(err, fr)
	}
	return nil
}

// execBlock runs statements until one jumps or fails.
func (in *Interp) execBlock(fr *Frame, body []syntax.Stmt) (ctl, error) {
	for _, s := range body {
		c, err := in.exec(fr, s)
		if err == nil && in.Hooks.Executed != nil && isSimple(s) {
			in.Hooks.Executed(fr.file, s)
		}
		if err != nil || c != ctlNext {
			return c, err
		}
	}
	return ctlNext, nil
}

// isSimple reports whether s is a simple statement (no block of its
// own).
func isSimple(s syntax.Stmt) bool {
	switch s.(type) {
	case *syntax.If, *syntax.For, *syntax.While, *syntax.Try, *syntax.With, *syntax.FunctionDef, *syntax.ClassDef:
		return false
	}
	return true
}

func (in *Interp) exec(fr *Frame, s syntax.Stmt) (ctl, error) {
	fr.setPos(s)
	switch s := s.(type) {
	case *syntax.ExprStmt:
		v, err := in.eval(fr, s.Value)
		if err != nil {
			return ctlNext, err
		}
		if in.Interactive && fr.toplevel {
			return ctlNext, in.displayHook(v)
		}
		in.Decref(v)
	case *syntax.Assign:
		v, err := in.eval(fr, s.Value)
		if err != nil {
			return ctlNext, err
		}
		for i, t := range s.Targets {
			if i < len(s.Targets)-1 {
				Incref(v)
			}
			if err := in.assign(fr, t, v); err != nil {
				if i < len(s.Targets)-1 {
					in.Decref(v)
				}
				return ctlNext, err
			}
		}
	case *syntax.AugAssign:
		return ctlNext, in.augAssign(fr, s)
	case *syntax.AnnAssign:
		if s.Value != nil {
			v, err := in.eval(fr, s.Value)
			if err != nil {
				return ctlNext, err
			}
			if err := in.assign(fr, s.Target, v); err != nil {
				return ctlNext, err
			}
		}
		return ctlNext, in.annotate(fr, s)
	case *syntax.Delete:
		for _, t := range s.Targets {
			if err := in.delete(fr, t); err != nil {
				return ctlNext, err
			}
		}
	case *syntax.Pass, *syntax.Global, *syntax.Nonlocal:
	case *syntax.Break:
		return ctlBreak, nil
	case *syntax.Continue:
		return ctlContinue, nil
	case *syntax.Return:
		var v Value = None
		if s.Value != nil {
			var err error
			if v, err = in.eval(fr, s.Value); err != nil {
				return ctlNext, err
			}
		}
		fr.ret = v
		return ctlReturn, nil
	case *syntax.If:
		t, err := in.truthOf(fr, s.Test)
		if err != nil {
			return ctlNext, err
		}
		if t {
			return in.execBlock(fr, s.Body)
		}
		return in.execBlock(fr, s.Orelse)
	case *syntax.While:
		return in.execWhile(fr, s)
	case *syntax.For:
		return in.execFor(fr, s)
	case *syntax.Try:
		return in.execTry(fr, s)
	case *syntax.With:
		return in.execWith(fr, s, s.Items)
	case *syntax.Raise:
		return ctlNext, in.execRaise(fr, s)
	case *syntax.Assert:
		outer, before := in.assuming, in.assumed
		in.assuming = fr
		t, err := in.truthOf(fr, s.Test)
		in.assuming = outer
		if Matches(err, UnknownValueErrorType) {
			in.Drop(err)
			t, err = true, nil
			in.assumed++
		}
		if in.assumed != before && in.Hooks.Assumed != nil {
			start, _ := s.Span()
			in.Hooks.Assumed(start)
		}
		if err != nil || t {
			return ctlNext, err
		}
		o := in.NewException(AssertionErrorType)
		if s.Msg != nil {
			m, err := in.eval(fr, s.Msg)
			if err != nil {
				in.Decref(o)
				return ctlNext, err
			}
			old := o.exc.args
			o.exc.args = in.NewTuple([]Value{m})
			in.Decref(old)
		}
		return ctlNext, in.raiseInst(o)
	case *syntax.Import:
		return ctlNext, in.execImport(fr, s)
	case *syntax.ImportFrom:
		return ctlNext, in.execImportFrom(fr, s)
	case *syntax.FunctionDef:
		return ctlNext, in.execDef(fr, s)
	case *syntax.ClassDef:
		return ctlNext, in.execClass(fr, s)
	case *syntax.Command:
		if in.Hooks.Command == nil {
			return ctlNext, in.Raise(SyntaxErrorType, "invalid syntax")
		}
		return ctlNext, in.Hooks.Command(s.Text, s.Start)
	default:
		return ctlNext, in.Refuse(NotImplementedErrType, "this tool cannot run a %T statement", s)
	}
	return ctlNext, nil
}

// displayHook is what the interactive prompt does with an expression's
// value: print its repr and keep it as builtins._ (it takes v's
// reference).
func (in *Interp) displayHook(v Value) error {
	if v == None {
		return nil
	}
	r, err := in.Repr(v)
	if err != nil {
		in.Decref(v)
		return err
	}
	in.write(r + "\n")
	if old := putNS(in.builtins, "_", v); old != nil {
		in.Labeled(old, "old _")
	}
	return nil
}

func (in *Interp) execWhile(fr *Frame, s *syntax.While) (ctl, error) {
	for {
		if err := in.checkInterrupt(); err != nil {
			return ctlNext, err
		}
		fr.setPos(s.Test)
		t, err := in.truthOf(fr, s.Test)
		if err != nil {
			return ctlNext, err
		}
		if !t {
			return in.execBlock(fr, s.Orelse)
		}
		c, err := in.execBlock(fr, s.Body)
		if err != nil || c == ctlReturn {
			return c, err
		}
		if c == ctlBreak {
			return ctlNext, nil
		}
	}
}

func (in *Interp) execFor(fr *Frame, s *syntax.For) (ctl, error) {
	src, err := in.eval(fr, s.Iter)
	if err != nil {
		return ctlNext, err
	}
	it, err := in.Iter(src)
	in.Decref(src)
	if err != nil {
		return ctlNext, err
	}
	defer in.Decref(it)
	for {
		if err := in.checkInterrupt(); err != nil {
			return ctlNext, err
		}
		v, ok, err := in.Next(it)
		if err != nil {
			return ctlNext, err
		}
		if !ok {
			return in.execBlock(fr, s.Orelse)
		}
		if err := in.assign(fr, s.Target, v); err != nil {
			return ctlNext, err
		}
		c, err := in.execBlock(fr, s.Body)
		if err != nil || c == ctlReturn {
			return c, err
		}
		if c == ctlBreak {
			return ctlNext, nil
		}
	}
}

// execTry runs try/except/else/finally with CPython's rules: the name
// of except ... as is deleted when the handler ends, and the
// exception's traceback holds this frame while it lives.
func (in *Interp) execTry(fr *Frame, s *syntax.Try) (ctl, error) {
	c, err := in.execBlock(fr, s.Body)
	if e, ok := err.(*Exception); ok && len(s.Handlers) > 0 {
		in.addTraceback(err, fr)
		c, err = in.handle(fr, s, e)
	} else if err == nil && c == ctlNext {
		c, err = in.execBlock(fr, s.Orelse)
	}
	if len(s.Finalbody) == 0 {
		return c, err
	}
	if e, ok := err.(*Exception); ok {
		in.handling = append(in.handling, e.Inst)
	}
	ret := fr.ret
	fc, ferr := in.execBlock(fr, s.Finalbody)
	if _, ok := err.(*Exception); ok {
		in.handling = in.handling[:len(in.handling)-1]
	}
	if ferr != nil || fc != ctlNext {
		if err != nil {
			in.Drop(err)
		}
		if c == ctlReturn && ret != nil {
			if fc != ctlReturn {
				fr.ret = nil
			}
			in.Decref(ret)
		}
		return fc, ferr
	}
	return c, err
}

// handle runs the first handler that matches e; an exception none
// matches propagates.
func (in *Interp) handle(fr *Frame, s *syntax.Try, e *Exception) (ctl, error) {
	for _, h := range s.Handlers {
		if h.Type != nil {
			fr.setPos(h.Type)
			t, err := in.eval(fr, h.Type)
			if err != nil {
				in.Drop(e)
				return ctlNext, err
			}
			m, err := in.excMatches(e.Inst, t)
			in.Decref(t)
			if err != nil {
				in.Drop(e)
				return ctlNext, err
			}
			if !m {
				continue
			}
		}
		inst := e.Inst
		in.handling = append(in.handling, inst)
		if h.Name != "" {
			in.storeName(fr, h.Name, newRef(inst))
		}
		c, err := in.execBlock(fr, h.Body)
		in.handling = in.handling[:len(in.handling)-1]
		if h.Name != "" {
			if kind, i := fr.where(h.Name); kind == nameFast && fr.locals[i] == nil {
			} else if derr := in.deleteName(fr, h.Name); derr != nil {
				in.Drop(derr)
			}
		}
		in.Drop(e)
		return c, err
	}
	return ctlNext, e
}

// excMatches reports whether the exception matches an except clause's
// class or tuple of classes.
func (in *Interp) excMatches(o *Instance, t Value) (bool, error) {
	switch t := t.(type) {
	case *Class:
		if !isException(t) {
			return false, in.typeError("catching classes that do not inherit from BaseException is not allowed")
		}
		return o.cls.IsSubclass(t), nil
	case *Tuple:
		for _, x := range t.items {
			m, err := in.excMatches(o, x)
			if err != nil || m {
				return m, err
			}
		}
		return false, nil
	}
	return false, in.typeError("catching classes that do not inherit from BaseException is not allowed")
}

func (in *Interp) execRaise(fr *Frame, s *syntax.Raise) error {
	if s.Exc == nil {
		if n := len(in.handling); n > 0 {
			return &Exception{Inst: newRef(in.handling[n-1]).(*Instance)}
		}
		return in.Raise(RuntimeErrorType, "No active exception to reraise")
	}
	v, err := in.eval(fr, s.Exc)
	if err != nil {
		return err
	}
	o, err := in.toException(v)
	if err != nil {
		return err
	}
	if s.Cause != nil {
		c, err := in.eval(fr, s.Cause)
		if err != nil {
			in.Decref(o)
			return err
		}
		if c != None {
			if c, err = in.toException(c); err != nil {
				in.Decref(o)
				return err
			}
		}
		if old := o.exc.cause; old != nil {
			in.Decref(old)
		}
		o.exc.cause = c
		if c == None {
			o.exc.cause = nil
		}
		o.exc.suppress = true
	}
	fr.setPos(s) // the traceback points at the raise statement, as CPython's does
	return in.raiseInst(o)
}

// toException turns what raise was given (owned) into an exception
// object: an instance, or a class to call.
func (in *Interp) toException(v Value) (*Instance, error) {
	if c, ok := v.(*Class); ok && isException(c) {
		r, err := in.call(c, nil, nil)
		in.Decref(v)
		if err != nil {
			return nil, err
		}
		v = r
	}
	if o, ok := v.(*Instance); ok && isException(o.cls) {
		return o, nil
	}
	in.Decref(v)
	return nil, in.typeError("exceptions must derive from BaseException")
}

// execWith runs with items[0] as ctx: its __exit__ sees the exception
// of the rest; a true result suppresses it.
func (in *Interp) execWith(fr *Frame, s *syntax.With, items []*syntax.WithItem) (ctl, error) {
	if len(items) == 0 {
		return in.execBlock(fr, s.Body)
	}
	it := items[0]
	mgr, err := in.eval(fr, it.ContextExpr)
	if err != nil {
		return ctlNext, err
	}
	cls := TypeOf(mgr)
	enter, exit := cls.lookup("__enter__"), cls.lookup("__exit__")
	if enter == nil || exit == nil {
		in.Decref(mgr)
		missing := "context manager protocol"
		if enter != nil {
			missing = "__exit__ method"
		}
		return ctlNext, in.typeError("'%s' object does not support the %s", cls.Name, missing)
	}
	exitFn := in.bindTo(exit, mgr, cls)
	in.Decref(mgr)
	defer in.Decref(exitFn)
	v, err := in.callWithSelf(enter, mgr, nil, nil)
	if err != nil {
		return ctlNext, err
	}
	if it.OptionalVars != nil {
		if err := in.assign(fr, it.OptionalVars, v); err != nil {
			return ctlNext, err
		}
	} else {
		in.Decref(v)
	}
	c, err := in.execWith(fr, s, items[1:])
	if e, ok := err.(*Exception); ok {
		in.addTraceback(err, fr)
		in.handling = append(in.handling, e.Inst)
		tb := in.tracebackOf(e.Inst)
		r, xerr := in.call(exitFn, []Value{e.Inst.cls, e.Inst, tb}, nil)
		in.Decref(tb)
		in.handling = in.handling[:len(in.handling)-1]
		if xerr != nil {
			in.Drop(err)
			return ctlNext, xerr
		}
		t, terr := in.Truth(r)
		in.Decref(r)
		if terr != nil {
			in.Drop(err)
			return ctlNext, terr
		}
		if t {
			in.Drop(err)
			return ctlNext, nil
		}
		return c, err
	}
	if err != nil {
		return c, err
	}
	r, xerr := in.call(exitFn, []Value{None, None, None}, nil)
	if xerr != nil {
		if c == ctlReturn && fr.ret != nil {
			in.Decref(fr.ret)
			fr.ret = nil
		}
		return ctlNext, xerr
	}
	in.Decref(r)
	return c, nil
}

func (in *Interp) execDef(fr *Frame, s *syntax.FunctionDef) error {
	decos, err := in.evalAll(fr, s.DecoratorList)
	if err != nil {
		return err
	}
	f, err := in.makeFunction(fr, s.Name, s.Scope, s.Args, s.Body, nil, s.Start.Line)
	if err != nil {
		in.decrefAll(decos)
		return err
	}
	f.QualName = in.qualName(fr, s.Name)
	v, err := in.decorate(decos, f)
	if err != nil {
		return err
	}
	in.storeName(fr, s.Name, v)
	return nil
}

// qualName is a def's or class's __qualname__ in fr.
func (in *Interp) qualName(fr *Frame, name string) string {
	if fr.toplevel {
		return name
	}
	if fr.ns != nil {
		if q, ok := fr.ns.getStr("__qualname__"); ok {
			if q, ok := q.(string); ok {
				return q + "." + name
			}
		}
	}
	if fr.fn != nil {
		return fr.fn.QualName + ".<locals>." + name
	}
	return name
}

// decorate applies decorators (owned, outermost first) to v (owned),
// innermost first.
func (in *Interp) decorate(decos []Value, v Value) (Value, error) {
	for i := len(decos) - 1; i >= 0; i-- {
		r, err := in.callStack(decos[i], nil, []Value{v}, nil, false)
		if err != nil {
			in.decrefAll(decos[:i])
			return nil, err
		}
		v = r
	}
	return v, nil
}

func (in *Interp) execClass(fr *Frame, s *syntax.ClassDef) error {
	decos, err := in.evalAll(fr, s.DecoratorList)
	if err != nil {
		return err
	}
	bases, err := in.evalAll(fr, s.Bases)
	if err != nil {
		in.decrefAll(decos)
		return err
	}
	kws, err := in.evalKeywords(fr, s.Keywords)
	if err != nil {
		in.decrefAll(bases)
		in.decrefAll(decos)
		return err
	}
	defer func() {
		for _, k := range kws {
			in.Decref(k.Value)
		}
	}()
	var typeTuples []Value // what the class keeps (Class.typeTuples)
	fail := func(err error) error {
		in.decrefAll(typeTuples)
		in.decrefAll(bases)
		in.decrefAll(decos)
		return err
	}
	var cbases []*Class
	for _, b := range bases {
		c, ok := b.(*Class)
		if !ok {
			return fail(in.typeError("bases must be types"))
		}
		if c.Native && !c.Subclassable {
			return fail(in.typeError("type '%s' is not an acceptable base type", c.Name))
		}
		cbases = append(cbases, c)
	}
	// __build_class__ makes the bases' tuple before the body runs;
	// type() makes (object,) when there are none
	if len(bases) > 0 {
		typeTuples = append(typeTuples, in.noneTuple(len(bases)))
	}
	if len(cbases) == 0 {
		cbases = []*Class{ObjectType}
	}
	body := in.newFrame(in.codeFor(s.Name, s.Scope), s.Name, fr.file, fr.globals, nil)
	body.back = fr
	body.ns = in.NewDict()
	for _, n := range s.Scope.Free {
		c, err := in.cellOf(fr, n)
		if err != nil {
			in.Decref(body)
			return fail(err)
		}
		Incref(c)
		body.closure = append(body.closure, c)
	}
	for _, c := range s.Scope.Cells {
		if c == "__class__" {
			body.classCell = &Cell{}
			in.track(body.classCell)
		}
	}
	mod, _ := fr.globals.getStr("__name__")
	in.SetStr(body.ns, "__module__", mod)
	in.SetStr(body.ns, "__doc__", docString(s.Body))
	in.SetStr(body.ns, "__qualname__", in.qualName(fr, s.Name))
	in.depth++
	prev := in.frame
	in.frame = body
	_, err = in.execBlock(body, s.Body)
	in.frame = prev
	in.depth--
	if err != nil {
		err = in.addTraceback(err, body)
		in.Decref(body)
		return fail(err)
	}
	modName, _ := mod.(string)
	if _, eq := body.ns.getStr("__eq__"); eq {
		if _, h := body.ns.getStr("__hash__"); !h {
			in.SetStr(body.ns, "__hash__", None) // __eq__ without __hash__: unhashable
		}
	}
	if len(bases) == 0 {
		typeTuples = append(typeTuples, in.noneTuple(1))
	}
	cls := &Class{Name: s.Name, Module: modName, Dict: newRef(body.ns).(*Dict), typeTuples: typeTuples}
	for _, b := range cbases {
		Incref(b)
	}
	cls.Bases = cbases
	in.decrefAll(bases)
	mro, merr := c3(cls)
	in.track(cls)
	if merr != nil {
		in.Decref(cls)
		in.Decref(body)
		in.decrefAll(decos)
		return in.typeError("%s", merr.Error())
	}
	cls.MRO = mro
	cls.typeTuples = append(cls.typeTuples, in.mroTuple(len(cbases), len(mro)))
	if layoutConflict(cls) {
		in.Decref(cls)
		in.Decref(body)
		in.decrefAll(decos)
		return in.typeError("multiple bases have instance lay-out conflict")
	}
	if body.classCell != nil {
		body.classCell.V = newRef(cls)
	}
	in.Decref(body)
	if err := in.initSubclass(cls, kws); err != nil {
		in.Decref(cls)
		in.decrefAll(decos)
		return err
	}
	v, err := in.decorate(decos, cls)
	if err != nil {
		return err
	}
	in.storeName(fr, s.Name, v)
	return nil
}

// mroTuple stands for the __mro__ tuple of n classes that type() makes
// for a class of nbases bases: with several, CPython 3.12's
// mro_implementation merges them into a list (from the list free list)
// that it copies into the tuple and frees.
func (in *Interp) mroTuple(nbases, n int) Value {
	if nbases == 1 {
		return in.noneTuple(n)
	}
	merged := in.NewList(nil)
	t := in.noneTuple(n)
	in.Decref(merged)
	return t
}

// initSubclass calls the __init_subclass__ of cls's bases (implicitly
// a classmethod) with the class statement's keywords, metaclass aside
// (object's takes none).
func (in *Interp) initSubclass(cls *Class, kws []KeywordArg) error {
	var kw []KeywordArg
	for _, k := range kws {
		if k.Name != "metaclass" {
			kw = append(kw, k)
		}
	}
	for _, k := range cls.MRO[1:] {
		f, ok := k.Dict.getStr("__init_subclass__")
		if !ok {
			continue
		}
		if w, isWrapper := f.(*wrapper); isWrapper {
			f = w.fn
		}
		r, err := in.call(f, []Value{cls}, kw)
		if err == nil {
			in.Decref(r)
		}
		return err
	}
	return nil
}

// evalAll evaluates expressions in order (owned results).
func (in *Interp) evalAll(fr *Frame, es []syntax.Expr) ([]Value, error) {
	out := make([]Value, 0, len(es))
	for _, e := range es {
		v, err := in.eval(fr, e)
		if err != nil {
			in.decrefAll(out)
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (in *Interp) execImport(fr *Frame, s *syntax.Import) error {
	for _, a := range s.Names {
		m, err := in.Import(a.Name)
		if err != nil {
			return err
		}
		in.imported(a.Name)
		if a.Asname != "" {
			in.storeName(fr, a.Asname, newRef(m))
			continue
		}
		top := a.Name
		if i := strings.IndexByte(top, '.'); i >= 0 {
			top = top[:i]
		}
		in.storeName(fr, top, newRef(in.modules[top]))
	}
	return nil
}

func (in *Interp) execImportFrom(fr *Frame, s *syntax.ImportFrom) error {
	if s.Level > 0 {
		return in.Raise(ImportErrorType, "attempted relative import with no known parent package")
	}
	m, err := in.Import(s.Module)
	if err != nil {
		return err
	}
	in.imported(s.Module)
	for _, a := range s.Names {
		if a.Name == "*" {
			var names []string
			var vals []Value
			m.Dict.Items(func(k, v Value) bool {
				if n, ok := k.(string); ok && !strings.HasPrefix(n, "_") {
					names = append(names, n)
					vals = append(vals, v)
				}
				return true
			})
			for i, n := range names {
				in.storeName(fr, n, newRef(vals[i]))
			}
			continue
		}
		v, found, err := in.getAttr(m, a.Name)
		if err != nil {
			return err
		}
		if !found {
			sub, serr := in.Import(s.Module + "." + a.Name)
			if serr != nil {
				in.Drop(serr)
				return in.Raise(ImportErrorType, "cannot import name '%s' from '%s'", a.Name, s.Module)
			}
			v = newRef(sub)
		}
		name := a.Name
		if a.Asname != "" {
			name = a.Asname
		}
		in.storeName(fr, name, v)
	}
	return nil
}

// Import imports a module by its dotted name (its parents first) and
// returns it (borrowed: sys.modules keeps it).
func (in *Interp) Import(name string) (*ModuleObj, error) {
	if m, ok := in.modules[name]; ok {
		return m, nil
	}
	var parent *ModuleObj
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		p, err := in.Import(name[:i])
		if err != nil {
			return nil, err
		}
		parent = p
		if m, ok := in.modules[name]; ok {
			return m, nil
		}
	}
	mk, ok := in.makers[name]
	if !ok {
		return nil, in.Raise(ModuleNotFoundType, "No module named '%s'", name)
	}
	m, err := mk(in)
	if err != nil {
		return nil, err
	}
	in.modules[name] = m
	if parent != nil {
		in.SetStr(parent.Dict, name[strings.LastIndexByte(name, '.')+1:], m)
	}
	return m, nil
}

// imported tells Hooks.Imported that an import statement imported name.
func (in *Interp) imported(name string) {
	if in.Hooks.Imported != nil {
		in.Hooks.Imported(name)
	}
}

// AddModule puts a module made by a package's maker in sys.modules
// (torch makes torch.cuda as it is imported).
func (in *Interp) AddModule(name string, m *ModuleObj) { in.modules[name] = m }
