package engine

// The meta device: a tensor there has a shape, a dtype and strides and
// no memory anywhere, so a model of any size can be built and run on it
// to learn its shapes (PyTorch's meta kernels allocate nothing, not
// even temporaries; the tool's host paths make none either). Its
// storage takes no allocator block and no host memory; copying out of
// one is PyTorch's error (testdata/pyrules/meta_device.py).

// ErrNoData is PyTorch's error for a copy out of a meta tensor.
var ErrNoData = Errorf(NotImplementedError, "Cannot copy out of meta tensor; no data!")

// IsMeta reports whether t is on the meta device.
func (t *Tensor) IsMeta() bool { return t.st != nil && t.st.device.Meta }
