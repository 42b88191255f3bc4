package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// defaults declares torch.set_default_dtype, get_default_dtype,
// set_default_device, get_default_device and set_default_tensor_type; torch.device blocks are
// the device's __enter__ and __exit__ (testdata/pyrules/default_device.py).
func (b *Binding) defaults(m *eval.ModuleObj) {
	b.fn(m, "set_default_dtype", "set_default_dtype(d): the dtype of floating tensors that factories and modules make when not given dtype=", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("set_default_dtype", args, kw, 1, "d")
		if err != nil {
			return nil, err
		}
		d, ok := a[0].(*DTypeObj)
		if !ok {
			return nil, in.Raise(eval.TypeErrorType, "set_default_dtype(): argument 'd' must be torch.dtype, not %s", in.TypeName(a[0]))
		}
		if err := b.S.SetDefaultDType(d.D); err != nil {
			return nil, b.pyErr(err)
		}
		return eval.None, nil
	})
	b.fn(m, "get_default_dtype", "get_default_dtype()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if _, err := in.ArgSpec("get_default_dtype", args, kw, 0); err != nil {
			return nil, err
		}
		return dtypeObj(b.S.DefaultDType()), nil
	})
	b.fn(m, "set_default_device", "set_default_device(device): where factories and modules make tensors when not given device= (None: the host)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("set_default_device", args, kw, 1, "device")
		if err != nil {
			return nil, err
		}
		d := engine.CPU
		if a[0] != eval.None {
			if d, err = b.parseDevice(a[0]); err != nil {
				return nil, err
			}
		}
		b.S.SetDefaultDevice(d)
		return eval.None, nil
	})
	// set_default_tensor_type(t): a legacy type (torch.cuda.FloatTensor,
	// or its name) sets the default dtype and, for a CUDA type, makes
	// factories make CUDA tensors, as the default device does; PyTorch
	// warns once that it is deprecated
	warned := false
	b.fn(m, "set_default_tensor_type", "set_default_tensor_type(t): the default dtype from a legacy type, and a CUDA one's device", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("set_default_tensor_type", args, kw, 1, "t")
		if err != nil {
			return nil, err
		}
		var lt legacyType
		ok := false
		switch t := a[0].(type) {
		case string:
			lt.dt, lt.cuda, ok = engine.LegacyType(t)
			if !ok {
				return nil, in.Raise(eval.TypeErrorType, "invalid type: '%s'", t)
			}
		case *eval.Class:
			lt, ok = legacyTypes[t]
		}
		if !ok {
			return nil, in.Raise(eval.TypeErrorType, "invalid type object: only floating-point types are supported as the default type")
		}
		if !warned {
			warned = true
			if err := in.Warn(eval.UserWarningType, "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered internally at /pytorch/torch/csrc/tensor/python_tensor.cpp:434.)", 1); err != nil {
				return nil, err
			}
		}
		if !lt.dt.IsFloatingPoint() {
			return nil, in.Raise(eval.TypeErrorType, "only floating-point types are supported as the default type")
		}
		if err := b.S.SetDefaultDType(lt.dt); err != nil {
			return nil, b.pyErr(err)
		}
		d := engine.CPU
		if lt.cuda {
			d = engine.Device{CUDA: true, Index: b.S.CurrentDevice()}
		}
		b.S.SetDefaultDevice(d)
		return eval.None, nil
	})
	b.fn(m, "get_default_device", "get_default_device()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if _, err := in.ArgSpec("get_default_device", args, kw, 0); err != nil {
			return nil, err
		}
		return b.deviceObj(b.S.DefaultDevice()), nil
	})
}

func init() {
	DeviceType.SetMethod(eval.NewBuiltin("__enter__", "with torch.device(...): the default device inside the block", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		b := bindingOf(in)
		b.deviceBlocks = append(b.deviceBlocks, b.S.SetDefaultDevice(s.(*DeviceObj).D))
		eval.Incref(s)
		return s, nil
	}))
	DeviceType.SetMethod(eval.NewBuiltin("__exit__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		b := bindingOf(in)
		if n := len(b.deviceBlocks); n > 0 {
			b.S.SetDefaultDevice(b.deviceBlocks[n-1])
			b.deviceBlocks = b.deviceBlocks[:n-1]
		}
		return false, nil
	}))
}
