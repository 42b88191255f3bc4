package engine

import "slices"

// The engine's part of nn.Module's conversions (module.to(), .cuda(),
// .half()...): each tensor is converted to a new one, which a parameter
// then takes as its data (param.data = new), as Module._apply does
// (testdata/pyrules/module_convert.py, recorded with allocator events).

// errConvertFromGPU refuses what module_convert.py did not record: a
// GPU tensor converted to another dtype on another device.
var errConvertFromGPU = Refusef(NotImplementedError, "converting a GPU tensor to another device and dtype at once is not modelled by gpumemrepl")

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
// the weight frees the CUDA weight (recorded: testdata/pyrules/
// data_swap_saved.py).
func (s *Session) SetData(t, src *Tensor) error { return s.setData(t, src) }

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
	return s.setData(t, src)
}

// SetStorage is t.set_(storage, storage_offset, size, stride): t takes
// the storage src holds (an untyped storage's tensor), laid out from
// offset (in t's elements) by size and stride (dense for nil), keeping
// its dtype; a layout that reaches past the storage is PyTorch's
// RuntimeError.
func (s *Session) SetStorage(t, src *Tensor, offset int64, size, stride []int64) error {
	if stride == nil {
		stride = denseStrides(size)
	}
	if len(stride) != len(size) {
		return Errorf(RuntimeError, "mismatch in length of strides and shape")
	}
	need := uint64(0)
	if !slices.Contains(size, 0) {
		last := offset
		for d, n := range size {
			last += (n - 1) * stride[d]
		}
		need = uint64(last+1) * t.DType.Size
	}
	if offset < 0 || need > src.st.bytes {
		return Errorf(RuntimeError, "setStorage: sizes %v, strides %v, storage offset %d, and itemsize %d requiring a storage size of %d are out of bounds for storage of size %d", dimList(size), dimList(stride), offset, t.DType.Size, need, src.st.bytes)
	}
	if t.st == src.st { // a new layout over the same storage
		t.layOut(offset, size, stride)
		return nil
	}
	v := &Tensor{DType: t.DType, st: src.st}
	v.layOut(offset, size, stride)
	src.st.refs++
	defer s.dropTensor(v)
	return s.setData(t, v)
}

// layOut gives t the shape size with strides stride from offset (in
// elements) in its storage.
func (t *Tensor) layOut(offset int64, size, stride []int64) {
	t.Shape, t.offset, t.strides, t.strided = slices.Clone(size), uint64(offset), nil, false
	if dense := contiguous(size, stride); !dense || offset != 0 {
		t.strides, t.strided = slices.Clone(stride), !dense
	}
}

// setData swaps t's storage for src's: a graph that holds the leaf
// itself (its AccumulateGrad, a node that saved it) follows, as
// PyTorch's hold the tensor, not its storage (testdata/pyrules/
// data_swap_saved.py, data_assign.py, module_apply_overwrite.py,
// recorded with allocator events).
func (s *Session) setData(t, src *Tensor) error {
	if t.st == src.st {
		return nil
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
