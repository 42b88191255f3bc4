package eval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
)

// method declares a method of a built-in class.
func method(c *Class, name string, fn GoFunc) { c.SetMethod(NewBuiltin(name, "", fn)) }

// strArg is argument i as a str, or a TypeError.
func (in *Interp) strArg(fn string, args []Value, i int) (string, error) {
	if i >= len(args) {
		return "", in.typeError("%s() missing argument %d", fn, i+1)
	}
	s, ok := asStr(args[i])
	if !ok {
		return "", in.typeError("%s() argument %d must be str, not %s", fn, i+1, TypeOf(args[i]).Name)
	}
	return s, nil
}

func init() {
	strMethods()
	listMethods()
	dictMethods()
	setMethods()
}

func strMethods() {
	s := StrType
	simple := func(name string, f func(string) string) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("str."+name, args, kw, 0, 0); err != nil {
				return nil, err
			}
			return f(self.(string)), nil
		})
	}
	simple("upper", strings.ToUpper)
	simple("lower", strings.ToLower)
	simple("title", func(x string) string {
		prev := false
		return strings.Map(func(r rune) rune {
			out := unicode.ToLower(r)
			if !prev {
				out = unicode.ToTitle(r)
			}
			prev = unicode.IsLetter(r)
			return out
		}, x)
	})
	simple("capitalize", func(x string) string {
		if x == "" {
			return x
		}
		r := []rune(strings.ToLower(x))
		r[0] = unicode.ToUpper(r[0])
		return string(r)
	})
	pred := func(name string, f func(rune) bool) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("str."+name, args, kw, 0, 0); err != nil {
				return nil, err
			}
			x := self.(string)
			if x == "" {
				return false, nil
			}
			for _, r := range x {
				if !f(r) {
					return false, nil
				}
			}
			return true, nil
		})
	}
	pred("isdigit", isDigitChar)
	pred("isalpha", unicode.IsLetter)
	pred("isspace", unicode.IsSpace)
	strip := func(name string, f func(string, string) string, ws func(string) string) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 0, 1); err != nil {
				return nil, err
			}
			if len(args) == 0 || args[0] == None {
				return ws(self.(string)), nil
			}
			chars, ok := asStr(args[0])
			if !ok {
				return nil, in.typeError("%s arg must be None or str", name)
			}
			return f(self.(string), chars), nil
		})
	}
	strip("strip", strings.Trim, strings.TrimSpace)
	strip("lstrip", strings.TrimLeft, func(x string) string { return strings.TrimLeftFunc(x, unicode.IsSpace) })
	strip("rstrip", strings.TrimRight, func(x string) string { return strings.TrimRightFunc(x, unicode.IsSpace) })
	method(s, "join", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("join", args, kw, 1, 1); err != nil {
			return nil, err
		}
		var parts []string
		i := 0
		err := in.forEach(args[0], func(v Value) error {
			p, ok := asStr(v)
			if !ok {
				return in.typeError("sequence item %d: expected str instance, %s found", i, TypeOf(v).Name)
			}
			parts = append(parts, p)
			i++
			return nil
		})
		if err != nil {
			return nil, err
		}
		return strings.Join(parts, self.(string)), nil
	})
	split := func(name string, right bool) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			a, err := in.ArgSpec(name, args, kw, 0, "sep", "maxsplit")
			if err != nil {
				return nil, err
			}
			x := self.(string)
			n := int64(-1)
			if a[1] != nil {
				if n, err = in.Index(a[1]); err != nil {
					return nil, err
				}
			}
			var parts []string
			if a[0] == nil || a[0] == None {
				parts = strings.Fields(x)
				if n >= 0 && int64(len(parts)) > n+1 {
					parts = splitFieldsN(x, int(n), right)
				}
			} else {
				sep, ok := asStr(a[0])
				if !ok {
					return nil, in.typeError("must be str or None, not %s", TypeOf(a[0]).Name)
				}
				if sep == "" {
					return nil, in.Raise(ValueErrorType, "empty separator")
				}
				if n < 0 {
					parts = strings.Split(x, sep)
				} else if right {
					parts = rsplitN(x, sep, int(n))
				} else {
					parts = strings.SplitN(x, sep, int(n)+1)
				}
			}
			items := make([]Value, len(parts))
			for i, p := range parts {
				items[i] = p
			}
			return in.NewList(items), nil
		})
	}
	split("split", false)
	split("rsplit", true)
	partition := func(name string, cut func(x, sep string) (before, after string, found bool)) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			sep, err := in.mustStr(args[0])
			if err != nil {
				return nil, err
			}
			if sep == "" {
				return nil, in.Raise(ValueErrorType, "empty separator")
			}
			before, after, found := cut(self.(string), sep)
			if !found {
				return in.NewTuple([]Value{before, "", after}), nil
			}
			return in.NewTuple([]Value{before, sep, after}), nil
		})
	}
	partition("partition", strings.Cut)
	partition("rpartition", func(x, sep string) (string, string, bool) {
		i := strings.LastIndex(x, sep)
		if i < 0 {
			return "", x, false // rpartition puts a missing separator's string last
		}
		return x[:i], x[i+len(sep):], true
	})
	method(s, "splitlines", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("splitlines", args, kw, 0, "keepends")
		if err != nil {
			return nil, err
		}
		keep := false
		if a[0] != nil {
			if keep, err = in.Truth(a[0]); err != nil {
				return nil, err
			}
		}
		lines := splitLines(self.(string), keep)
		items := make([]Value, len(lines))
		for i, l := range lines {
			items[i] = l
		}
		return in.NewList(items), nil
	})
	method(s, "replace", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("replace", args, kw, 2, 3); err != nil {
			return nil, err
		}
		old, err := in.strArg("replace", args, 0)
		if err != nil {
			return nil, err
		}
		nw, err := in.strArg("replace", args, 1)
		if err != nil {
			return nil, err
		}
		n := int64(-1)
		if len(args) == 3 {
			if n, err = in.Index(args[2]); err != nil {
				return nil, err
			}
		}
		return strings.Replace(self.(string), old, nw, int(n)), nil
	})
	affix := func(name string, f func(string, string) bool) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.findArgs(name, args, kw); err != nil {
				return nil, err
			}
			x, _, past, err := in.strWindow(self.(string), args[1:])
			if err != nil || past {
				return false, err
			}
			if t, ok := args[0].(*Tuple); ok {
				for _, p := range t.items {
					q, ok := asStr(p)
					if !ok {
						return nil, in.typeError("tuple for %s must only contain str, not %s", name, TypeOf(p).Name)
					}
					if f(x, q) {
						return true, nil
					}
				}
				return false, nil
			}
			p, ok := asStr(args[0])
			if !ok {
				return nil, in.typeError("%s first arg must be str or a tuple of str, not %s", name, TypeOf(args[0]).Name)
			}
			return f(x, p), nil
		})
	}
	affix("startswith", strings.HasPrefix)
	affix("endswith", strings.HasSuffix)
	find := func(name string, f func(string, string) int, raise bool) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.findArgs(name, args, kw); err != nil {
				return nil, err
			}
			sub, err := in.mustStr(args[0])
			if err != nil {
				return nil, err
			}
			x, from, past, err := in.strWindow(self.(string), args[1:])
			i := -1
			if err == nil && !past {
				i = f(x, sub)
			}
			if err != nil || i < 0 {
				if err == nil && raise {
					err = in.Raise(ValueErrorType, "substring not found")
				}
				return int64(-1), err
			}
			if _, ascii := in.charsOf(self.(string)); ascii {
				return int64(from + i), nil
			}
			return int64(from + len([]rune(x[:i]))), nil
		})
	}
	find("find", strings.Index, false)
	find("rfind", strings.LastIndex, false)
	find("index", strings.Index, true)
	find("rindex", strings.LastIndex, true)
	method(s, "count", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.findArgs("count", args, kw); err != nil {
			return nil, err
		}
		sub, err := in.mustStr(args[0])
		if err != nil {
			return nil, err
		}
		x, _, past, err := in.strWindow(self.(string), args[1:])
		if err != nil || past {
			return int64(0), err
		}
		return int64(strings.Count(x, sub)), nil
	})
	pad := func(name string, align string) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 2); err != nil {
				return nil, err
			}
			w, err := in.Index(args[0])
			if err != nil {
				return nil, err
			}
			fill := " "
			if len(args) == 2 {
				var ok bool
				if fill, ok = asStr(args[1]); !ok {
					return nil, in.typeError("The fill character must be a unicode character, not %s", TypeOf(args[1]).Name)
				}
				if utf8.RuneCountInString(fill) != 1 {
					return nil, in.typeError("The fill character must be exactly one character long")
				}
			}
			out, err := pyformat.FormatStr(self.(string), fill+align+itoa(w))
			return out, in.pyErr(err)
		})
	}
	pad("ljust", "<")
	pad("rjust", ">")
	pad("center", "^")
	method(s, "zfill", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("zfill", args, kw, 1, 1); err != nil {
			return nil, err
		}
		w, err := in.Index(args[0])
		if err != nil {
			return nil, err
		}
		x := self.(string)
		sign := ""
		if x != "" && (x[0] == '-' || x[0] == '+') {
			sign, x = x[:1], x[1:]
		}
		for int64(len([]rune(x))+len(sign)) < w {
			x = "0" + x
		}
		return sign + x, nil
	})
	method(s, "format", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return in.strFormat(self.(string), args, kw)
	})
	method(s, "encode", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("encode", args, kw, 0, "encoding", "errors")
		if err != nil {
			return nil, err
		}
		for i, name := range []string{"encoding", "errors"} {
			if _, ok := asStr(a[i]); a[i] != nil && !ok {
				return nil, in.typeError("encode() argument '%s' must be str, not %s", name, TypeOf(a[i]).Name)
			}
		}
		return Bytes(self.(string)), nil
	})
}

// countEqual is how many of items equal v (list.count, deque.count).
func (in *Interp) countEqual(items []Value, v Value) (Value, error) {
	n := int64(0)
	for _, x := range items {
		eq, err := in.Equal(x, v)
		if err != nil {
			return nil, err
		}
		if eq {
			n++
		}
	}
	return n, nil
}

func itoa(n int64) string {
	s, _ := pyformat.IntString(bigOf(n))
	return s
}

// splitFieldsN splits on whitespace at most n times, from the left or
// the right, as str.split()/rsplit() with maxsplit.
func splitFieldsN(x string, n int, right bool) []string {
	if right {
		head := strings.TrimRightFunc(x, unicode.IsSpace)
		var out []string
		for range n {
			i := strings.LastIndexFunc(head, unicode.IsSpace)
			if i < 0 {
				break
			}
			out = append([]string{head[i+1:]}, out...)
			head = strings.TrimRightFunc(head[:i], unicode.IsSpace)
		}
		return append([]string{head}, out...)
	}
	var out []string
	rest := strings.TrimLeftFunc(x, unicode.IsSpace)
	for range n {
		i := strings.IndexFunc(rest, unicode.IsSpace)
		if i < 0 {
			break
		}
		out = append(out, rest[:i])
		rest = strings.TrimLeftFunc(rest[i:], unicode.IsSpace)
	}
	return append(out, rest)
}

func rsplitN(x, sep string, n int) []string {
	var out []string
	for range n {
		i := strings.LastIndex(x, sep)
		if i < 0 {
			break
		}
		out = append([]string{x[i+len(sep):]}, out...)
		x = x[:i]
	}
	return append([]string{x}, out...)
}

// strFormat is template.format(*args, **kw).
func (in *Interp) strFormat(tmpl string, args []Value, kw []KeywordArg) (Value, error) {
	pieces, perr := pyformat.ParseFormatString(tmpl)
	var b strings.Builder
	var render func(ps []pyformat.Piece) (string, error)
	render = func(ps []pyformat.Piece) (string, error) {
		var b strings.Builder
		for _, p := range ps {
			b.WriteString(p.Literal)
			f := p.Field
			if f == nil {
				continue
			}
			var v Value
			if f.Keyword != "" {
				v = Kwarg(kw, f.Keyword)
				if v == nil {
					return "", in.raiseInst(in.NewException(KeyErrorType, f.Keyword))
				}
				Incref(v)
			} else {
				if f.Index >= len(args) {
					return "", in.Raise(IndexErrorType, "Replacement index %d out of range for positional args tuple", f.Index)
				}
				v = newRef(args[f.Index])
			}
			for _, acc := range f.Path {
				var next Value
				var err error
				if acc.Attr {
					next, err = in.GetAttr(v, acc.Name)
				} else if acc.IsIndex {
					next, err = in.GetItem(v, int64(acc.Index))
				} else {
					next, err = in.GetItem(v, acc.Name)
				}
				in.Decref(v)
				if err != nil {
					return "", err
				}
				v = next
			}
			if f.Err != nil {
				in.Decref(v)
				return "", in.pyErr(f.Err)
			}
			if f.Conversion != 0 {
				var s string
				var err error
				if f.Conversion == 's' {
					s, err = in.Str(v)
				} else {
					s, err = in.Repr(v)
				}
				in.Decref(v)
				if err != nil {
					return "", err
				}
				v = s
			}
			spec, err := render(f.Spec)
			if err == nil && f.SpecErr != nil {
				err = in.pyErr(f.SpecErr)
			}
			if err != nil {
				in.Decref(v)
				return "", err
			}
			s, err := in.Format(v, spec)
			in.Decref(v)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		return b.String(), nil
	}
	s, err := render(pieces)
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return nil, in.pyErr(perr)
	}
	b.WriteString(s)
	return b.String(), nil
}

func listMethods() {
	l := ListType
	method(l, "append", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("list.append", args, kw, 1, 1); err != nil {
			return nil, err
		}
		self.(*List).Append(args[0])
		return None, nil
	})
	method(l, "extend", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("list.extend", args, kw, 1, 1); err != nil {
			return nil, err
		}
		items, err := in.collect(args[0])
		if err != nil {
			return nil, err
		}
		s := self.(*List)
		s.items = append(s.items, items...)
		return None, nil
	})
	method(l, "insert", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("insert", args, kw, 2, 2); err != nil {
			return nil, err
		}
		s := self.(*List)
		i, err := in.Index(args[0])
		if err != nil {
			return nil, err
		}
		n := int64(len(s.items))
		if i < 0 {
			i = max(i+n, 0)
		}
		i = min(i, n)
		s.items = append(s.items, nil)
		copy(s.items[i+1:], s.items[i:])
		s.items[i] = newRef(args[1])
		return None, nil
	})
	method(l, "pop", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("pop", args, kw, 0, 1); err != nil {
			return nil, err
		}
		s := self.(*List)
		if len(s.items) == 0 {
			return nil, in.Raise(IndexErrorType, "pop from empty list")
		}
		i := int64(len(s.items) - 1)
		if len(args) == 1 {
			var err error
			if i, err = in.seqIndex(args[0], int64(len(s.items)), "pop"); err != nil {
				if Matches(err, IndexErrorType) {
					in.Drop(err)
					return nil, in.Raise(IndexErrorType, "pop index out of range")
				}
				return nil, err
			}
		}
		v := s.items[i]
		s.items = append(s.items[:i], s.items[i+1:]...)
		return v, nil
	})
	method(l, "remove", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("list.remove", args, kw, 1, 1); err != nil {
			return nil, err
		}
		s := self.(*List)
		for i, x := range s.items {
			eq, err := in.Equal(x, args[0])
			if err != nil {
				return nil, err
			}
			if eq {
				s.items = append(s.items[:i], s.items[i+1:]...)
				in.Decref(x)
				return None, nil
			}
		}
		return nil, in.Raise(ValueErrorType, "list.remove(x): x not in list")
	})
	method(l, "index", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("index", args, kw, 1, 1); err != nil {
			return nil, err
		}
		for i, x := range self.(*List).items {
			eq, err := in.Equal(x, args[0])
			if err != nil {
				return nil, err
			}
			if eq {
				return int64(i), nil
			}
		}
		return nil, in.Raise(ValueErrorType, "%s is not in list", in.ReprOf(args[0]))
	})
	method(l, "count", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("count", args, kw, 1, 1); err != nil {
			return nil, err
		}
		return in.countEqual(self.(*List).items, args[0])
	})
	method(l, "clear", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("clear", args, kw, 0, 0); err != nil {
			return nil, err
		}
		self.(*List).Clear(in)
		return None, nil
	})
	method(l, "copy", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		items, _ := in.collect(self)
		return in.NewList(items), nil
	})
	method(l, "reverse", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		items := self.(*List).items
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
		return None, nil
	})
	method(l, "sort", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) > 0 {
			return nil, in.typeError("sort() takes no positional arguments")
		}
		return None, in.sortList(self.(*List), kw)
	})
	for _, name := range []string{"index", "count"} {
		fn, _ := l.Dict.getStr(name)
		b := fn.(*Builtin)
		method(TupleType, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			t := self.(*Tuple)
			tmp := &List{items: t.items}
			return b.Fn(in, tmp, args, kw)
		})
	}
}

func dictMethods() {
	d := DictType
	method(d, "get", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("get", args, kw, 1, 2); err != nil {
			return nil, err
		}
		v, ok, err := in.dictGet(self.(*Dict), args[0])
		if err != nil {
			return nil, err
		}
		if ok {
			return newRef(v), nil
		}
		if len(args) == 2 {
			return newRef(args[1]), nil
		}
		return None, nil
	})
	views := map[string]viewKind{"keys": viewKeys, "values": viewValues, "items": viewItems}
	for name, kind := range views {
		method(d, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 0, 0); err != nil {
				return nil, err
			}
			return in.newView(self.(*Dict), kind), nil
		})
	}
	for _, c := range []*Class{dictKeysType, dictValuesType, dictItemsType} {
		method(c, "__len__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			return int64(self.(*dictView).d.n), nil
		})
	}
	method(d, "pop", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("pop", args, kw, 1, 2); err != nil {
			return nil, err
		}
		s := self.(*Dict)
		v, ok, err := in.dictGet(s, args[0])
		if err != nil {
			return nil, err
		}
		if !ok {
			if len(args) == 2 {
				return newRef(args[1]), nil
			}
			return nil, in.raiseInst(in.NewException(KeyErrorType, args[0]))
		}
		Incref(v)
		if _, err := in.dictDel(s, args[0]); err != nil {
			in.Decref(v)
			return nil, err
		}
		return v, nil
	})
	method(d, "popitem", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		s := self.(*Dict)
		for i := len(s.entries) - 1; i >= 0; i-- {
			e := s.entries[i]
			if e.del {
				continue
			}
			t := in.NewTuple([]Value{newRef(e.key), newRef(e.val)})
			s.remove(in, e.k)
			return t, nil
		}
		return nil, in.Raise(KeyErrorType, "popitem(): dictionary is empty")
	})
	method(d, "setdefault", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("setdefault", args, kw, 1, 2); err != nil {
			return nil, err
		}
		s := self.(*Dict)
		v, ok, err := in.dictGet(s, args[0])
		if err != nil {
			return nil, err
		}
		if ok {
			return newRef(v), nil
		}
		var def Value = None
		if len(args) == 2 {
			def = args[1]
		}
		if err := in.dictSet(s, args[0], def); err != nil {
			return nil, err
		}
		return newRef(def), nil
	})
	method(d, "update", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		s := self.(*Dict)
		if len(args) == 1 {
			if err := in.dictUpdate(s, args[0]); err != nil {
				return nil, err
			}
		}
		for _, k := range kw {
			in.SetStr(s, k.Name, k.Value)
		}
		return None, nil
	})
	method(d, "clear", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		self.(*Dict).Clear(in)
		return None, nil
	})
	method(d, "copy", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		c := in.NewDict()
		return c, in.dictUpdate(c, self)
	})
}

func setMethods() {
	s := SetType
	method(s, "add", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("set.add", args, kw, 1, 1); err != nil {
			return nil, err
		}
		return None, in.setAdd(self.(*Set), args[0])
	})
	method(s, "discard", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("set.discard", args, kw, 1, 1); err != nil {
			return nil, err
		}
		_, err := in.dictDel(self.(*Set).d, args[0])
		return None, err
	})
	method(s, "remove", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("set.remove", args, kw, 1, 1); err != nil {
			return nil, err
		}
		ok, err := in.dictDel(self.(*Set).d, args[0])
		if err == nil && !ok {
			err = in.raiseInst(in.NewException(KeyErrorType, args[0]))
		}
		return None, err
	})
	method(s, "update", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		for _, a := range args {
			if err := in.forEach(a, func(v Value) error { return in.setAdd(self.(*Set), v) }); err != nil {
				return nil, err
			}
		}
		return None, nil
	})
	method(s, "clear", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		self.(*Set).d.Clear(in)
		return None, nil
	})
}

// strWindow is s[start:end] for a str method's optional start and end
// (ints or None, clamped as a slice clamps them): the text, where it
// starts (in characters), and past when start lies beyond s or end
// before start, where CPython's find, count and startswith find nothing.
func (in *Interp) strWindow(s string, bounds []Value) (x string, from int, past bool, err error) {
	if len(bounds) == 0 || bounds[0] == None && (len(bounds) == 1 || bounds[1] == None) {
		return s, 0, false, nil
	}
	r, ascii := in.charsOf(s)
	n := len(r)
	if ascii {
		n = len(s)
	}
	at := func(i, def int) (int, error) {
		if i >= len(bounds) || bounds[i] == None {
			return def, nil
		}
		v, err := in.Index(bounds[i])
		if Matches(err, TypeErrorType) {
			in.Drop(err)
			err = in.typeError("slice indices must be integers or None or have an __index__ method")
		}
		if err != nil {
			return 0, err
		}
		if v < 0 {
			v = max(v+int64(n), 0)
		}
		return int(min(v, int64(n)+1)), nil
	}
	start, err := at(0, 0)
	if err != nil {
		return "", 0, false, err
	}
	end, err := at(1, n)
	if err != nil {
		return "", 0, false, err
	}
	end = min(end, n)
	if start > n || end < start {
		return "", start, true, nil
	}
	if ascii {
		return s[start:end], start, false, nil
	}
	return string(r[start:end]), start, false, nil
}
