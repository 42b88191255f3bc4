package engine

import (
	"slices"
)

// SetGrad is t.grad = g: the leaf's .grad becomes another reference to
// g (no copy; the .grad it had goes), after PyTorch's checks of dtype,
// device and size. t must require grad (a leaf's slot).
func (s *Session) SetGrad(t, g *Tensor) error {
	switch {
	case g.DType != t.DType:
		return Errorf(RuntimeError, "attempting to assign a gradient with dtype '%s' to a tensor with dtype '%s'. Please ensure that the gradient and the tensor have the same dtype", "torch."+g.DType.Name, "torch."+t.DType.Name)
	case g.Device().CUDA != t.Device().CUDA:
		return Errorf(RuntimeError, "attempting to assign a gradient with device type '%s' to a tensor with device type '%s'. Please ensure that the gradient and the tensor are on the same device", deviceType(g.Device()), deviceType(t.Device()))
	case g.Device() != t.Device():
		return Errorf(RuntimeError, "attempting to assign a gradient located on device with index '%d' to a tensor located on device with index '%d'. Please ensure that the gradient and the tensor are on the same device", g.Device().Index, t.Device().Index)
	case !slices.Equal(g.Shape, t.Shape):
		return Errorf(RuntimeError, "attempting to assign a gradient of size '%s' to a tensor of size '%s'. Please ensure that the gradient and the tensor are the same size", dimList(g.Shape), dimList(t.Shape))
	case t.slot == nil:
		return Refusef(NotImplementedError, "assigning .grad to a tensor that does not require grad is not modelled by gpumemrepl")
	}
	old := t.slot.grad
	t.slot.grad = share(g)
	if old != nil {
		s.dropTensor(old)
	}
	return nil
}

// deviceType is a device's type as PyTorch's messages name it.
func deviceType(d Device) string {
	if d.CUDA {
		return "cuda"
	}
	return "cpu"
}
