package torchpy

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// DTypeObj is a torch.dtype (torch.float32...): one object per dtype,
// never freed.
type DTypeObj struct {
	eval.Header
	D engine.DType
}

// DTypeType is torch.dtype; DeviceType is torch.device; SizeType is
// torch.Size.
var (
	DTypeType  = eval.NewClass("dtype", "torch")
	DeviceType = eval.NewClass("device", "torch")
	SizeType   = eval.NewClass("Size", "torch", eval.TupleType)
	dtypes     = map[string]*DTypeObj{}
)

// Type is torch.dtype.
func (d *DTypeObj) Type() *eval.Class { return DTypeType }

// Traverse visits nothing.
func (d *DTypeObj) Traverse(func(eval.Value)) {}

// Clear drops nothing.
func (d *DTypeObj) Clear(*eval.Interp) {}

func dtypeObj(d engine.DType) *DTypeObj {
	if o, ok := dtypes[d.Name]; ok {
		return o
	}
	o := &DTypeObj{D: d}
	eval.Immortal(o)
	dtypes[d.Name] = o
	return o
}

// DeviceObj is a torch.device.
type DeviceObj struct {
	eval.Header
	D engine.Device
	// indexed is set when the device was named with an index.
	indexed bool
}

// Type is torch.device.
func (d *DeviceObj) Type() *eval.Class { return DeviceType }

// Traverse visits nothing.
func (d *DeviceObj) Traverse(func(eval.Value)) {}

// Clear drops nothing.
func (d *DeviceObj) Clear(*eval.Interp) {}

func init() {
	DTypeType.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return "torch." + s.(*DTypeObj).D.Name, nil
	}))
	DTypeType.SetAttr("itemsize", eval.NewProperty(eval.NewBuiltin("itemsize", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return int64(s.(*DTypeObj).D.Size), nil
	}), nil))
	DTypeType.SetAttr("is_floating_point", eval.NewProperty(eval.NewBuiltin("is_floating_point", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return s.(*DTypeObj).D.IsFloatingPoint(), nil
	}), nil))
	DeviceType.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		d := s.(*DeviceObj)
		if !d.D.CUDA {
			return "device(type='" + d.D.String() + "')", nil
		}
		if !d.indexed {
			return "device(type='cuda')", nil
		}
		return fmt.Sprintf("device(type='cuda', index=%d)", d.D.Index), nil
	}))
	DeviceType.SetMethod(eval.NewBuiltin("__str__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		d := s.(*DeviceObj)
		if d.D.CUDA && !d.indexed {
			return "cuda", nil
		}
		return d.D.String(), nil
	}))
	DeviceType.SetAttr("type", eval.NewProperty(eval.NewBuiltin("type", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if d := s.(*DeviceObj).D; !d.CUDA {
			return d.String(), nil
		}
		return "cuda", nil
	}), nil))
	DeviceType.SetAttr("index", eval.NewProperty(eval.NewBuiltin("index", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		d := s.(*DeviceObj)
		if !d.indexed {
			return eval.None, nil
		}
		return int64(d.D.Index), nil
	}), nil))
	DeviceType.SetMethod(eval.NewBuiltin("__eq__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) != 1 {
			return eval.NotImplemented, nil
		}
		o, ok := args[0].(*DeviceObj)
		if !ok {
			return eval.NotImplemented, nil
		}
		d := s.(*DeviceObj)
		return d.D == o.D && d.indexed == o.indexed, nil
	}))
	SizeType.New = func(in *eval.Interp, _ *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) > 1 || len(kw) > 0 {
			return nil, in.Raise(eval.TypeErrorType, "Size() takes at most 1 argument")
		}
		var items []eval.Value
		if len(args) == 1 {
			err := in.ForEach(args[0], func(v eval.Value) error {
				n, ok := v.(int64)
				if !ok {
					return in.Raise(eval.TypeErrorType, "torch.Size() takes an iterable of 'int' (item %d is '%s')", len(items), eval.TypeOf(v).Name)
				}
				items = append(items, n)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		return in.NewTupleOf(SizeType, items), nil
	}
	SizeType.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		var parts []string
		for _, v := range s.(*eval.Tuple).Items() {
			parts = append(parts, in.ReprOf(v))
		}
		return "torch.Size([" + strings.Join(parts, ", ") + "])", nil
	}))
	// Size + tuple and tuple + Size are a Size, as PyTorch's Size adds
	// (its nb_add): shape arithmetic such as sample_shape + batch_shape
	sizeConcat := func(name string, reflected bool) {
		SizeType.SetMethod(eval.NewBuiltin(name, "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			if len(args) != 1 || len(kw) > 0 {
				return nil, in.Raise(eval.TypeErrorType, "Size.%s() takes exactly one argument", name)
			}
			o, ok := args[0].(*eval.Tuple)
			if !ok {
				return eval.NotImplemented, nil
			}
			first, second := s.(*eval.Tuple).Items(), o.Items()
			if reflected {
				first, second = second, first
			}
			items := append(append([]eval.Value{}, first...), second...)
			for _, v := range items {
				if _, ok := v.(int64); !ok {
					return eval.NotImplemented, nil
				}
			}
			return in.NewTupleOf(SizeType, items), nil
		}))
	}
	sizeConcat("__add__", false)
	sizeConcat("__radd__", true)
	SizeType.SetMethod(eval.NewBuiltin("numel", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		n := int64(1)
		for _, v := range s.(*eval.Tuple).Items() {
			n *= v.(int64)
		}
		return n, nil
	}))
}

// deviceObj is a tensor's .device.
func (b *Binding) deviceObj(d engine.Device) *DeviceObj {
	return eval.Track(b.in, &DeviceObj{D: d, indexed: d.CUDA})
}

// size is a torch.Size of shape.
func (b *Binding) size(shape []int64) *eval.Tuple {
	items := make([]eval.Value, len(shape))
	for i, d := range shape {
		items[i] = d
	}
	return b.in.NewTupleOf(SizeType, items)
}

// deviceArg reads a device argument: "cuda", "cuda:1", "cpu", an int, a
// torch.device. A CUDA device that is not there is PyTorch's
// AcceleratorError.
func (b *Binding) deviceArg(v eval.Value) (engine.Device, error) {
	d, err := b.parseDevice(v)
	if err == nil && d.CUDA && d.Index >= b.S.DeviceCount() {
		err = b.in.Raise(AcceleratorErrorType, "%s", invalidOrdinal)
	}
	return d, err
}

// parseDevice reads a device as torch.device does, whether or not the
// session has it.
func (b *Binding) parseDevice(v eval.Value) (engine.Device, error) {
	var d engine.Device
	switch x := v.(type) {
	case *DeviceObj:
		d = x.D
	case int64:
		d = engine.Device{CUDA: true, Index: int(x)}
	case string:
		name, idx, hasIdx := strings.Cut(x, ":")
		switch name {
		case "cpu":
			if hasIdx && idx != "0" {
				return d, b.in.Raise(eval.RuntimeErrorType, "Device index must be 0 for a CPU device, got %s", idx)
			}
		case "cuda":
			d.CUDA = true
			d.Index = b.S.CurrentDevice()
			if hasIdx {
				i, err := strconv.Atoi(idx)
				if err != nil || i < 0 {
					return d, b.in.Raise(eval.RuntimeErrorType, "Invalid device string: '%s'", x)
				}
				d.Index = i
			}
		case "meta":
			d = engine.MetaDevice
		default:
			return d, b.in.Raise(eval.RuntimeErrorType, "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: %s", x)
		}
	case nil, eval.NoneType:
		return engine.CPU, nil
	default:
		return d, b.in.Raise(eval.TypeErrorType, "expected a device, not %s", eval.TypeOf(v).Name)
	}
	if d.CUDA && d.Index < 0 {
		return d, b.in.Raise(eval.RuntimeErrorType, "Device index must not be negative")
	}
	return d, nil
}

// shapeArgs reads a shape given as *sizes or one list, tuple or
// torch.Size.
func (b *Binding) shapeArgs(fn string, args []eval.Value) ([]int64, error) {
	if len(args) == 1 {
		switch s := args[0].(type) {
		case *eval.List:
			return b.dims(fn, s.Items())
		case *eval.Tuple:
			return b.dims(fn, s.Items())
		}
	}
	return b.dims(fn, args)
}

// viewLike are the functions whose shape may hold -1 (infer it, or keep
// a dimension).
var viewLike = map[string]bool{"view": true, "reshape": true, "expand": true}

func (b *Binding) dims(fn string, vs []eval.Value) ([]int64, error) {
	out := make([]int64, len(vs))
	for i, v := range vs {
		n, ok := v.(int64)
		if !ok {
			if _, big := v.(*big.Int); big {
				return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument 'size' failed to unpack the object at pos %d with error \"Overflow when unpacking long long\"", fn, i+1)
			}
			return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument 'size' (position %d) must be tuple of ints, but found element of type %s at pos %d", fn, 1, eval.TypeOf(v).Name, i)
		}
		out[i] = n
	}
	if viewLike[fn] { // the engine checks a view's shape, as PyTorch's infer_size does
		return out, nil
	}
	for _, n := range out {
		if n < 0 {
			// PyTorch 2.11's words (testdata/pyrules/size_overflow.txt)
			return nil, b.in.Raise(eval.RuntimeErrorType, "%s: Dimension size must be non-negative.", fn)
		}
	}
	return out, nil
}
