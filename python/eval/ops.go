package eval

import (
	"math"
	"math/big"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// dunders are each binary operator's method, reflected method and
// in-place method.
var dunders = map[syntax.BinOpKind][3]string{
	syntax.Add:      {"__add__", "__radd__", "__iadd__"},
	syntax.Sub:      {"__sub__", "__rsub__", "__isub__"},
	syntax.Mult:     {"__mul__", "__rmul__", "__imul__"},
	syntax.MatMult:  {"__matmul__", "__rmatmul__", "__imatmul__"},
	syntax.Div:      {"__truediv__", "__rtruediv__", "__itruediv__"},
	syntax.Mod:      {"__mod__", "__rmod__", "__imod__"},
	syntax.Pow:      {"__pow__", "__rpow__", "__ipow__"},
	syntax.LShift:   {"__lshift__", "__rlshift__", "__ilshift__"},
	syntax.RShift:   {"__rshift__", "__rrshift__", "__irshift__"},
	syntax.BitOr:    {"__or__", "__ror__", "__ior__"},
	syntax.BitXor:   {"__xor__", "__rxor__", "__ixor__"},
	syntax.BitAnd:   {"__and__", "__rand__", "__iand__"},
	syntax.FloorDiv: {"__floordiv__", "__rfloordiv__", "__ifloordiv__"},
}

// BinOp is a op b (a op= b when inplace); a and b are borrowed.
func (in *Interp) BinOp(op syntax.BinOpKind, a, b Value, inplace bool) (Value, error) {
	if r, ok, err := in.builtinBinOp(op, a, b, inplace); ok || err != nil {
		return r, err
	}
	names := dunders[op]
	if r, ok, err := in.baseBinOp(op, a, b, inplace); ok || err != nil {
		return r, err
	}
	if r, ok, err := in.setBinOp(op, a, b, inplace); ok || err != nil {
		return r, err
	}
	ta, tb := TypeOf(a), TypeOf(b)
	if inplace {
		if f := ta.lookup(names[2]); f != nil {
			r, err := in.callWithSelf(f, a, []Value{b}, nil)
			if err != nil || r != NotImplemented {
				return r, err
			}
		}
	}
	if f := ta.lookup(names[0]); f != nil {
		r, err := in.callWithSelf(f, a, []Value{b}, nil)
		if err != nil || r != NotImplemented {
			return r, err
		}
	}
	if tb != ta || isNumber(a) {
		if f := tb.lookup(names[1]); f != nil {
			r, err := in.callWithSelf(f, b, []Value{a}, nil)
			if err != nil || r != NotImplemented {
				return r, err
			}
		}
	}
	if op == syntax.Add {
		// CPython's sequence concatenation words it its own way
		switch plain(a).(type) {
		case string, *List, *Tuple:
			seq := TypeOf(plain(a)).Name
			return nil, in.typeError("can only concatenate %s (not \"%s\") to %s", seq, tb.Name, seq)
		case Bytes:
			return nil, in.typeError("can't concat %s to bytes", tb.Name)
		}
	}
	sym := op.Symbol()
	if inplace {
		sym += "="
	}
	if op == syntax.Pow && !inplace {
		return nil, in.typeError("unsupported operand type(s) for ** or pow(): '%s' and '%s'", ta.Name, tb.Name)
	}
	return nil, in.typeError("unsupported operand type(s) for %s: '%s' and '%s'", sym, ta.Name, tb.Name)
}

func isNumber(v Value) bool {
	switch v.(type) {
	case bool, int64, *big.Int, float64, Unknown:
		return true
	}
	return false
}

// builtinBinOp does the operators of numbers, str, bytes, list and tuple.
func (in *Interp) builtinBinOp(op syntax.BinOpKind, a, b Value, inplace bool) (Value, bool, error) {
	if u, ok := a.(Unknown); ok && isNumber(b) {
		return u, true, nil
	}
	if u, ok := b.(Unknown); ok && isNumber(a) {
		return u, true, nil
	}
	_, af := a.(float64)
	_, bf := b.(float64)
	ai, aInt := bigInt(a)
	bi, bInt := bigInt(b)
	switch {
	case af && (bf || bInt) || bf && aInt:
		x, y := toFloat(a), toFloat(b)
		r, err := in.floatOp(op, x, y)
		return r, r != nil || err != nil, err
	case aInt && bInt:
		r, err := in.intOp(op, a, b, ai, bi)
		return r, r != nil || err != nil, err
	}
	switch x := a.(type) {
	case string:
		switch op {
		case syntax.Add:
			if y, ok := b.(string); ok {
				return x + y, true, nil
			}
		case syntax.Mult:
			if n, ok := b.(int64); ok {
				return in.repeatStr(x, n)
			}
		case syntax.Mod:
			s, err := in.percent(x, b)
			return s, true, err
		}
	case Bytes:
		if y, ok := b.(Bytes); ok && op == syntax.Add {
			return x + y, true, nil
		}
	case *List:
		switch op {
		case syntax.Add:
			if inplace {
				items, err := in.collect(b)
				if err != nil {
					return nil, true, err
				}
				x.items = append(x.items, items...)
				return newRef(x), true, nil
			}
			if y, ok := b.(*List); ok {
				return in.NewList(concat(x.items, y.items)), true, nil
			}
		case syntax.Mult:
			if n, ok := b.(int64); ok {
				if err := in.checkLen(int64(len(x.items)), n); err != nil {
					return nil, true, err
				}
				items := repeat(x.items, n)
				if inplace {
					old := x.items
					x.items = items
					in.decrefAll(old)
					return newRef(x), true, nil
				}
				return in.NewList(items), true, nil
			}
		}
	case *Dict:
		if y, ok := b.(*Dict); ok && op == syntax.BitOr {
			// d | other is a new dict; d |= other updates d
			d := x
			if !inplace {
				d = in.NewDict()
				if err := in.dictUpdate(d, x); err != nil {
					in.Decref(d)
					return nil, true, err
				}
			} else {
				Incref(d)
			}
			if err := in.dictUpdate(d, y); err != nil {
				in.Decref(d)
				return nil, true, err
			}
			return d, true, nil
		}
	case *Tuple:
		switch op {
		case syntax.Add:
			if y, ok := b.(*Tuple); ok && (x.cls == nil || x.cls.StructSeq) {
				return in.NewTuple(concat(x.items, y.items)), true, nil
			}
		case syntax.Mult:
			if n, ok := b.(int64); ok {
				if err := in.checkLen(int64(len(x.items)), n); err != nil {
					return nil, true, err
				}
				return in.NewTuple(repeat(x.items, n)), true, nil
			}
		}
	case int64:
		if op == syntax.Mult {
			switch y := b.(type) {
			case string:
				return in.repeatStr(y, x)
			case *List:
				if err := in.checkLen(int64(len(y.items)), x); err != nil {
					return nil, true, err
				}
				return in.NewList(repeat(y.items, x)), true, nil
			case *Tuple:
				if err := in.checkLen(int64(len(y.items)), x); err != nil {
					return nil, true, err
				}
				return in.NewTuple(repeat(y.items, x)), true, nil
			}
		}
	}
	return nil, false, nil
}

func (in *Interp) repeatStr(s string, n int64) (Value, bool, error) {
	if n <= 0 {
		return "", true, nil
	}
	if int64(len(s))*n > 1<<30 {
		return nil, true, in.Raise(MemoryErrorType, "")
	}
	return strings.Repeat(s, int(n)), true, nil
}

// MaxItems bounds a container the tool builds (a list repeated, an
// iterable collected): past it, MemoryError, where CPython would take
// gigabytes of host memory first.
const MaxItems = 1 << 26

// checkLen is the MemoryError for n copies of k items past MaxItems.
func (in *Interp) checkLen(k, n int64) error {
	if k > 0 && n > MaxItems/k {
		return in.Refuse(MemoryErrorType, "this tool builds containers of at most %d items", MaxItems)
	}
	return nil
}

func concat(a, b []Value) []Value {
	out := make([]Value, 0, len(a)+len(b))
	for _, v := range a {
		out = append(out, newRef(v))
	}
	for _, v := range b {
		out = append(out, newRef(v))
	}
	return out
}

func repeat(a []Value, n int64) []Value {
	if n <= 0 || len(a) == 0 {
		return nil
	}
	out := make([]Value, 0, int64(len(a))*n)
	for range n {
		for _, v := range a {
			out = append(out, newRef(v))
		}
	}
	return out
}

func toFloat(v Value) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	case bool:
		if v {
			return 1
		}
		return 0
	case *big.Int:
		f, _ := pyformat.IntToFloat(v)
		return f
	}
	return math.NaN()
}

// pyErr turns a pyformat error into the Python exception it names.
func (in *Interp) pyErr(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*pyformat.Error); ok {
		cls := map[string]*Class{"ValueError": ValueErrorType, "TypeError": TypeErrorType,
			"OverflowError": OverflowErrorType, "ZeroDivisionError": ZeroDivisionErrorType,
			"MemoryError": MemoryErrorType, "IndexError": IndexErrorType, "KeyError": KeyErrorType}[e.Kind]
		if cls == nil {
			cls = ValueErrorType
		}
		if e.Msg == "" {
			return in.raiseInst(in.NewException(cls))
		}
		return in.Raise(cls, "%s", e.Msg)
	}
	return err
}

func (in *Interp) floatOp(op syntax.BinOpKind, x, y float64) (Value, error) {
	var r float64
	var err error
	switch op {
	case syntax.Add:
		r = x + y
	case syntax.Sub:
		r = x - y
	case syntax.Mult:
		r = x * y
	case syntax.Div:
		r, err = pyformat.Div(x, y)
	case syntax.FloorDiv:
		r, err = pyformat.FloorDiv(x, y)
	case syntax.Mod:
		r, err = pyformat.Mod(x, y)
	case syntax.Pow:
		r, err = pyformat.FloatPow(x, y)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, in.pyErr(err)
	}
	return r, nil
}

// maxShift bounds a left shift's result (bits): past it CPython would
// spend the memory; here it is a MemoryError.
const maxShift = 1 << 26

func (in *Interp) intOp(op syntax.BinOpKind, a, b Value, x, y *big.Int) (Value, error) {
	if p, ok := a.(int64); ok {
		if q, ok := b.(int64); ok {
			switch op {
			case syntax.Add:
				if r := p + q; (r > p) == (q > 0) {
					return r, nil
				}
			case syntax.Sub:
				if r := p - q; (r < p) == (q > 0) {
					return r, nil
				}
			case syntax.Mult:
				if p > -(1<<31) && p < 1<<31 && q > -(1<<31) && q < 1<<31 {
					return p * q, nil
				}
			}
		}
	}
	if in.intTooBig(op, x, y) {
		return nil, in.Raise(MemoryErrorType, "")
	}
	r := new(big.Int)
	switch op {
	case syntax.Add:
		r.Add(x, y)
	case syntax.Sub:
		r.Sub(x, y)
	case syntax.Mult:
		r.Mul(x, y)
	case syntax.Div:
		f, err := pyformat.TrueDiv(x, y)
		if err != nil {
			return nil, in.pyErr(err)
		}
		return f, nil
	case syntax.FloorDiv:
		q, err := pyformat.IntFloorDiv(x, y)
		if err != nil {
			return nil, in.pyErr(err)
		}
		r = q
	case syntax.Mod:
		m, err := pyformat.IntMod(x, y)
		if err != nil {
			return nil, in.pyErr(err)
		}
		r = m
	case syntax.Pow:
		i, f, err := pyformat.IntPow(x, y)
		if err != nil {
			return nil, in.pyErr(err)
		}
		if i == nil {
			return f, nil
		}
		r = i
	case syntax.LShift, syntax.RShift:
		if y.Sign() < 0 {
			return nil, in.Raise(ValueErrorType, "negative shift count")
		}
		if op == syntax.RShift {
			if !y.IsInt64() || y.Int64() > int64(x.BitLen()) {
				if x.Sign() < 0 {
					return int64(-1), nil
				}
				return int64(0), nil
			}
			r.Rsh(x, uint(y.Int64()))
			break
		}
		if x.Sign() == 0 {
			return int64(0), nil
		}
		if !y.IsInt64() || y.Int64()+int64(x.BitLen()) > maxShift {
			return nil, in.Raise(MemoryErrorType, "")
		}
		r.Lsh(x, uint(y.Int64()))
	case syntax.BitAnd:
		r.And(x, y)
	case syntax.BitOr:
		r.Or(x, y)
	case syntax.BitXor:
		r.Xor(x, y)
	default:
		return nil, nil
	}
	if _, isBool := a.(bool); isBool && (op == syntax.BitAnd || op == syntax.BitOr || op == syntax.BitXor) {
		if _, isBool := b.(bool); isBool {
			return r.Sign() != 0, nil
		}
	}
	return normInt(r), nil
}

// intTooBig reports whether x op y would pass maxShift bits: the tool
// refuses it (MemoryError) rather than spend minutes and gigabytes.
func (in *Interp) intTooBig(op syntax.BinOpKind, x, y *big.Int) bool {
	switch op {
	case syntax.Mult:
		return x.BitLen()+y.BitLen() > maxShift
	case syntax.Pow:
		if y.Sign() <= 0 || x.CmpAbs(big.NewInt(1)) <= 0 {
			return false
		}
		return !y.IsInt64() || float64(x.BitLen())*float64(y.Int64()) > maxShift
	}
	return false
}

// unaryOp is -a, +a, ~a or not a.
func (in *Interp) unaryOp(op syntax.UnaryOpKind, a Value) (Value, error) {
	if op == syntax.Not {
		t, err := in.Truth(a)
		return !t, err
	}
	if u, ok := a.(Unknown); ok {
		return u, nil
	}
	if f, ok := a.(float64); ok {
		switch op {
		case syntax.USub:
			return -f, nil
		case syntax.UAdd:
			return f, nil
		}
	}
	if x, ok := bigInt(a); ok {
		switch op {
		case syntax.USub:
			return normInt(new(big.Int).Neg(x)), nil
		case syntax.UAdd:
			return normInt(x), nil
		case syntax.Invert:
			return normInt(new(big.Int).Not(x)), nil
		}
	}
	name := map[syntax.UnaryOpKind]string{syntax.USub: "__neg__", syntax.UAdd: "__pos__", syntax.Invert: "__invert__"}[op]
	if valueInstance(a) {
		if p := plain(a, name); p != a {
			return in.unaryOp(op, p)
		}
	}
	if f := TypeOf(a).lookup(name); f != nil {
		return in.callWithSelf(f, a, nil, nil)
	}
	return nil, in.typeError("bad operand type for unary %s: '%s'", op.Symbol(), TypeOf(a).Name)
}

// Truth is bool(v).
func (in *Interp) Truth(v Value) (bool, error) {
	t, err := in.truth(v)
	if in.assuming != nil && in.assuming == in.frame && Matches(err, UnknownValueErrorType) {
		in.Drop(err)
		in.assumed++
		return true, nil
	}
	return t, err
}

func (in *Interp) truth(v Value) (bool, error) {
	v = plain(v, "__bool__", "__len__")
	switch x := v.(type) {
	case NoneType:
		return false, nil
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	case *big.Int:
		return x.Sign() != 0, nil
	case float64:
		return x != 0, nil
	case string:
		return x != "", nil
	case Bytes:
		return x != "", nil
	case *List:
		return len(x.items) > 0, nil
	case *Tuple:
		return len(x.items) > 0, nil
	case *Dict:
		return x.n > 0, nil
	case *Set:
		return x.d.n > 0, nil
	case *Range:
		return x.Len() > 0, nil
	case Unknown:
		return false, in.unknownError(x)
	}
	cls := TypeOf(v)
	if f := cls.lookup("__bool__"); f != nil {
		r, err := in.callWithSelf(f, v, nil, nil)
		if err != nil {
			return false, err
		}
		b, ok := r.(bool)
		if !ok {
			in.Decref(r)
			return false, in.typeError("__bool__ should return bool, returned %s", TypeOf(r).Name)
		}
		return b, nil
	}
	if f := cls.lookup("__len__"); f != nil {
		r, err := in.callWithSelf(f, v, nil, nil)
		if err != nil {
			return false, err
		}
		t, err := in.Truth(r)
		in.Decref(r)
		return t, err
	}
	return true, nil
}

// UnknownValueErrorType is raised where a program needs a value the
// tool does not compute (a tensor element's value in an if).
var UnknownValueErrorType = NewExceptionClass("UnknownValueError", "gpumemrepl", ExceptionType)

func (in *Interp) unknownError(u Unknown) error {
	return in.Refuse(UnknownValueErrorType, "this tool does not compute tensor values, so %s has no value to test or compare", u.What)
}

// cmpDunders are each comparison's method and its reflection.
var cmpDunders = map[syntax.CmpOpKind][2]string{
	syntax.Eq: {"__eq__", "__eq__"}, syntax.NotEq: {"__ne__", "__ne__"},
	syntax.Lt: {"__lt__", "__gt__"}, syntax.LtE: {"__le__", "__ge__"},
	syntax.Gt: {"__gt__", "__lt__"}, syntax.GtE: {"__ge__", "__le__"},
}

// Compare is a op b (borrowed operands; an owned result).
func (in *Interp) Compare(op syntax.CmpOpKind, a, b Value) (Value, error) {
	switch op {
	case syntax.Is:
		return same(a, b), nil
	case syntax.IsNot:
		return !same(a, b), nil
	case syntax.In, syntax.NotIn:
		r, err := in.Contains(b, a)
		if op == syntax.NotIn {
			r = !r
		}
		return r, err
	}
	if u, ok := a.(Unknown); ok {
		return nil, in.unknownError(u)
	}
	if u, ok := b.(Unknown); ok {
		return nil, in.unknownError(u)
	}
	if valueInstance(a) || valueInstance(b) {
		if pa, pb := plain(a, cmpDunders[op][0]), plain(b, cmpDunders[op][1]); pa != a || pb != b {
			return in.Compare(op, pa, pb)
		}
	}
	if c, ok := builtinCmp(a, b); ok {
		switch op {
		case syntax.Eq:
			return c == 0, nil
		case syntax.NotEq:
			return c != 0, nil
		}
		if c == cmpUnordered {
			return false, nil
		}
		if c != cmpUnequal {
			switch op {
			case syntax.Lt:
				return c < 0, nil
			case syntax.LtE:
				return c <= 0, nil
			case syntax.Gt:
				return c > 0, nil
			case syntax.GtE:
				return c >= 0, nil
			}
		}
	}
	if la, ok := seqItems(a); ok {
		if lb, ok := seqItems(b); ok && isTupleT(a) == isTupleT(b) {
			return in.compareSeq(op, la, lb)
		}
	}
	if r, ok, err := in.compareMaps(op, a, b); ok {
		return r, err
	}
	names := cmpDunders[op]
	ta, tb := TypeOf(a), TypeOf(b)
	if f := ta.lookup(names[0]); f != nil && !isObjectCmp(f) {
		r, err := in.callWithSelf(f, a, []Value{b}, nil)
		if err != nil || r != NotImplemented {
			return r, err
		}
	}
	if f := tb.lookup(names[1]); f != nil && !isObjectCmp(f) {
		r, err := in.callWithSelf(f, b, []Value{a}, nil)
		if err != nil || r != NotImplemented {
			return r, err
		}
	}
	switch op {
	case syntax.Eq:
		return same(a, b), nil
	case syntax.NotEq:
		if f := ta.lookup("__eq__"); f != nil && !isObjectCmp(f) {
			r, err := in.callWithSelf(f, a, []Value{b}, nil)
			if err != nil || r != NotImplemented {
				if err != nil {
					return nil, err
				}
				t, err := in.Truth(r)
				in.Decref(r)
				return !t, err
			}
		}
		return !same(a, b), nil
	}
	return nil, in.typeError("'%s' not supported between instances of '%s' and '%s'", op.Symbol(), ta.Name, tb.Name)
}

func isTupleT(v Value) bool { _, ok := v.(*Tuple); return ok }

// enterCompare counts a container comparison against the recursion
// limit, as CPython does: a container holding itself compares to
// RecursionError, not without end.
func (in *Interp) enterCompare() error {
	if in.depth >= recursionLimit {
		return in.Raise(RecursionErrorType, "maximum recursion depth exceeded in comparison")
	}
	in.depth++
	return nil
}

// compareMaps compares two dicts (== and != : the same keys, each
// value equal) or two sets and frozensets (equality and the subset
// orders); ok false for other operands.
func (in *Interp) compareMaps(op syntax.CmpOpKind, a, b Value) (r Value, ok bool, err error) {
	if _, isDict := a.(*Dict); isDict {
		if err := in.enterCompare(); err != nil {
			return nil, true, err
		}
		defer func() { in.depth-- }()
	}
	if isSetView(a) && (isSetView(b) || setOperand(b) != nil) || isSetView(b) && setOperand(a) != nil {
		return in.compareViews(op, a, b)
	}
	var da, db *Dict
	sets := false
	switch x := a.(type) {
	case *Dict:
		y, isDict := b.(*Dict)
		if !isDict || op != syntax.Eq && op != syntax.NotEq {
			return nil, false, nil
		}
		da, db = x, y
	case *Set:
		y, isSet := b.(*Set)
		if !isSet {
			return nil, false, nil
		}
		da, db, sets = x.d, y.d, true
	default:
		return nil, false, nil
	}
	// within reports whether every key of x is in y (with an equal value,
	// for dicts)
	within := func(x, y *Dict) (bool, error) {
		for _, e := range x.entries {
			if e.del {
				continue
			}
			v, found, err := in.dictGet(y, e.key)
			if err != nil || !found {
				return false, err
			}
			if !sets {
				if eq, err := in.Equal(e.val, v); err != nil || !eq {
					return false, err
				}
			}
		}
		return true, nil
	}
	switch op {
	case syntax.Eq, syntax.NotEq:
		eq := da.n == db.n
		if eq {
			if eq, err = within(da, db); err != nil {
				return nil, true, err
			}
		}
		return eq == (op == syntax.Eq), true, nil
	case syntax.LtE, syntax.Lt:
		if op == syntax.Lt && da.n >= db.n || da.n > db.n {
			return false, true, nil
		}
		sub, err := within(da, db)
		return sub, true, err
	case syntax.GtE, syntax.Gt:
		if op == syntax.Gt && db.n >= da.n || db.n > da.n {
			return false, true, nil
		}
		sup, err := within(db, da)
		return sup, true, err
	}
	return nil, false, nil
}

func isObjectCmp(f Value) bool { return f == objectEq }

var objectEq *Builtin

func init() {
	objectEq = NewBuiltin("__eq__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.slotArgs("__eq__", args, kw, 1); err != nil {
			return nil, err
		}
		if same(self, args[0]) {
			return true, nil
		}
		return NotImplemented, nil
	})
	ObjectType.SetMethod(objectEq)
	// object.__hash__, found as an attribute (type(x).__hash__); hash()
	// and dict keys use keyOf directly
	ObjectType.SetMethod(NewBuiltin("__hash__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.slotArgs("__hash__", args, kw, 0); err != nil {
			return nil, err
		}
		k, err := in.keyOf(self)
		return k.i, err
	}))
}

const (
	cmpUnequal   = 2 // equal-comparable but not ordered (None vs None is 0)
	cmpUnordered = 3 // NaN: every ordering is false
)

// builtinCmp compares numbers, strings and bytes: -1, 0, 1, or
// cmpUnequal/cmpUnordered; false when they are not such values.
func builtinCmp(a, b Value) (int, bool) {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
		return 0, false
	case Bytes:
		if y, ok := b.(Bytes); ok {
			return strings.Compare(string(x), string(y)), true
		}
		return 0, false
	case NoneType:
		if _, ok := b.(NoneType); ok {
			return 0, true
		}
		return 0, false
	}
	_, af := a.(float64)
	_, bf := b.(float64)
	ai, aInt := bigInt(a)
	bi, bInt := bigInt(b)
	switch {
	case aInt && bInt:
		return ai.Cmp(bi), true
	case (af || aInt) && (bf || bInt):
		x, y := toFloat(a), toFloat(b)
		if math.IsNaN(x) || math.IsNaN(y) {
			return cmpUnordered, true
		}
		if aInt && !math.IsInf(y, 0) {
			return new(big.Float).SetInt(ai).Cmp(big.NewFloat(y)), true
		}
		if bInt && !math.IsInf(x, 0) {
			return big.NewFloat(x).Cmp(new(big.Float).SetInt(bi)), true
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func seqItems(v Value) ([]Value, bool) {
	switch s := v.(type) {
	case *List:
		return s.items, true
	case *Tuple:
		return s.items, true
	}
	return nil, false
}

// compareSeq compares lists or tuples item by item.
func (in *Interp) compareSeq(op syntax.CmpOpKind, a, b []Value) (Value, error) {
	if err := in.enterCompare(); err != nil {
		return nil, err
	}
	defer func() { in.depth-- }()
	for i := 0; i < len(a) && i < len(b); i++ {
		eq, err := in.Equal(a[i], b[i])
		if err != nil {
			return nil, err
		}
		if !eq {
			if op == syntax.Eq {
				return false, nil
			}
			if op == syntax.NotEq {
				return true, nil
			}
			return in.Compare(op, a[i], b[i])
		}
	}
	c := len(a) - len(b)
	switch op {
	case syntax.Eq:
		return c == 0, nil
	case syntax.NotEq:
		return c != 0, nil
	case syntax.Lt:
		return c < 0, nil
	case syntax.LtE:
		return c <= 0, nil
	case syntax.Gt:
		return c > 0, nil
	}
	return c >= 0, nil
}

// Equal is a == b as a truth value (identity first, as containers do).
func (in *Interp) Equal(a, b Value) (bool, error) {
	if same(a, b) {
		return true, nil
	}
	r, err := in.Compare(syntax.Eq, a, b)
	if err != nil {
		return false, err
	}
	t, err := in.Truth(r)
	in.Decref(r)
	return t, err
}

// same is a is b.
func same(a, b Value) bool {
	if oa, ok := a.(Object); ok {
		ob, ok := b.(Object)
		return ok && oa == ob
	}
	if _, ok := b.(Object); ok {
		return false
	}
	switch x := a.(type) {
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x == y
	case *Range:
		return a == b
	}
	return TypeOf(a) == TypeOf(b) && a == b
}

// Contains is v in container.
func (in *Interp) Contains(container, v Value) (bool, error) {
	container = plain(container, "__contains__")
	switch c := container.(type) {
	case *List, *Tuple:
		items, _ := seqItems(c)
		for _, x := range items {
			eq, err := in.Equal(x, v)
			if err != nil || eq {
				return eq, err
			}
		}
		return false, nil
	case *Dict:
		_, ok, err := in.dictGet(c, v)
		return ok, err
	case *Set:
		_, ok, err := in.dictGet(c.d, v)
		return ok, err
	case *dictView:
		if c.kind == viewKeys {
			_, ok, err := in.dictGet(c.d, v)
			return ok, err
		}
	case string:
		s, ok := asStr(v)
		if !ok {
			return false, in.typeError("'in <string>' requires string as left operand, not %s", TypeOf(v).Name)
		}
		return strings.Contains(c, s), nil
	case *Range:
		if i, ok := v.(int64); ok {
			if c.Step > 0 && (i < c.Start || i >= c.Stop) || c.Step < 0 && (i > c.Start || i <= c.Stop) {
				return false, nil
			}
			return (i-c.Start)%c.Step == 0, nil
		}
	}
	if f := TypeOf(container).lookup("__contains__"); f != nil {
		r, err := in.callWithSelf(f, container, []Value{v}, nil)
		if err != nil {
			return false, err
		}
		t, err := in.Truth(r)
		in.Decref(r)
		return t, err
	}
	it, err := in.Iter(container)
	if err != nil {
		return false, err
	}
	defer in.Decref(it)
	for {
		x, ok, err := in.Next(it)
		if err != nil || !ok {
			return false, err
		}
		eq, err := in.Equal(x, v)
		in.Decref(x)
		if err != nil || eq {
			return eq, err
		}
	}
}
