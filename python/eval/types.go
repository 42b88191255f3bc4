package eval

import (
	"math/big"
)

// The built-in types. Their namespaces are filled by the files that
// implement each type's methods.
var (
	ObjectType = bootObject()
	// TypeType is type, the class of every class.
	TypeType        = NewClass("type", "builtins")
	NoneTypeType    = NewClass("NoneType", "builtins")
	BoolType        = NewClass("bool", "builtins", IntType)
	IntType         = NewClass("int", "builtins")
	FloatType       = NewClass("float", "builtins")
	ComplexType     = NewClass("complex", "builtins")
	StrType         = NewClass("str", "builtins")
	BytesType       = NewClass("bytes", "builtins")
	ListType        = NewClass("list", "builtins")
	TupleType       = NewClass("tuple", "builtins")
	DictType        = NewClass("dict", "builtins")
	SetType         = NewClass("set", "builtins")
	FrozenSetType   = NewClass("frozenset", "builtins")
	RangeType       = NewClass("range", "builtins")
	SliceType       = NewClass("slice", "builtins")
	CellType        = NewClass("cell", "builtins")
	ModuleType      = NewClass("module", "builtins")
	PropertyType    = NewClass("property", "builtins")
	ClassMethodType = NewClass("classmethod", "builtins")
	// StaticMethodType is staticmethod.
	StaticMethodType  = NewClass("staticmethod", "builtins")
	MethodType        = NewClass("method", "builtins")
	FunctionType      = NewClass("function", "builtins")
	BuiltinType       = NewClass("builtin_function_or_method", "builtins")
	FrameType         = NewClass("frame", "builtins")
	TracebackType     = NewClass("traceback", "builtins")
	GeneratorType     = NewClass("generator", "builtins")
	IteratorType      = NewClass("iterator", "builtins")
	EllipsisClass     = NewClass("ellipsis", "builtins")
	NotImplementedCls = NewClass("NotImplementedType", "builtins")
	SuperType         = NewClass("super", "builtins")
	// UnknownType is the type of a number the tool does not compute
	// (a tensor's .item()): see Unknown.
	UnknownType = NewClass("float", "builtins")
)

func init() {
	for _, c := range []*Class{ObjectType, ListType, DictType, SetType, TupleType, IntType, FloatType, StrType, TypeType} {
		c.Subclassable = true
	}
}

// bootObject makes object, the root of every MRO.
func bootObject() *Class {
	c := &Class{Name: "object", Module: "builtins", Dict: newStaticDict(), Native: true}
	c.Header.refs = 1 << 30
	c.MRO = []*Class{c}
	return c
}

// TypeOf is v's Python type.
func TypeOf(v Value) *Class {
	switch v := v.(type) {
	case NoneType:
		return NoneTypeType
	case bool:
		return BoolType
	case int64, *big.Int:
		return IntType
	case float64:
		return FloatType
	case complex128:
		return ComplexType
	case string:
		return StrType
	case Bytes:
		return BytesType
	case *Range:
		return RangeType
	case EllipsisType:
		return EllipsisClass
	case NotImplementedType:
		return NotImplementedCls
	case Unknown:
		return UnknownType
	case Object:
		return v.Type()
	}
	return ObjectType
}

// Bytes is a bytes value.
type Bytes string

// Unknown is a number the tool does not compute: the value of a tensor
// element (.item(), float(t)). Arithmetic on it gives Unknown; printing
// it says so; a comparison or a truth test of it is an error, as a
// made-up value would be.
type Unknown struct {
	// What says where it came from ("loss.item()").
	What string
}
