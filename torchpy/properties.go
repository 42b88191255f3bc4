package torchpy

import (
	"errors"
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// DevicePropertiesType is torch.cuda.get_device_properties' result
// class, torch._C._CudaDeviceProperties.
var DevicePropertiesType = eval.NewClass("_CudaDeviceProperties", "torch._C")

// DeviceProperties is a GPU's torch.cuda.get_device_properties(i).
type DeviceProperties struct {
	eval.Header
	P engine.DeviceProperties
}

// Type is torch._C._CudaDeviceProperties.
func (d *DeviceProperties) Type() *eval.Class { return DevicePropertiesType }

// Traverse visits nothing.
func (d *DeviceProperties) Traverse(func(eval.Value)) {}

// Clear drops nothing.
func (d *DeviceProperties) Clear(*eval.Interp) {}

func init() {
	fields := map[string]func(p engine.DeviceProperties) eval.Value{
		"name":                  func(p engine.DeviceProperties) eval.Value { return p.Name },
		"total_memory":          func(p engine.DeviceProperties) eval.Value { return int64(p.TotalMemory) },
		"major":                 func(p engine.DeviceProperties) eval.Value { return int64(p.Major) },
		"minor":                 func(p engine.DeviceProperties) eval.Value { return int64(p.Minor) },
		"multi_processor_count": func(p engine.DeviceProperties) eval.Value { return int64(p.MultiProcessorCount) },
	}
	for name, get := range fields {
		DevicePropertiesType.SetAttr(name, eval.NewProperty(eval.NewBuiltin(name, "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return get(s.(*DeviceProperties).P), nil
		}), nil))
	}
	// PyTorch's repr also gives the uuid, the PCI ids and the L2 cache,
	// which a simulated GPU does not have: the repr stops before them.
	DevicePropertiesType.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		p := s.(*DeviceProperties).P
		return fmt.Sprintf("_CudaDeviceProperties(name='%s', major=%d, minor=%d, total_memory=%dMB, multi_processor_count=%d)", p.Name, p.Major, p.Minor, p.TotalMemory>>20, p.MultiProcessorCount), nil
	}))
}

// deviceInfo declares torch.cuda's get_device_properties,
// get_device_capability and mem_get_info in m.
func (b *Binding) deviceInfo(m *eval.ModuleObj) {
	b.fn(m, "get_device_properties", "get_device_properties(device=None): name, total_memory, major, minor, multi_processor_count", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndexFor(args, kw, propertiesIndex)
		if err != nil {
			return nil, err
		}
		return eval.Track(in, &DeviceProperties{P: b.S.Properties(i)}), nil
	})
	b.fn(m, "get_device_capability", "get_device_capability(device=None): (major, minor)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndexFor(args, kw, propertiesIndex)
		if err != nil {
			return nil, err
		}
		p := b.S.Properties(i)
		return in.NewTuple([]eval.Value{int64(p.Major), int64(p.Minor)}), nil
	})
	b.fn(m, "is_bf16_supported", "is_bf16_supported(including_emulation=True)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("is_bf16_supported", args, kw, 0, "including_emulation")
		if err != nil {
			return nil, err
		}
		if b.S.DeviceCount() == 0 {
			return false, nil
		}
		emulated, err := b.boolArg(a[0], true)
		if err != nil {
			return nil, err
		}
		// PyTorch: native from compute capability 8.0; below it, emulated
		// (a bf16 tensor can be made)
		return emulated || b.S.Properties(b.S.CurrentDevice()).Major >= 8, nil
	})
	b.fn(m, "mem_get_info", "mem_get_info(device=None): (free, total) from the driver, on a real GPU (--device cuda)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndex(args, kw)
		if err != nil {
			return nil, err
		}
		free, total, err := b.S.MemGetInfo(i)
		if errors.Is(err, engine.ErrDriverFigure) {
			return nil, in.Refuse(eval.NotImplementedErrType, "torch.cuda.mem_get_info: %v", err)
		}
		if err != nil {
			return nil, b.pyErr(err)
		}
		return in.NewTuple([]eval.Value{int64(free), int64(total)}), nil
	})
}
