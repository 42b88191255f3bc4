package engine

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The op table: every tensor op the engine models is one OpDef, which
// says how PyTorch names and calls it (torch function, Tensor method,
// in-place variant, operator methods, the signature with its defaults)
// and what it does with memory (a one-line rule for help, and run, the
// rule itself: what it allocates, what autograd saves, what backward
// makes). The front end registers torch functions and Tensor methods by
// walking Ops, binds arguments to Params, and calls Run; help and
// completion read the same entries. Adding an op is one entry here (its
// run usually one of the family helpers: unary, binaryOp, ...), a rule
// script recorded on the GPU machine (testdata/pyrules/ops_*.py), and its
// test.

// ParamKind is what a parameter of an op takes.
type ParamKind int

// The kinds of parameter.
const (
	TensorParam         ParamKind = iota // a tensor
	OperandParam                         // a tensor or a Python number (Scalar())
	NumberParam                          // a Python number
	IntParam                             // an int
	DimParam                             // a dimension of the op's first tensor, negative ones from the end
	BoolParam                            // a bool
	DimsParam                            // dimensions: ints, or one sequence of them (*dims when last and required)
	TensorsParam                         // a sequence of tensors ([]*Tensor)
	DTypeParam                           // a torch.dtype (DType)
	DeviceParam                          // a device (Device)
	StringParam                          // a str (string), its default quoted: "'mean'"
	DataParam                            // nested sequences of numbers (Data)
	PaddingParam                         // a convolution's padding: ints as DimsParam, or a str ('same', 'valid')
	MemoryFormatParam                    // a torch.memory_format (MemoryFormat)
	NumberOrStringParam                  // a number (as NumberParam) or a str (string): a norm's p, 2 or 'fro'
	GeneratorParam                       // a torch.Generator: its device (Device)
)

// Data is a DataParam's value: the nested sequences' shape, their
// numbers in order, and the dtype their kind infers (bool, int64,
// float32).
type Data struct {
	Shape  []int64
	Values []float64
	DType  DType
}

// Param is one parameter of an op's signature.
type Param struct {
	Name string
	Kind ParamKind
	// Default is PyTorch's default as its signature writes it ("1",
	// "False", "None"); "" for a required parameter.
	Default string
	// KeywordOnly is a parameter after * in the signature.
	KeywordOnly bool
}

// Dunder is an operator method of Tensor that runs an op: __add__, or
// __radd__ (Reflected: the tensor is the right operand).
type Dunder struct {
	Name      string
	Reflected bool
}

// OpDef is one entry of the op table.
type OpDef struct {
	// Name is the op's name: torch.Name when Function, Tensor.Name when
	// Method.
	Name     string
	Function bool
	Method   bool
	// Functional is torch.nn.functional.Name.
	Functional bool
	// InPlace is the in-place Tensor method ("add_"), "" when it has none
	// that is modelled; InPlaceDunders are its operators ("__iadd__").
	InPlace        string
	InPlaceDunders []string
	Dunders        []Dunder
	// Params is PyTorch's signature, the input (self) first.
	Params []Param
	// Usage, when set, is how help writes the call (an overloaded
	// signature) instead of Signature's.
	Usage string
	// Memory is the op's memory rule in a few words, for help.
	Memory string
	// ReturnType, for an op whose tuple is a named one, is its name in
	// torch.return_types ("max": values, indices).
	ReturnType string
	// Detached is an op whose output shares its input's storage without
	// being a view of it (detach: its _base is None).
	Detached bool
	// run runs the op: its output, a new reference, or a.Tensor(0)
	// itself (no new reference) where the op returns its input, as
	// Tensor.to may.
	run func(s *Session, a Args) (*Tensor, error)
	// runTuple, for an op that may return a tuple of tensors, is its
	// run: the tensors, and whether they are a tuple (else one tensor).
	runTuple func(s *Session, a Args) ([]*Tensor, bool, error)
	// inPlace runs the in-place variant on a.Tensor(0).
	inPlace func(s *Session, a Args) error
}

// Args are an op's arguments bound to its Params, one value each, in
// order: a *Tensor (Scalar() for a number given for an OperandParam),
// float64, int64, bool, []int64 (DimsParam), []*Tensor (TensorsParam),
// DType, Device, string, Data or MemoryFormat; nil for None.
type Args []any

// Tensor is argument i as a tensor.
func (a Args) Tensor(i int) *Tensor {
	t, _ := a[i].(*Tensor)
	return t
}

// Int is argument i as an int (a dimension already counted from 0).
func (a Args) Int(i int) int64 {
	n, _ := a[i].(int64)
	return n
}

// TensorList is argument i as tensors.
func (a Args) TensorList(i int) []*Tensor {
	ts, _ := a[i].([]*Tensor)
	return ts
}

// Ints is argument i as ints (nil for None; one int, as the engine's own
// callers pass a dimension, is a list of one).
func (a Args) Ints(i int) []int64 {
	if n, ok := a[i].(int64); ok {
		return []int64{n}
	}
	n, _ := a[i].([]int64)
	return n
}

// DType is argument i as a dtype, or def when it is None.
func (a Args) DType(i int, def DType) DType {
	if d, ok := a[i].(DType); ok {
		return d
	}
	return def
}

// Device is argument i as a device, or def when it is None.
func (a Args) Device(i int, def Device) Device {
	if d, ok := a[i].(Device); ok {
		return d
	}
	return def
}

// String is argument i as a str ("" for None).
func (a Args) String(i int) string {
	v, _ := a[i].(string)
	return v
}

// Data is argument i as nested numbers.
func (a Args) Data(i int) Data {
	d, _ := a[i].(Data)
	return d
}

// Bool is argument i as a bool.
func (a Args) Bool(i int) bool {
	b, _ := a[i].(bool)
	return b
}

// Number is argument i as a float.
func (a Args) Number(i int) float64 {
	switch v := a[i].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

// Ops are the ops the engine models, by name.
var Ops = map[string]*OpDef{}

// declare adds entries to the table. A name declared twice is a
// mistake in the table itself, found as the program starts.
func declare(defs ...*OpDef) {
	for _, d := range defs {
		if Ops[d.Name] != nil {
			panic("engine: op " + d.Name + " declared twice")
		}
		Ops[d.Name] = d
	}
}

// OpList is the table's entries sorted by name, the order help and the
// golden list (testdata/ops.golden) give them: an order a reader can
// search, and one that moving an entry between files leaves alone (the
// entries are declared in init functions, run in file order).
func OpList() []*OpDef {
	return slices.SortedFunc(maps.Values(Ops), func(a, b *OpDef) int { return strings.Compare(a.Name, b.Name) })
}

// Signature is the op as PyTorch's documentation writes it, e.g.
// "torch.add(input, other, *, alpha=1)".
func (d *OpDef) Signature() string {
	if d.Usage != "" {
		return d.Usage
	}
	var parts []string
	star := false
	for _, p := range d.Params {
		if p.KeywordOnly && !star {
			parts, star = append(parts, "*"), true
		}
		if p.Default != "" {
			parts = append(parts, p.Name+"="+p.Default)
		} else {
			parts = append(parts, p.Name)
		}
	}
	name := "Tensor." + d.Name
	switch {
	case d.Function:
		name = "torch." + d.Name
	case d.Functional && !d.Method:
		name = "F." + d.Name
	case !d.Method:
		name = "Tensor." + d.InPlace
		parts = parts[1:] // the tensor written is self
	default:
		parts = parts[1:] // a method's input is self
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// Names are every Python name the op answers to: torch.Name,
// Tensor.Name, its in-place method and its operators.
func (d *OpDef) Names() []string {
	var ns []string
	if d.Function {
		ns = append(ns, "torch."+d.Name)
	}
	if d.Method {
		ns = append(ns, "Tensor."+d.Name)
	}
	if d.Functional {
		ns = append(ns, "F."+d.Name)
	}
	if d.InPlace != "" {
		ns = append(ns, "Tensor."+d.InPlace)
	}
	for _, u := range d.Dunders {
		ns = append(ns, u.Name)
	}
	return append(ns, d.InPlaceDunders...)
}

// DefaultValue is parameter p's default as a value of Args (nil for None).
func (p Param) DefaultValue() any {
	switch p.Default {
	case "", "None":
		return nil
	case "True", "False":
		return p.Default == "True"
	case "torch.preserve_format", "torch.contiguous_format", "torch.channels_last":
		return map[string]MemoryFormat{"torch.preserve_format": PreserveFormat, "torch.contiguous_format": ContiguousFormat, "torch.channels_last": ChannelsLast}[p.Default]
	}
	if q, ok := strings.CutPrefix(p.Default, "'"); ok {
		return strings.TrimSuffix(q, "'")
	}
	if n, err := strconv.ParseInt(p.Default, 10, 64); err == nil {
		return n
	}
	f, _ := strconv.ParseFloat(p.Default, 64)
	return f
}

// Run runs op d on a, whose values fit d's Params (the front end's
// binding checks them): its output, a new reference, or a.Tensor(0)
// itself where the op returns its input (Tensor.to). Under
// torch.autocast, d's arguments are cast first (autocast.go).
func (s *Session) Run(d *OpDef, a Args) (*Tensor, error) {
	if g := s.forcedGeneral(d); g != nil {
		d = g
	}
	ts, err := s.autocastRun(d.Name, a, func(a Args) ([]*Tensor, error) {
		t, err := d.run(s, a)
		return []*Tensor{t}, err
	})
	if err = s.hookFailed(ts, a, err); err != nil {
		return nil, err
	}
	s.opRan(d, a, ts, false)
	return ts[0], nil
}

// hookFailed is an op's error, or the error a saved-tensor pack hook
// raised while it ran, which fails the op: its outputs (not its input
// itself, returned) are let go.
func (s *Session) hookFailed(outs []*Tensor, a Args, err error) error {
	herr := s.TakeHookError()
	if err != nil || herr == nil {
		return err
	}
	for _, t := range outs {
		if t != nil && (len(a) == 0 || t != a.Tensor(0)) {
			s.dropTensor(t)
		}
	}
	return herr
}

// Tuple reports whether d may return a tuple of tensors (RunTuple).
func (d *OpDef) Tuple() bool { return d.runTuple != nil }

// RunTuple runs an op that may return a tuple of tensors: new
// references, and whether they are a tuple (else one tensor).
func (s *Session) RunTuple(d *OpDef, a Args) (outs []*Tensor, tuple bool, err error) {
	outs, err = s.autocastRun(d.Name, a, func(a Args) (ts []*Tensor, err error) {
		ts, tuple, err = d.runTuple(s, a)
		return ts, err
	})
	if err = s.hookFailed(outs, a, err); err != nil {
		return nil, false, err
	}
	s.opRan(d, a, outs, false)
	return outs, tuple, nil
}

// RunInPlace runs d's in-place variant on a.Tensor(0), which it writes.
func (s *Session) RunInPlace(d *OpDef, a Args) error {
	if d.inPlace == nil {
		return NotModelledError("Tensor." + d.Name + "_")
	}
	if err := s.onView("Tensor."+d.Name+"_", a); err != nil {
		return err
	}
	if err := s.hookFailed(nil, a, d.inPlace(s, a)); err != nil {
		return err
	}
	s.opRan(d, a, nil, true)
	return nil
}

// checkNumbers refuses a Python number where the op needs a tensor.
func (s *Session) checkNumbers(d *OpDef, a Args) error {
	for i, p := range d.Params {
		if t := a.Tensor(i); t != nil && t.number && p.Kind != OperandParam {
			return Errorf(TypeError, "%s(): argument '%s' must be Tensor, not a number", d.Name, p.Name)
		}
	}
	return nil
}

// Op runs the op of the table named name on tensors (Scalar() for a
// number), its other parameters at their defaults.
func (s *Session) Op(name string, tensors ...*Tensor) (*Tensor, error) {
	d, ok := Ops[name]
	if !ok {
		return nil, fmt.Errorf("unknown operation %q", name)
	}
	if len(tensors) > len(d.Params) {
		return nil, Errorf(TypeError, "%s() takes at most %d arguments (%d given)", name, len(d.Params), len(tensors))
	}
	a := make(Args, len(d.Params))
	for i, p := range d.Params {
		if i < len(tensors) {
			a[i] = tensors[i]
		} else {
			a[i] = p.DefaultValue()
		}
	}
	if err := s.checkNumbers(d, a); err != nil {
		return nil, err
	}
	if d.Tuple() {
		ts, _, err := s.RunTuple(d, a)
		if err != nil {
			return nil, err
		}
		for _, t := range ts[1:] {
			s.dropTensor(t)
		}
		return ts[0], nil
	}
	return s.Run(d, a)
}

// NotModelled are names of PyTorch's the tool knows and does not model:
// calling one is NotImplementedError saying so.
var NotModelled = []string{
	"torch.save", "torch.load",
	"torch.compile", "torch.cdist",
}

// NotModelledError is the error of a PyTorch name the tool does not
// model (torch.X or Tensor.X).
func NotModelledError(name string) error {
	return Refusef(NotImplementedError, "%s is not modelled by gpumemrepl", name)
}

// input is the first parameter of nearly every op.
var input = Param{Name: "input", Kind: TensorParam}

// optTensor is a tensor parameter that may be None.
func optTensor(name string) Param { return Param{Name: name, Kind: TensorParam, Default: "None"} }

// boolParam, numberParam and intsParam are a bool, a number and
// dimensions with the default def ("" for none).
func boolParam(name, def string) Param   { return Param{Name: name, Kind: BoolParam, Default: def} }
func numberParam(name, def string) Param { return Param{Name: name, Kind: NumberParam, Default: def} }
func intsParam(name, def string) Param   { return Param{Name: name, Kind: DimsParam, Default: def} }

// other and alpha are the binary ops' other operand and alpha=1.
var (
	other = Param{Name: "other", Kind: OperandParam}
	alpha = Param{Name: "alpha", Kind: NumberParam, Default: "1", KeywordOnly: true}
	// keepdim is a reduction's keepdim=False.
	keepdim = Param{Name: "keepdim", Kind: BoolParam, Default: "False"}
)

// functional makes d a function of torch.nn.functional only.
func functional(d *OpDef) *OpDef {
	d.Function, d.Method, d.InPlace, d.Functional = false, false, "", true
	return d
}

// operators are the Dunders of a binary op: __name__ and __rname__.
func operators(name string) []Dunder {
	return []Dunder{{Name: "__" + name + "__"}, {Name: "__r" + name + "__", Reflected: true}}
}
