package engine

import (
	"math"
	"slices"
)

// Tensor.to: PyTorch's _to_copy, and when it returns its input itself
// (testdata/pyrules/ops_to.py, returns_self.py).

// MemoryFormat is a memory_format= argument.
type MemoryFormat int

// The memory formats: torch.preserve_format (a dense input's layout
// kept), torch.contiguous_format, torch.channels_last (4-d: the
// channels innermost).
const (
	PreserveFormat MemoryFormat = iota
	ContiguousFormat
	ChannelsLast
)

// formatStrides are the strides of a tensor like x made in format f.
func formatStrides(x *Tensor, f MemoryFormat) ([]int64, error) {
	switch f {
	case ChannelsLast:
		if len(x.Shape) != 4 {
			return nil, Errorf(RuntimeError, "required rank 4 tensor to use channels_last format")
		}
		n := x.Shape
		c, h, w := max(n[1], 1), max(n[2], 1), max(n[3], 1)
		return []int64{c * h * w, 1, w * c, c}, nil
	case PreserveFormat:
		if st := x.Strides(); !x.expanded && dense(x.Shape, st) {
			return st, nil
		}
	}
	return denseStrides(x.Shape), nil
}

// sameLayout reports whether x and y lay their elements out in one
// order (a copy between them is one memcpy).
func sameLayout(x, y *Tensor) bool {
	return !x.expanded && !y.expanded && slices.Equal(x.Strides(), y.Strides())
}

// ToCopy is x.to(dev, dtype, non_blocking, copy, memory_format): x
// itself when it is on dev in dt and laid out as f asks (and copy is
// false), else PyTorch's _to_copy: a new tensor on dev in dt, laid out
// as f says; a copy between the host and the GPU that is not one
// memcpy makes GPU temporaries first (copyTemporaries). Autograd
// records ToCopyBackward0, whose backward makes the gradient in x's
// dtype on x's device.
func (s *Session) ToCopy(x *Tensor, dev Device, dt DType, nonBlocking, copyAll bool, f MemoryFormat) (*Tensor, error) {
	strides, err := formatStrides(x, f)
	if err != nil {
		return nil, err
	}
	if !copyAll && dev == x.Device() && dt.Name == x.DType.Name && (f == PreserveFormat || sameLayout(x, &Tensor{Shape: x.Shape, strides: strides})) {
		return x, nil
	}
	if err := checkSize(x.Shape, dt.Size); err != nil {
		return nil, err
	}
	y := &Tensor{Shape: x.Shape, DType: dt}
	if !contiguous(x.Shape, strides) {
		y.strides, y.strided = strides, true
	}
	st, err := s.newStorage(dev, y.Bytes(), false)
	if err != nil {
		return nil, err
	}
	y.st = st
	if err := s.copyTemporaries(x, y, nonBlocking); err != nil {
		s.dropTensor(y)
		return nil, err
	}
	if dt.Name == x.DType.Name && dev != x.Device() && sameLayout(x, y) {
		if err := s.copyBytes(st, x.st, x.offset*x.DType.Size, x.Bytes()); err != nil {
			s.dropTensor(y)
			return nil, err
		}
	}
	if nonBlocking && dev.CUDA {
		s.CopiedAsync(x, dev)
	}
	st.vals = castValues(x, y, dt)
	s.record("ToCopyBackward0", y, []*Tensor{x}, nil, toCopyBackward(x.DType, x.Device()))
	return y, nil
}

// copyTemporaries makes and frees what PyTorch's copy between the host
// and the GPU makes on the GPU when it is not one memcpy (another dtype
// or layout): to the host, a dense copy of a GPU source that is not
// contiguous, or under non_blocking the source converted on the GPU;
// to the GPU under non_blocking, the host's bytes land in a GPU tensor
// of the source's dtype, converted from there. The cases not recorded
// are refused.
func (s *Session) copyTemporaries(x, y *Tensor, nonBlocking bool) error {
	from, to := x.Device(), y.Device()
	if from == to || x.DType.Name == y.DType.Name && sameLayout(x, y) {
		return nil
	}
	var shape []int64
	var dt DType
	var on Device
	switch {
	case from.CUDA && to.CUDA:
		return NotModelledError("Tensor.to between two GPUs in another dtype or layout")
	case from.CUDA && nonBlocking:
		if !x.IsContiguous() {
			return NotModelledError("Tensor.to of a non-contiguous GPU tensor to the host with non_blocking=True")
		}
		if x.DType.Name == y.DType.Name {
			return nil
		}
		shape, dt, on = x.Shape, y.DType, from
	case from.CUDA:
		if x.IsContiguous() {
			return nil
		}
		shape, dt, on = x.Shape, x.DType, from
	case !y.IsContiguous():
		return NotModelledError("Tensor.to of a host tensor to the GPU in another dtype, not contiguous")
	case nonBlocking:
		shape, dt, on = y.Shape, x.DType, to
	default:
		return nil
	}
	t, err := s.alloc(shape, dt, on)
	if err != nil {
		return err
	}
	s.dropTensor(t)
	return nil
}

// toCopyBackward is ToCopyBackward0's backward: the gradient converted
// to the input's dtype, on the input's device.
func toCopyBackward(dt DType, dev Device) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		t, err := s.alloc(n.inputs[0].shape, dt, dev)
		return []*Tensor{t}, err
	}
}

// convertValues are known values converted to dtype dt as PyTorch
// converts them: integral dtypes truncate, bool is nonzero, float32
// rounds, float16 and bfloat16 round the float32 value (c10::Half and
// c10::BFloat16 are made from a float) to nearest even; nil (unknown)
// where an integral dtype would wrap.
func convertValues(vals knownValues, dt DType) knownValues {
	if vals == nil {
		return nil
	}
	out := make(knownValues, len(vals))
	for i, v := range vals {
		switch dt.Name {
		case "float64":
		case "float32":
			v = float64(float32(v))
		case "float16":
			v = roundToEven(float64(float32(v)), 10, -14, 65504)
		case "bfloat16":
			v = roundToEven(float64(float32(v)), 7, -126, math.MaxFloat32)
		case "bool":
			if v != 0 {
				v = 1
			}
		default: // integral: out of range wraps in PyTorch, not here
			if math.IsNaN(v) || math.Abs(v) >= math.Ldexp(1, int(8*dt.Size)-1) {
				return nil
			}
			v = math.Trunc(v)
		}
		out[i] = v
	}
	return out
}

// roundToEven is v rounded to nearest even in a binary format of
// mantissa bits after the point, normal exponents from minExp, and
// largest finite value maxFinite: past it, infinity.
func roundToEven(v float64, mantissa, minExp int, maxFinite float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	_, exp := math.Frexp(v) // |v| in [2^(exp-1), 2^exp)
	quantum := math.Ldexp(1, max(exp-1, minExp)-mantissa)
	r := math.RoundToEven(v/quantum) * quantum
	if math.Abs(r) > maxFinite {
		return math.Copysign(math.Inf(1), v)
	}
	return r
}

// memoryFormat is the memory_format=None of the conversions (as
// preserve_format).
var memoryFormat = Param{Name: "memory_format", Kind: MemoryFormatParam, Default: "None", KeywordOnly: true}

// conversions are the Tensor methods that are to(dtype): float(),
// half(), ...
var conversions = []struct{ name, dtype string }{
	{"bfloat16", "bfloat16"}, {"bool", "bool"}, {"double", "float64"}, {"float", "float32"},
	{"half", "float16"}, {"int", "int32"}, {"long", "int64"},
	{"byte", "uint8"}, {"char", "int8"}, {"short", "int16"},
}

func init() {
	// the census's to_sparse: refused, plainly
	declare(&OpDef{Name: "to_sparse", Method: true, Params: []Param{input, {Name: "sparse_dim", Kind: IntParam, Default: "None"}},
		Memory: "refused: the tool models dense (strided) tensors only, and a sparse copy's size depends on how many elements are nonzero",
		run: func(s *Session, a Args) (*Tensor, error) {
			return nil, Refusef(NotImplementedError, "Tensor.to_sparse is not modelled by gpumemrepl: it models dense (strided) tensors only, and a sparse copy's size (its indices and values) depends on how many elements are nonzero")
		}})
	declare(&OpDef{Name: "clone", Function: true, Method: true, Params: []Param{input, memoryFormat},
		Memory: "new tensor on the input's device, laid out as the input where that is dense (a permuted view), else contiguous; saves nothing; backward passes the gradient on",
		run: func(s *Session, a Args) (*Tensor, error) {
			if f, _ := a[1].(MemoryFormat); f != PreserveFormat {
				return nil, NotModelledError("Tensor.clone with a memory_format other than torch.preserve_format")
			}
			x := a.Tensor(0)
			c, err := s.Clone(x)
			if err == nil {
				s.record("CloneBackward0", c, []*Tensor{x}, nil, passGrad) // derivatives.yaml: self: grad
			}
			return c, err
		}})
	declare(&OpDef{Name: "cpu", Method: true, Params: []Param{input, memoryFormat},
		Memory: "itself when on the host already, else as to('cpu'): a new host tensor",
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			f, _ := a[1].(MemoryFormat)
			return s.ToCopy(x, CPU, x.DType, false, false, f)
		}})
	declare(&OpDef{Name: "cuda", Method: true,
		Params: []Param{input, {Name: "device", Kind: DeviceParam, Default: "None"}, {Name: "non_blocking", Kind: BoolParam, Default: "False"}, memoryFormat},
		Memory: "itself when on that GPU already (the current one unless given), else as to(device): a new tensor there",
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			dev := a.Device(1, Device{CUDA: true, Index: s.CurrentDevice()})
			f, _ := a[3].(MemoryFormat)
			y, err := s.ToCopy(x, dev, x.DType, false, false, f)
			if err == nil && a.Bool(2) {
				s.CopiedAsync(x, dev)
			}
			return y, err
		}})
	for _, c := range conversions {
		dt := DTypes[c.dtype]
		declare(&OpDef{Name: c.name, Method: true, Params: []Param{input, memoryFormat},
			Memory: "itself when " + c.dtype + " already, else as to(torch." + c.dtype + "): a new tensor",
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				f, _ := a[1].(MemoryFormat)
				return s.ToCopy(x, x.Device(), dt, false, false, f)
			}})
	}
	declare(&OpDef{Name: "to", Method: true,
		Params: []Param{input, {Name: "device", Kind: DeviceParam, Default: "None"}, {Name: "dtype", Kind: DTypeParam, Default: "None"},
			{Name: "non_blocking", Kind: BoolParam, Default: "False"}, {Name: "copy", Kind: BoolParam, Default: "False"},
			{Name: "memory_format", Kind: MemoryFormatParam, Default: "None", KeywordOnly: true}},
		Usage:  "Tensor.to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=torch.preserve_format), to(dtype, ...), to(other, ...)",
		Memory: "itself when already on that device in that dtype and format (and not copy=True), else a new tensor laid out as the input (preserve_format), with GPU temporaries for a host copy that converts; saves nothing; backward makes the gradient in the input's dtype and device",
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			f, _ := a[5].(MemoryFormat)
			return s.ToCopy(x, a.Device(1, x.Device()), a.DType(2, x.DType), a.Bool(3), a.Bool(4), f)
		}})
}

// Clone is t.clone(): a copy on t's device, laid out as t is when t is
// dense in another order (a permuted view: memory_format=preserve),
// else contiguous.
func (s *Session) Clone(t *Tensor) (*Tensor, error) {
	c, err := s.copyTo(t, t.Device())
	if err == nil && t.strided && dense(t.Shape, t.Strides()) {
		c.strides, c.strided = t.Strides(), true
	}
	return c, err
}
