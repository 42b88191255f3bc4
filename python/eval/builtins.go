package eval

import (
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
)

// GoFunc is the signature of a function written in Go: self is the
// receiver of a method (nil for a plain function); args and kw are
// borrowed; the result is owned.
type GoFunc = func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error)

// builtinClasses are the built-in types the builtins namespace names.
var builtinClasses = []*Class{ObjectType, TypeType, BoolType, IntType, FloatType, StrType, BytesType, ListType,
	TupleType, DictType, SetType, FrozenSetType, RangeType, SliceType, PropertyType, ClassMethodType,
	StaticMethodType, SuperType}

// builtinFuncs are the builtin functions, by name.
var builtinFuncs = []struct {
	name, doc string
	fn        GoFunc
}{
	{"abs", "abs(x)", builtinAbs},
	{"all", "all(iterable)", builtinAll},
	{"any", "any(iterable)", builtinAny},
	{"bin", "bin(number)", intText("bin", 2)},
	{"callable", "callable(obj)", builtinCallable},
	{"chr", "chr(i)", builtinChr},
	{"delattr", "delattr(obj, name)", builtinDelattr},
	{"dir", "dir([object])", builtinDir},
	{"divmod", "divmod(a, b)", builtinDivmod},
	{"enumerate", "enumerate(iterable, start=0)", builtinEnumerate},
	{"filter", "filter(func, iterable)", builtinFilter},
	{"format", "format(value, spec='')", builtinFormat},
	{"getattr", "getattr(obj, name[, default])", builtinGetattr},
	{"globals", "globals()", builtinGlobals},
	{"hasattr", "hasattr(obj, name)", builtinHasattr},
	{"hash", "hash(obj)", builtinHash},
	{"hex", "hex(number)", intText("hex", 16)},
	{"id", "id(obj)", builtinID},
	{"input", "input(...)", builtinInput},
	{"isinstance", "isinstance(obj, cls)", builtinIsinstance},
	{"issubclass", "issubclass(cls, base)", builtinIssubclass},
	{"iter", "iter(obj)", builtinIter},
	{"len", "len(obj)", builtinLen},
	{"map", "map(func, iterable)", builtinMap},
	{"max", "max(iterable, *, key=None, default=...)", minMax("max", 1)},
	{"min", "min(iterable, *, key=None, default=...)", minMax("min", -1)},
	{"next", "next(iterator[, default])", builtinNext},
	{"oct", "oct(number)", intText("oct", 8)},
	{"open", "open(...)", builtinOpen},
	{"ord", "ord(c)", builtinOrd},
	{"pow", "pow(base, exp, mod=None)", builtinPow},
	{"print", "print(*values, sep=' ', end='\\n', file=None, flush=False)", builtinPrint},
	{"repr", "repr(obj)", builtinRepr},
	{"reversed", "reversed(seq)", builtinReversed},
	{"round", "round(number, ndigits=None)", builtinRound},
	{"setattr", "setattr(obj, name, value)", builtinSetattr},
	{"sorted", "sorted(iterable, *, key=None, reverse=False)", builtinSorted},
	{"sum", "sum(iterable, start=0)", builtinSum},
	{"vars", "vars(obj)", builtinVars},
	{"zip", "zip(*iterables, strict=False)", builtinZip},
	{"_refusal", "_refusal(exc): exc, marked as gpumemrepl's refusal of what it does not model", builtinRefusal},
}

// installBuiltins fills the builtins namespace: the types, the
// exceptions, the constants and the functions.
func (in *Interp) installBuiltins() {
	set := func(name string, v Value) { in.SetStr(in.builtins, name, v) }
	for _, c := range builtinClasses {
		set(c.Name, c)
	}
	for _, c := range ExceptionClasses {
		set(c.Name, c)
	}
	set("NotImplemented", NotImplemented)
	set("Ellipsis", EllipsisType{})
	set("__name__", "builtins")
	for _, f := range builtinFuncs {
		in.builtins.put(in, hashKey{kind: keyStr, s: f.name}, f.name, NewBuiltin(f.name, f.doc, f.fn))
	}
}

// minMax is min (want -1) or max (want 1): of an iterable or of the
// arguments, by key, or default for an empty iterable.
func minMax(name string, want int) GoFunc {
	return func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) == 0 {
			return nil, in.typeError("%s expected at least 1 argument, got 0", name)
		}
		var key, def Value
		if err := in.UnpackArgs(name, nil, kw, "*", "key?", &key, "default?", &def); err != nil {
			return nil, err
		}
		var items []Value
		var err error
		if len(args) == 1 {
			items, err = in.collect(args[0])
			if err != nil {
				return nil, err
			}
		} else {
			if def != nil {
				return nil, in.typeError("Cannot specify a default for %s() with multiple positional arguments", name)
			}
			for _, a := range args {
				items = append(items, newRef(a))
			}
		}
		defer in.decrefAll(items)
		if len(items) == 0 {
			if def != nil {
				return newRef(def), nil
			}
			return nil, in.Raise(ValueErrorType, "%s() arg is an empty sequence", name)
		}
		best, bestKey := items[0], Value(nil)
		keyOf := func(v Value) (Value, error) {
			if key == nil || key == None {
				return newRef(v), nil
			}
			return in.call(key, []Value{v}, nil)
		}
		if bestKey, err = keyOf(best); err != nil {
			return nil, err
		}
		for _, v := range items[1:] {
			k, err := keyOf(v)
			if err != nil {
				in.Decref(bestKey)
				return nil, err
			}
			op := gtOp
			if want < 0 {
				op = ltOp
			}
			r, err := in.Compare(op, k, bestKey)
			if err != nil {
				in.Decref(k)
				in.Decref(bestKey)
				return nil, err
			}
			t, err := in.Truth(r)
			in.Decref(r)
			if err != nil {
				in.Decref(k)
				in.Decref(bestKey)
				return nil, err
			}
			if t {
				in.Decref(bestKey)
				best, bestKey = v, k
			} else {
				in.Decref(k)
			}
		}
		in.Decref(bestKey)
		return newRef(best), nil
	}
}

func builtinAbs(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var x Value
	if err := in.UnpackArgs("abs", args, kw, "x", &x, "/"); err != nil {
		return nil, err
	}
	switch p := plain(x, "__abs__").(type) {
	case float64:
		return math.Abs(p), nil
	case Unknown:
		return p, nil
	}
	if b, ok := bigInt(plain(x, "__abs__")); ok {
		return normInt(new(big.Int).Abs(b)), nil
	}
	if f := TypeOf(x).lookup("__abs__"); f != nil {
		return in.callWithSelf(f, x, nil, nil)
	}
	return nil, in.typeError("bad operand type for abs(): '%s'", TypeOf(x).Name)
}

func builtinAll(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var it Value
	if err := in.UnpackArgs("all", args, kw, "iterable", &it, "/"); err != nil {
		return nil, err
	}
	return in.anyAll(it, false)
}

func builtinAny(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var it Value
	if err := in.UnpackArgs("any", args, kw, "iterable", &it, "/"); err != nil {
		return nil, err
	}
	return in.anyAll(it, true)
}

func builtinCallable(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj Value
	if err := in.UnpackArgs("callable", args, kw, "obj", &obj, "/"); err != nil {
		return nil, err
	}
	return in.callable(obj), nil
}

// callable reports whether v can be called: callable(v).
func (in *Interp) callable(v Value) bool {
	switch v.(type) {
	case *Function, *Builtin, *Method, *Class:
		return true
	}
	return TypeOf(v).lookup("__call__") != nil
}

func builtinChr(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var i int64
	if err := in.UnpackArgs("chr", args, kw, "i", &i, "/"); err != nil {
		return nil, err
	}
	if i < 0 || i > 0x10ffff {
		return nil, in.Raise(ValueErrorType, "chr() arg not in range(0x110000)")
	}
	return string(rune(i)), nil
}

func builtinDelattr(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj, name Value
	if err := in.UnpackArgs("delattr", args, kw, "obj", &obj, "name", &name, "/"); err != nil {
		return nil, err
	}
	s, err := in.attrName(name)
	if err != nil {
		return nil, err
	}
	return None, in.DelAttr(obj, s)
}

func builtinDivmod(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var x, y Value
	if err := in.UnpackArgs("divmod", args, kw, "x", &x, "y", &y, "/"); err != nil {
		return nil, err
	}
	q, err := in.BinOp(floorDivOp, x, y, false)
	if err != nil {
		return nil, err
	}
	m, err := in.BinOp(modOp, x, y, false)
	if err != nil {
		in.Decref(q)
		return nil, err
	}
	return in.NewTuple([]Value{q, m}), nil
}

func builtinEnumerate(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	var n int64
	if err := in.unpackExpected("enumerate", args, kw, "iterable", &iterable, "start?", &n); err != nil {
		return nil, err
	}
	src, err := in.Iter(iterable)
	if err != nil {
		return nil, err
	}
	it := in.newIter(src, func(in *Interp, it *iterObj) (Value, bool, error) {
		if it.src == nil {
			return nil, false, nil
		}
		v, ok, err := in.Next(it.src)
		if err != nil || !ok {
			return nil, false, err
		}
		it.i++
		return in.NewTuple([]Value{n + it.i - 1, v}), true, nil
	})
	in.Decref(src)
	return it, nil
}

func builtinFilter(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var fn, iterable Value
	if err := in.unpackExpected("filter", args, kw, "function", &fn, "iterable", &iterable, "/"); err != nil {
		return nil, err
	}
	return in.overIterables(fn, []Value{iterable}, func(in *Interp, fn Value, srcs []Value) (Value, bool, error) {
		for {
			v, ok, err := in.Next(srcs[0])
			if err != nil || !ok {
				return nil, false, err
			}
			keep := v
			if fn != None {
				r, err := in.call(fn, []Value{v}, nil)
				if err != nil {
					in.Decref(v)
					return nil, false, err
				}
				keep = r
			}
			t, err := in.Truth(keep)
			if keep != v {
				in.Decref(keep)
			}
			if err != nil || t {
				return v, err == nil, err
			}
			in.Decref(v)
		}
	})
}

func builtinFormat(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var v Value
	spec := ""
	if err := in.UnpackArgs("format", args, kw, "value", &v, "format_spec?", &spec, "/"); err != nil {
		return nil, err
	}
	return in.Format(v, spec)
}

func builtinGetattr(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj, name, def Value
	if err := in.UnpackArgs("getattr", args, kw, "object", &obj, "name", &name, "default?", &def, "/"); err != nil {
		return nil, err
	}
	s, err := in.attrName(name)
	if err != nil {
		return nil, err
	}
	v, err := in.GetAttr(obj, s)
	if err != nil && def != nil && Matches(err, AttributeErrorType) {
		in.Drop(err)
		return newRef(def), nil
	}
	return v, err
}

func builtinGlobals(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.UnpackArgs("globals", args, kw); err != nil {
		return nil, err
	}
	return newRef(in.frame.globals), nil
}

func builtinHasattr(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj, name Value
	if err := in.UnpackArgs("hasattr", args, kw, "obj", &obj, "name", &name, "/"); err != nil {
		return nil, err
	}
	s, err := in.attrName(name)
	if err != nil {
		return nil, err
	}
	v, err := in.GetAttr(obj, s)
	if err != nil {
		if Matches(err, AttributeErrorType) {
			in.Drop(err)
			return false, nil
		}
		return nil, err
	}
	in.Decref(v)
	return true, nil
}

func builtinHash(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj Value
	if err := in.UnpackArgs("hash", args, kw, "obj", &obj, "/"); err != nil {
		return nil, err
	}
	k, err := in.keyOf(obj)
	if err != nil {
		return nil, err
	}
	return k.i, nil
}

func builtinID(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj Value
	if err := in.UnpackArgs("id", args, kw, "obj", &obj, "/"); err != nil {
		return nil, err
	}
	if o, ok := obj.(Object); ok {
		in.addr(o)
		return 0x7f0000000000 + in.ids[o]*16, nil
	}
	return int64(0x7e0000000000), nil
}

func builtinInput(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var prompt Value
	if err := in.UnpackArgs("input", args, kw, "prompt?", &prompt, "/"); err != nil {
		return nil, err
	}
	return nil, in.Refuse(NotImplementedErrType, "this tool does not read input() from a script")
}

func builtinIsinstance(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj, cls Value
	if err := in.UnpackArgs("isinstance", args, kw, "obj", &obj, "class_or_tuple", &cls, "/"); err != nil {
		return nil, err
	}
	if c, ok := cls.(*Class); ok && c.InstanceCheck != nil {
		return c.InstanceCheck(obj), nil
	}
	return in.isSub(TypeOf(obj), cls, "isinstance")
}

func builtinIssubclass(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var cls, spec Value
	if err := in.UnpackArgs("issubclass", args, kw, "cls", &cls, "class_or_tuple", &spec, "/"); err != nil {
		return nil, err
	}
	c, ok := cls.(*Class)
	if !ok {
		return nil, in.typeError("issubclass() arg 1 must be a class")
	}
	return in.isSub(c, spec, "issubclass")
}

// builtinIter is iter(iterable), or iter(callable, sentinel): an iterator
// calling callable until it returns sentinel.
func builtinIter(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj, sentinel Value
	if err := in.UnpackArgs("iter", args, kw, "object", &obj, "sentinel?", &sentinel, "/"); err != nil {
		return nil, err
	}
	if sentinel == nil {
		return in.Iter(obj)
	}
	pair := in.NewTuple([]Value{newRef(obj), newRef(sentinel)})
	it := in.newIter(pair, func(in *Interp, it *iterObj) (Value, bool, error) {
		p, _ := it.src.(*Tuple)
		if p == nil {
			return nil, false, nil
		}
		v, err := in.call(p.items[0], nil, nil)
		if err != nil {
			return nil, false, err
		}
		end, err := in.Equal(v, p.items[1])
		if err != nil || end {
			in.Decref(v)
			it.Clear(in)
			return nil, false, err
		}
		return v, true, nil
	})
	in.Decref(pair)
	return it, nil
}

func builtinLen(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj Value
	if err := in.UnpackArgs("len", args, kw, "obj", &obj, "/"); err != nil {
		return nil, err
	}
	return in.Len(obj)
}

// builtinMap is map(func, iterable, ...): func called with an item of
// each iterable, until one is exhausted.
func builtinMap(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.noKw("map", kw); err != nil {
		return nil, err
	}
	if len(args) < 2 {
		return nil, in.typeError("map() must have at least two arguments.")
	}
	return in.overIterables(args[0], args[1:], func(in *Interp, fn Value, srcs []Value) (Value, bool, error) {
		vals := make([]Value, 0, len(srcs))
		for _, src := range srcs {
			v, ok, err := in.Next(src)
			if err != nil || !ok {
				in.decrefAll(vals)
				return nil, false, err
			}
			vals = append(vals, v)
		}
		r, err := in.call(fn, vals, nil)
		in.decrefAll(vals)
		return r, err == nil, err
	})
}

func builtinNext(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var it, def Value
	if err := in.UnpackArgs("next", args, kw, "iterator", &it, "default?", &def, "/"); err != nil {
		return nil, err
	}
	v, ok, err := in.Next(it)
	if err != nil {
		return nil, err
	}
	if !ok {
		if def != nil {
			return newRef(def), nil
		}
		return nil, in.raiseInst(in.NewException(StopIterationType))
	}
	return v, nil
}

func builtinOpen(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var file, mode, buffering, encoding, errors, newline, closefd, opener Value
	if err := in.UnpackArgs("open", args, kw, "file", &file, "mode?", &mode, "buffering?", &buffering, "encoding?", &encoding,
		"errors?", &errors, "newline?", &newline, "closefd?", &closefd, "opener?", &opener); err != nil {
		return nil, err
	}
	return nil, in.Refuse(NotImplementedErrType, "this tool does not model files: open() is not available")
}

func builtinOrd(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var c Value
	if err := in.UnpackArgs("ord", args, kw, "c", &c, "/"); err != nil {
		return nil, err
	}
	s, ok := asStr(c)
	if !ok {
		return nil, in.typeError("ord() expected string of length 1, but %s found", TypeOf(c).Name)
	}
	r := []rune(s)
	if len(r) != 1 {
		return nil, in.typeError("ord() expected a character, but string of length %d found", len(r))
	}
	return int64(r[0]), nil
}

func builtinPow(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var base, exp, mod Value
	if err := in.UnpackArgs("pow", args, kw, "base", &base, "exp", &exp, "mod?", &mod); err != nil {
		return nil, err
	}
	if mod == nil || mod == None {
		return in.BinOp(powOp, base, exp, false)
	}
	return in.powMod(base, exp, mod)
}

func builtinPrint(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var sepArg, endArg, out Value
	var flush bool
	if err := in.UnpackArgs("print", nil, kw, "*", "sep?", &sepArg, "end?", &endArg, "file?", &out, "flush?", &flush); err != nil {
		return nil, err
	}
	sep, end := " ", "\n"
	for _, t := range []struct {
		name string
		arg  Value
		text *string
	}{{"sep", sepArg, &sep}, {"end", endArg, &end}} {
		if s, ok := t.arg.(string); ok {
			*t.text = s
		} else if t.arg != nil && t.arg != None {
			return nil, in.typeError("%s must be None or a string, not %s", t.name, TypeOf(t.arg).Name)
		}
	}
	if out == None {
		out = nil
	}
	parts := make([]string, len(args))
	for i, a := range args {
		s, err := in.Str(a)
		if err != nil {
			return nil, err
		}
		parts[i] = s
	}
	if out == nil {
		out = in.sysStream("stdout")
	}
	if o, ok := out.(*Instance); ok && o.cls != stdoutType && o.cls != stderrType {
		// a file object of the program's gets each piece, as
		// CPython's print writes them
		for i, p := range parts {
			if i > 0 {
				if err := in.writeStream(out, sep, in.Stdout); err != nil {
					return nil, err
				}
			}
			if err := in.writeStream(out, p, in.Stdout); err != nil {
				return nil, err
			}
		}
		return None, in.writeStream(out, end, in.Stdout)
	}
	return None, in.writeStream(out, strings.Join(parts, sep)+end, in.Stdout)
}

func builtinRepr(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj Value
	if err := in.UnpackArgs("repr", args, kw, "obj", &obj, "/"); err != nil {
		return nil, err
	}
	return in.Repr(obj)
}

func builtinReversed(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var seq Value
	if err := in.unpackExpected("reversed", args, kw, "sequence", &seq, "/"); err != nil {
		return nil, err
	}
	if r, ok := seq.(*Range); ok {
		n := r.Len()
		return in.Iter(&Range{Start: r.Start + (n-1)*r.Step, Stop: r.Start - r.Step, Step: -r.Step})
	}
	items, err := in.collect(seq)
	if err != nil {
		return nil, err
	}
	slices.Reverse(items)
	t := in.NewList(items)
	it, err := in.Iter(t)
	in.Decref(t)
	return it, err
}

func builtinRound(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var number, ndigits Value
	if err := in.UnpackArgs("round", args, kw, "number", &number, "ndigits?", &ndigits); err != nil {
		return nil, err
	}
	switch x := plain(number, "__round__").(type) {
	case Unknown:
		return x, nil
	case float64:
		if ndigits == nil || ndigits == None {
			r, err := pyformat.RoundInt(x)
			if err != nil {
				return nil, in.pyErr(err)
			}
			return normInt(r), nil
		}
		n, err := in.Index(ndigits)
		if err != nil {
			return nil, err
		}
		r, err := pyformat.Round(x, int(n))
		return r, in.pyErr(err)
	}
	if b, ok := bigInt(plain(number, "__round__")); ok {
		return normInt(b), nil
	}
	if f := TypeOf(number).lookup("__round__"); f != nil {
		return in.callWithSelf(f, number, nil, nil)
	}
	return nil, in.typeError("type %s doesn't define __round__ method", TypeOf(number).Name)
}

func builtinSetattr(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj, name, v Value
	if err := in.UnpackArgs("setattr", args, kw, "obj", &obj, "name", &name, "value", &v, "/"); err != nil {
		return nil, err
	}
	s, err := in.attrName(name)
	if err != nil {
		return nil, err
	}
	return None, in.SetAttr(obj, s, v)
}

func builtinSorted(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	if err := in.unpackExpected("sorted", args, nil, "iterable", &iterable, "/"); err != nil {
		return nil, err
	}
	items, err := in.collect(iterable)
	if err != nil {
		return nil, err
	}
	l := in.NewList(items)
	if err := in.sortList(l, nil, kw); err != nil {
		in.Decref(l)
		return nil, err
	}
	return l, nil
}

func builtinSum(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	var acc Value = int64(0)
	if err := in.UnpackArgs("sum", args, kw, "iterable", &iterable, "/", "start?", &acc); err != nil {
		return nil, err
	}
	acc = newRef(acc)
	err := in.forEach(iterable, func(v Value) error {
		r, err := in.BinOp(addOp, acc, v, false)
		in.Decref(acc)
		acc = r
		if err != nil {
			acc = nil
		}
		return err
	})
	if err != nil {
		if acc != nil {
			in.Decref(acc)
		}
		return nil, err
	}
	return acc, nil
}

// builtinVars is vars(obj): its __dict__. vars() without an argument (the
// caller's locals) is not modelled.
func builtinVars(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj Value
	if err := in.UnpackArgs("vars", args, kw, "object?", &obj, "/"); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, in.Refuse(NotImplementedErrType, "vars() without an argument is not modelled by gpumemrepl")
	}
	d, err := in.GetAttr(obj, "__dict__")
	if Matches(err, AttributeErrorType) {
		in.Drop(err)
		return nil, in.typeError("vars() argument must have __dict__ attribute")
	}
	return d, err
}

func builtinZip(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var strict bool
	if err := in.UnpackArgs("zip", nil, kw, "*", "strict?", &strict); err != nil {
		return nil, err
	}
	var its []Value
	for _, a := range args {
		it, err := in.Iter(a)
		if err != nil {
			in.decrefAll(its)
			return nil, err
		}
		its = append(its, it)
	}
	t := in.NewTuple(its)
	z := in.newIter(t, func(in *Interp, it *iterObj) (Value, bool, error) {
		src, _ := it.src.(*Tuple)
		if src == nil || len(src.items) == 0 {
			return nil, false, nil
		}
		out := make([]Value, 0, len(src.items))
		for i, s := range src.items {
			v, ok, err := in.Next(s)
			if err != nil || !ok {
				in.decrefAll(out)
				if err == nil && strict {
					err = in.zipUneven(src.items, i)
				}
				it.Clear(in)
				return nil, false, err
			}
			out = append(out, v)
		}
		return in.NewTuple(out), true, nil
	})
	in.Decref(t)
	return z, nil
}

// zipUneven is zip(strict=True)'s ValueError when its iterator i
// (of its) ended first: shorter than those before it, or, when the
// first ended, the first of the others that goes on is longer.
func (in *Interp) zipUneven(its []Value, i int) error {
	before := func(i int) string {
		if i == 1 {
			return " 1"
		}
		return "s 1-" + itoa(int64(i))
	}
	if i > 0 {
		return in.Raise(ValueErrorType, "zip() argument %d is shorter than argument%s", i+1, before(i))
	}
	for j := 1; j < len(its); j++ {
		v, ok, err := in.Next(its[j])
		if err != nil {
			return err
		}
		if ok {
			in.Decref(v)
			return in.Raise(ValueErrorType, "zip() argument %d is longer than argument%s", j+1, before(j))
		}
	}
	return nil
}

// overIterables makes the iterator of map or filter: it holds fn and
// an iterator of each iterable; step gives the next value.
func (in *Interp) overIterables(fn Value, iterables []Value, step func(in *Interp, fn Value, srcs []Value) (Value, bool, error)) (Value, error) {
	held := []Value{newRef(fn)}
	for _, x := range iterables {
		src, err := in.Iter(x)
		if err != nil {
			in.decrefAll(held)
			return nil, err
		}
		held = append(held, src)
	}
	t := in.NewTuple(held)
	m := in.newIter(t, func(in *Interp, it *iterObj) (Value, bool, error) {
		p, _ := it.src.(*Tuple)
		if p == nil {
			return nil, false, nil
		}
		return step(in, p.items[0], p.items[1:])
	})
	in.Decref(t)
	return m, nil
}

// isSub is isinstance/issubclass against a class or tuple of classes.
func (in *Interp) isSub(c *Class, spec Value, fn string) (Value, error) {
	switch s := spec.(type) {
	case *Class:
		if s == FloatType && c == UnknownType {
			return true, nil
		}
		return c.IsSubclass(s), nil
	case *Tuple:
		for _, x := range s.items {
			r, err := in.isSub(c, x, fn)
			if err != nil || r == true {
				return r, err
			}
		}
		return false, nil
	}
	return nil, in.typeError("%s() arg 2 must be a type, a tuple of types, or a union", fn)
}

// ForEach calls f for each item of an iterable (f borrows it).
func (in *Interp) ForEach(v Value, f func(Value) error) error { return in.forEach(v, f) }

func (in *Interp) forEach(v Value, f func(Value) error) error {
	it, err := in.Iter(v)
	if err != nil {
		return err
	}
	defer in.Decref(it)
	for {
		x, ok, err := in.Next(it)
		if err != nil || !ok {
			return err
		}
		err = f(x)
		in.Decref(x)
		if err != nil {
			return err
		}
	}
}

func (in *Interp) anyAll(v Value, any bool) (Value, error) {
	result := !any
	err := in.forEach(v, func(x Value) error {
		t, err := in.Truth(x)
		if err == nil && t == any {
			result = any
			return errStop
		}
		return err
	})
	if err == errStop {
		err = nil
	}
	return result, err
}

// errStop ends a forEach early.
var errStop = &Exception{}

// powMod is pow(base, exp, mod) of ints: a negative exponent takes the
// inverse modulo mod, as CPython 3.8 and later do.
func (in *Interp) powMod(base, exp, mod Value) (Value, error) {
	b, ok1 := bigInt(plain(base, "__index__"))
	e, ok2 := bigInt(plain(exp, "__index__"))
	m, ok3 := bigInt(plain(mod, "__index__"))
	if !ok1 || !ok2 || !ok3 {
		for _, v := range []Value{base, exp, mod} {
			if !isNumber(plain(v)) {
				return nil, in.typeError("unsupported operand type(s) for ** or pow(): '%s', '%s', '%s'", TypeOf(base).Name, TypeOf(exp).Name, TypeOf(mod).Name)
			}
		}
		return nil, in.typeError("pow() 3rd argument not allowed unless all arguments are integers")
	}
	if m.Sign() == 0 {
		return nil, in.Raise(ValueErrorType, "pow() 3rd argument cannot be 0")
	}
	am := new(big.Int).Abs(m)
	if e.Sign() < 0 {
		inv := new(big.Int).ModInverse(new(big.Int).Mod(b, am), am)
		if inv == nil {
			return nil, in.Raise(ValueErrorType, "base is not invertible for the given modulus")
		}
		b, e = inv, new(big.Int).Neg(e)
	}
	r := new(big.Int).Exp(b, e, am)
	if m.Sign() < 0 && r.Sign() != 0 {
		r.Add(r, m) // the result takes the modulus's sign
	}
	return normInt(r), nil
}

// intText is bin, oct or hex: an int as text in base (2, 8, 16), with
// Python's prefix.
func intText(name string, base int) GoFunc {
	prefix := map[int]string{2: "0b", 8: "0o", 16: "0x"}[base]
	return func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var number Value
		if err := in.UnpackArgs(name, args, kw, "number", &number, "/"); err != nil {
			return nil, err
		}
		n, ok := bigInt(plain(number, "__index__"))
		if !ok {
			i, err := in.Index(number)
			if err != nil {
				return nil, err
			}
			n = big.NewInt(i)
		}
		sign := ""
		if n.Sign() < 0 {
			sign = "-"
		}
		return sign + prefix + new(big.Int).Abs(n).Text(base), nil
	}
}

// attrName is the name argument of getattr, setattr, hasattr and
// delattr: a str, or CPython's TypeError.
func (in *Interp) attrName(v Value) (string, error) {
	s, ok := asStr(v)
	if !ok {
		return "", in.typeError("attribute name must be string, not '%s'", TypeOf(v).Name)
	}
	return s, nil
}
