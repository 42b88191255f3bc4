package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// The legacy tensor types, torch.FloatTensor and torch.cuda.HalfTensor
// and the others of engine.LegacyBase, and torch.Tensor(...), which is
// torch.FloatTensor's constructor (testdata/pyrules/ops_legacy.py):
// called with sizes, an empty tensor of that dtype on the CPU or the
// current GPU; with nested sequences, those values; with nothing, a
// tensor of no elements. isinstance(t, T) checks t's dtype and device,
// and t.type(T) converts t as t.to(device, dtype) does.

// legacyWarning is what the first torch.cuda.*Tensor constructor of a
// process warns.
const legacyWarning = "The torch.cuda.*DtypeTensor constructors are no longer recommended. It's best to use methods such as torch.tensor(data, dtype=*, device='cuda') to create tensors. (Triggered internally at /pytorch/torch/csrc/tensor/python_tensor.cpp:78.)"

// legacyType is the dtype and device kind of a legacy type class.
type legacyType struct {
	dt   engine.DType
	cuda bool
}

// legacyTypes are the legacy type classes, each declared once.
var legacyTypes = map[*eval.Class]legacyType{}

// legacyClasses are the classes of torch (cuda false) or torch.cuda.
func legacyClasses(cuda bool) map[string]*eval.Class {
	module := "torch"
	if cuda {
		module = "torch.cuda"
	}
	out := map[string]*eval.Class{}
	for _, dt := range engine.DTypes {
		base := engine.LegacyBase(dt)
		if base == "" {
			continue
		}
		cls := eval.NewClass(base+"Tensor", module)
		cls.SetAttr("dtype", dtypeObj(dt))
		cls.SetAttr("is_cuda", cuda)
		cls.InstanceCheck = func(v eval.Value) bool {
			t, ok := v.(*Tensor)
			return ok && t.T.DType.Name == dt.Name && t.T.Device().CUDA == cuda
		}
		cls.New = func(in *eval.Interp, _ *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return bindingOf(in).legacyNew(dt, cuda, args, kw)
		}
		legacyTypes[cls] = legacyType{dt, cuda}
		out[cls.Name] = cls
	}
	return out
}

var (
	hostLegacyTypes = legacyClasses(false)
	cudaLegacyTypes = legacyClasses(true)
)

func init() {
	TensorType.New = func(in *eval.Interp, _ *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return bindingOf(in).legacyNew(engine.Float32, false, args, kw)
	}
}

// declareLegacyTypes sets the legacy type classes of torch (cuda false)
// or torch.cuda in m.
func (b *Binding) declareLegacyTypes(m *eval.ModuleObj, cuda bool) {
	classes := hostLegacyTypes
	if cuda {
		classes = cudaLegacyTypes
	}
	for name, cls := range classes {
		m.Set(b.in, name, cls)
	}
}

// legacyNew is a legacy constructor: T(*sizes), T(sequence), T(size),
// T(), with device= of T's own kind.
func (b *Binding) legacyNew(dt engine.DType, cuda bool, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	dev := engine.CPU
	if cuda {
		dev = engine.Device{CUDA: true, Index: b.S.CurrentDevice()}
	}
	for _, k := range kw {
		if k.Name != "device" {
			return nil, b.in.Raise(eval.TypeErrorType, "new() got an unexpected keyword argument '%s'", k.Name)
		}
		d, err := b.deviceArg(k.Value)
		if err != nil {
			return nil, err
		}
		if d.CUDA != cuda {
			return nil, b.in.Raise(eval.RuntimeErrorType, "legacy constructor expects device type: %s but device type: %s was passed", deviceKind(cuda), deviceKind(d.CUDA))
		}
		dev = d
	}
	if cuda && !b.legacyWarned {
		b.legacyWarned = true
		if err := b.in.Warn(eval.UserWarningType, legacyWarning, 1); err != nil {
			return nil, err
		}
	}
	sp := engine.TensorSpec{Op: "empty", Shape: []int64{0}, DType: dt, Device: dev}
	if len(args) == 1 {
		switch x := args[0].(type) {
		case *eval.Tuple:
			if x.Type() == SizeType {
				return b.legacyEmpty(sp, x.Items())
			}
			return b.legacyData(sp, x)
		case *eval.List:
			return b.legacyData(sp, x)
		case int64:
		default:
			return nil, b.in.Raise(eval.TypeErrorType, "new(): invalid data type '%s'", eval.TypeOf(x).Name)
		}
	}
	return b.legacyEmpty(sp, args)
}

// legacyEmpty is a legacy constructor of sizes: an empty tensor.
func (b *Binding) legacyEmpty(sp engine.TensorSpec, sizes []eval.Value) (eval.Value, error) {
	if len(sizes) > 0 {
		shape, err := b.dims("new", sizes)
		if err != nil {
			return nil, err
		}
		sp.Shape = shape
	}
	return b.newTensor(sp)
}

// legacyData is a legacy constructor of nested sequences: their values.
func (b *Binding) legacyData(sp engine.TensorSpec, v eval.Value) (eval.Value, error) {
	shape, vals, _, err := b.data(v)
	if err != nil {
		return nil, err
	}
	sp.Op, sp.Shape, sp.Values = "tensor", shape, vals
	return b.newTensor(sp)
}

// newTensor makes the tensor of a factory's spec.
func (b *Binding) newTensor(sp engine.TensorSpec) (eval.Value, error) {
	if err := b.cudaStarts(sp.Device); err != nil {
		return nil, err
	}
	t, err := b.S.NewTensor(sp)
	if err != nil {
		return nil, b.pyErr(err)
	}
	return b.wrap(t), nil
}

// deviceKind is "cuda" or "cpu".
func deviceKind(cuda bool) string {
	if cuda {
		return "cuda"
	}
	return "cpu"
}
