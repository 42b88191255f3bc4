package engine

import "slices"

// The engine's part of nn.Module's conversions (module.to(), .cuda(),
// .half()...): each tensor is converted to a new one, which a parameter
// then takes as its data (param.data = new), as Module._apply does
// (testdata/pyrules/module_convert.py, recorded with allocator events).

// errConvertFromGPU refuses what module_convert.py did not record: a
// GPU tensor converted to another dtype on another device.
var errConvertFromGPU = Errorf(NotImplementedError, "converting a GPU tensor to another device and dtype at once is not modelled by gpumemrepl")

// Convert is t.to(dev, dtype) as Module._apply calls it, outside
// autograd: t itself (another reference) when it already is on dev with
// dtype; else one new tensor on dev; a host tensor going to the GPU as
// another dtype is converted on the host first, so the GPU holds only
// the result.
func (s *Session) Convert(t *Tensor, dev Device, dt DType) (*Tensor, error) {
	was := s.SetGradEnabled(false)
	defer s.SetGradEnabled(was)
	switch {
	case t.Device() == dev:
		return s.ToDType(t, dt)
	case t.DType.Name == dt.Name:
		return s.To(t, dev)
	case t.Device().CUDA:
		return nil, errConvertFromGPU
	}
	cast, err := s.ToDType(t, dt)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(cast)
	return s.To(cast, dev)
}

// SetData is t.data = src: t takes src's storage, shape and dtype (its
// graph and .grad stay); t's old storage goes if nothing else holds it.
// A leaf's TensorImpl is what graphs hold of it (the AccumulateGrad of
// a graph using it, the nodes that saved it), so they see the new
// storage too, as in PyTorch: model.cpu() after a forward that saved
// the weight frees the CUDA weight.
//
// Until recorded on the GPU (testdata/gc_pending), a swap that a graph
// follows is an estimate.
func (s *Session) SetData(t, src *Tensor) error { return s.setData(t, src, "Tensor.data =") }

// SetSource is t.set_(src) (an empty tensor of t's dtype and device for
// nil): t takes src's storage, shape and strides, as SetData; PyTorch
// counts it an in-place op, refused on a leaf that requires grad while
// grad mode is on.
func (s *Session) SetSource(t, src *Tensor) error {
	if t.slot != nil && t.fn == nil && s.gradEnabled {
		return Errorf(RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.")
	}
	if src == nil {
		e, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{0}, DType: t.DType, Device: t.Device()})
		if err != nil {
			return err
		}
		defer s.dropTensor(e)
		src = e
	}
	return s.setData(t, src, "Tensor.set_")
}

func (s *Session) setData(t, src *Tensor, op string) error {
	if t.st == src.st {
		return nil
	}
	if t.slot != nil && t.fn == nil && s.graphHolds(t.slot, t.st) {
		if err := s.estimate(nil, op, "%s: a graph holds the leaf and follows its new storage, as PyTorch's saved leaves and AccumulateGrad hold the tensor itself; not yet recorded (testdata/gc_pending/data_swap_saved.py)", dimList(t.Shape)); err != nil {
			return err
		}
	}
	old := t.st
	fn, slot := t.fn, t.slot
	*t = *src
	t.fn, t.slot = fn, slot
	if slot != nil {
		t.st.role = roleParam
	}
	t.st.refs++
	if slot != nil && fn == nil {
		s.followLeaf(slot, old, t.st)
	}
	s.release(old)
	return nil
}

// graphHolds reports whether a graph holds the leaf's storage st.
func (s *Session) graphHolds(slot *gradSlot, st *storage) bool {
	if slot.acc != nil && slot.acc.leafSt == st {
		return true
	}
	for _, n := range slot.savers {
		if !n.released && n.refs > 0 {
			for _, sv := range n.saved {
				if sv.st == st {
					return true
				}
			}
		}
	}
	return false
}

// followLeaf moves what graphs hold of a leaf from its storage old to
// its new one.
func (s *Session) followLeaf(slot *gradSlot, old, st *storage) {
	if acc := slot.acc; acc != nil && acc.leafSt == old {
		acc.leafSt = st
		st.refs++
		s.release(old)
	}
	live := slot.savers[:0]
	for _, n := range slot.savers {
		if n.released || n.refs <= 0 {
			continue
		}
		live = append(live, n)
		for i := range n.saved {
			if sv := &n.saved[i]; sv.st == old {
				sv.st, sv.version = st, st.version
				st.refs++
				st.saved++
				old.saved--
				s.release(old)
			}
		}
	}
	slot.savers = live
}

// ConvertParameter converts p in place (p.data = p.to(...)), then its
// .grad the same way, each new tensor made before the old one goes.
func (s *Session) ConvertParameter(p *Tensor, dev Device, dt func(DType) DType) error {
	return s.replaceData(p, func(t *Tensor) (*Tensor, error) { return s.Convert(t, dev, dt(t.DType)) })
}

// EmptyParameter gives p, then its .grad, new memory on dev, not
// initialised (p.data = torch.empty_like(p, device=dev): Module.to_empty).
func (s *Session) EmptyParameter(p *Tensor, dev Device) error {
	return s.replaceData(p, func(t *Tensor) (*Tensor, error) { return s.EmptyLike(t, dev) })
}

// EmptyLike is torch.empty_like(t, device=dev).
func (s *Session) EmptyLike(t *Tensor, dev Device) (*Tensor, error) {
	return s.NewTensor(TensorSpec{Op: "empty", Shape: slices.Clone(t.Shape), DType: t.DType, Device: dev})
}

// replaceData sets p's data, then its .grad's, to what made gives for
// each, the new tensor made before the old one goes.
func (s *Session) replaceData(p *Tensor, made func(*Tensor) (*Tensor, error)) error {
	for _, t := range []*Tensor{p, gradOf(p)} {
		if t == nil {
			continue
		}
		c, err := made(t)
		if err != nil {
			return err
		}
		err = s.SetData(t, c)
		s.dropTensor(c)
		if err != nil {
			return err
		}
	}
	return nil
}
