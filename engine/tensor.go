package engine

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/gpumemrepl/gpumemrepl/allocator/host"
)

// DType is a tensor element type.
type DType struct {
	Name string // PyTorch's name, e.g. "float32"
	Size uint64 // bytes per element
}

// IsFloatingPoint reports whether d is a floating-point type
// (torch.dtype.is_floating_point).
func (d DType) IsFloatingPoint() bool { return isFloat(d) }

// DTypes are the element types a tensor can have, by name.
var DTypes = map[string]DType{
	"float32": {"float32", 4}, "float": {"float32", 4},
	"float16": {"float16", 2}, "half": {"float16", 2},
	"bfloat16": {"bfloat16", 2},
	"float64":  {"float64", 8}, "double": {"float64", 8},
	"int64": {"int64", 8}, "long": {"int64", 8},
	"int32": {"int32", 4}, "int": {"int32", 4},
	"int16": {"int16", 2}, "short": {"int16", 2},
	"int8": {"int8", 1}, "uint8": {"uint8", 1}, "bool": {"bool", 1},
	"complex64": {"complex64", 8}, "cfloat": {"complex64", 8},
	"complex128": {"complex128", 16}, "cdouble": {"complex128", 16},
}

// Float32 is the default dtype.
var Float32 = DTypes["float32"]

// boolDType is torch.bool, what comparisons make.
var boolDType = DTypes["bool"]

// Device names where a tensor lives: CPU, or CUDA device Index.
type Device struct {
	CUDA  bool
	Index int
	// Meta is the meta device: tensors with a shape and a dtype and no
	// memory anywhere (meta.go).
	Meta bool
}

// CPU is the host.
var CPU = Device{}

// MetaDevice is torch.device('meta').
var MetaDevice = Device{Meta: true}

func (d Device) String() string {
	switch {
	case d.Meta:
		return "meta"
	case !d.CUDA:
		return "cpu"
	}
	return fmt.Sprintf("cuda:%d", d.Index)
}

// storage is the memory behind one or more tensors.
type storage struct {
	device Device
	bytes  uint64
	ptr    uint64      // device address (CUDA)
	stream uint64      // the CUDA stream it was allocated on (CUDA)
	host   *hostBuf    // host memory (CPU)
	pinned *host.Block // its block of pinned host memory (a pinned CPU storage)
	// mapped marks a host storage that is a file's pages (torch.load
	// with mmap=True): no memory of the process's own.
	mapped bool
	// inference marks one made under torch.inference_mode: its tensors,
	// views too, are inference tensors.
	inference bool
	refs      int // tensors that use it
	saved     int // of refs, those of autograd's saved tensors
	// version counts the in-place writes to it (PyTorch's version
	// counter, which a tensor's views share).
	version int
	vals    knownValues
	// share, where vals are not known, is the fraction of its elements
	// known to be nonzero on average (a one-hot mask's 1/classes); 0
	// where not known. A nonzero of unknown values counts on it, an
	// estimate.
	share float64
	// zeros, where vals are not known, are the offsets of the elements
	// known to be zero (written so: WriteZeroInto), sorted; nil where
	// none is known.
	zeros []uint64
	// made is the index of its alloc event in its device's history;
	// role is what the engine made it for, savedBy the autograd node
	// that first saved it (holdings.go).
	made    int
	role    role
	savedBy string
}

// Tensor is one reference to a tensor (a TensorImpl, in PyTorch's
// terms): a shape and dtype over a storage.
type Tensor struct {
	Shape []int64
	DType DType
	st    *storage
	fn    *node     // the op that made it, when autograd recorded one (grad_fn)
	out   int       // which of fn's outputs it is (a split's pieces; 0 for one output)
	slot  *gradSlot // a leaf that requires grad: where its .grad is
	// expanded marks a gradient that is a broadcast view of a smaller
	// storage (sum's backward): ops that need dense input copy it first.
	expanded bool
	// strided marks a view whose elements are not laid out densely in
	// order (transposed, a slice with a step): contiguous() and reshape
	// copy it, and its values print as not known.
	strided bool
	// view marks a view of another tensor (a view op's output, in
	// forward or in backward): PyTorch's view keeps its base, and the
	// base holds the storage too, so autograd never adds a gradient into
	// it in place.
	view bool
	// sole marks a view that nothing but its holder refers to, though
	// other views share its storage (the weight gradients of a cuDNN
	// RNN, views of one buffer): AccumulateGrad keeps it as the .grad.
	sole   bool
	number bool // Scalar(): a Python number among an op's arguments (no storage)
	// num is a number's value when numKnown (ScalarOf); numFloat says it
	// was a Python float, numBool a Python bool.
	num                         float64
	numKnown, numFloat, numBool bool
	offset                      uint64 // a view's first element in its storage
	// strides are a view's (Strides); nil for a tensor laid out densely
	// in order.
	strides []int64
}

// tensorTypes are PyTorch's legacy type names by dtype.
var tensorTypes = map[string]string{"float32": "Float", "float16": "Half", "bfloat16": "BFloat16", "float64": "Double",
	"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}

// tensorType is t's legacy type name, as PyTorch's messages write it:
// torch.cuda.FloatTensor.
func tensorType(t *Tensor) string {
	prefix := "torch."
	if t.Device().CUDA {
		prefix = "torch.cuda."
	}
	return prefix + tensorTypes[t.DType.Name] + "Tensor"
}

// Numel is the number of elements.
func (t *Tensor) Numel() uint64 { return numel(t.Shape) }

func numel(shape []int64) uint64 {
	n := uint64(1)
	for _, d := range shape {
		n *= uint64(d)
	}
	return n
}

// Bytes is the size of the tensor's own elements.
func (t *Tensor) Bytes() uint64 { return t.Numel() * t.DType.Size }

// Device is where the tensor's storage lives.
func (t *Tensor) Device() Device { return t.st.device }

// StorageBytes is the size of the storage the tensor keeps alive.
func (t *Tensor) StorageBytes() uint64 { return t.st.bytes }

// checkSize is PyTorch's check of a new contiguous tensor's storage
// size (computeStorageNbytesContiguous): the element count times the
// element size must fit in an int64, else "Storage size calculation
// overflowed with sizes=[...]".
func checkSize(shape []int64, elem uint64) error {
	n, over := uint64(1), false
	for _, d := range shape {
		hi, lo := bits.Mul64(n, uint64(d))
		over = over || hi != 0
		n = lo
	}
	hi, lo := bits.Mul64(n, elem)
	if over || hi != 0 || lo > math.MaxInt64 {
		return Errorf(RuntimeError, "Storage size calculation overflowed with sizes=%s", dimList(shape))
	}
	return nil
}

// IsContiguous reports whether t's elements lie densely in order
// (Tensor.is_contiguous()).
func (t *Tensor) IsContiguous() bool { return !t.strided && !t.expanded }
