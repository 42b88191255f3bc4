package engine

import (
	"fmt"
	"slices"
)

// Tensor.__deepcopy__, as PyTorch 2.11 runs it (testdata/pyrules/
// copy_deepcopy.py, recorded with the allocator's events):
//
//   - a tensor that is not a leaf of a graph refuses;
//   - its whole storage is copied (UntypedStorage.clone: a view's copy
//     takes all of its base's bytes), once per deepcopy call, however
//     many of the call's tensors share it;
//   - then new_empty([]) takes a 0-d tensor's block and set_ onto the
//     copied storage frees it, for every tensor copied;
//   - requires_grad carries over, and a .grad is deep-copied the same
//     way and set on the copy.
//
// An nn.Parameter's own __deepcopy__ is a clone of its data instead
// (Clone): no 0-d tensor, and its .grad is not copied.

// StorageKey names t's storage while it lives: the key a deepcopy memo
// keeps the storage's copy under.
func (t *Tensor) StorageKey() string { return fmt.Sprintf("storage %p", t.st) }

// DeepCopy is Tensor.__deepcopy__'s copy of t, without its .grad: on
// onto's storage when that is not nil (the copy of t's storage this
// deepcopy made earlier), else on a new copy of t's whole storage.
func (s *Session) DeepCopy(t, onto *Tensor) (*Tensor, error) {
	if t.fn != nil {
		return nil, Errorf(RuntimeError, "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
	}
	var st *storage
	if onto != nil {
		st = onto.st
		st.refs++
	} else {
		n, err := s.newStorage(t.st.device, t.st.bytes, false)
		if err != nil {
			return nil, err
		}
		n.vals = slices.Clone(t.st.vals)
		st = n
	}
	c := &Tensor{Shape: slices.Clone(t.Shape), DType: t.DType, st: st, offset: t.offset,
		strides: slices.Clone(t.strides), strided: t.strided, expanded: t.expanded}
	empty, err := s.alloc([]int64{}, t.DType, t.st.device)
	if err != nil {
		s.dropTensor(c)
		return nil, err
	}
	s.dropTensor(empty)
	return c, nil
}

// StoragePtr is the (simulated) address of t's storage:
// t.untyped_storage().data_ptr(), shared by all of its views.
func (t *Tensor) StoragePtr() uint64 { return t.st.ptr }
