package engine

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// A checkpoint is a file torch.save wrote: since PyTorch 1.6 a zip
// archive of a pickle (PREFIX/data.pkl) whose tensors name their
// storages, each a record of its own (PREFIX/data/KEY). It is read here
// without its tensors' data: the zip's directory and the pickle alone,
// with the pickle reader of snapshots and its bounds.

// SavedTensor is one tensor of a checkpoint, as its pickle
// describes it (torch._utils._rebuild_tensor_v2 of a storage).
type SavedTensor struct {
	Key      string // the storage's record, PREFIX/data/KEY
	Location string // where it was saved: cpu, cuda:N
	DType    DType
	// StorageElems is the storage's length in elements of DType.
	StorageElems uint64
	Offset       uint64 // the first element, in the storage
	Shape        []int64
	Strides      []int64
	RequiresGrad bool
	Parameter    bool // an nn.Parameter (torch._utils._rebuild_parameter)
}

// SavedFile is a torch.save file read without its tensor data: Root is
// its object, as snapshot.ReadObjects returns it, with a
// *SavedTensor where it rebuilds a tensor or parameter.
type SavedFile struct {
	Root any
	// Legacy marks a file of the format from before PyTorch 1.6 (not a
	// zip): Root is nil.
	Legacy bool
	// Records are the sizes of the archive's storage records, by key.
	Records map[string]uint64
}

// storageTypes are the storage classes a checkpoint names in its
// persistent ids, by name, with their element types.
var storageTypes = map[string]string{
	"FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16", "BFloat16Storage": "bfloat16",
	"LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8",
	"ByteStorage": "uint8", "BoolStorage": "bool",
}

// savedGlobal allows the classes and functions a checkpoint's pickle
// may name: those torch.load(weights_only=True) reads that a state dict,
// an optimizer's state or a training checkpoint of them use.
func savedGlobal(g snapshot.Global) bool {
	switch g.Module {
	case "collections":
		return g.Name == "OrderedDict"
	case "torch._utils":
		return g.Name == "_rebuild_tensor_v2" || g.Name == "_rebuild_parameter"
	case "torch":
		_, ok := storageTypes[g.Name]
		return ok
	}
	return false
}

// legacyMagic is how a checkpoint of the format from before PyTorch 1.6
// begins: a protocol 2 pickle of torch.serialization's magic number
// (0x1950a86a20f9469cfc6c, a LONG1 of 10 bytes).
const legacyMagic = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"

// maxPickle bounds a checkpoint's pickle (a 70B-parameter model's state
// dict takes a few hundred KB); its values are bounded as a snapshot's.
const maxPickle = 1 << 30

// OpenSaved reads the checkpoint at path: the zip's directory and
// its pickle, not the tensors' data.
func OpenSaved(path string) (*SavedFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	c, err := ReadSaved(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ReadSaved reads a checkpoint of size bytes from r.
func ReadSaved(r io.ReaderAt, size int64) (*SavedFile, error) {
	var head [len(legacyMagic)]byte
	n, _ := r.ReadAt(head[:], 0)
	switch {
	case string(head[:n]) == legacyMagic:
		return &SavedFile{Legacy: true}, nil
	case n < 2 || string(head[:2]) != "PK":
		return nil, errors.New("not a checkpoint: neither a zip archive (torch.save's format) nor the format from before PyTorch 1.6")
	}
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a checkpoint: %w", err)
	}
	var pkl *zip.File
	c := &SavedFile{Records: map[string]uint64{}}
	for _, f := range z.File {
		prefix, rest, ok := strings.Cut(f.Name, "/")
		if !ok || strings.Contains(prefix, "/") {
			continue
		}
		switch {
		case rest == "data.pkl":
			if pkl != nil {
				return nil, errors.New("the archive has two data.pkl records")
			}
			pkl = f
		case strings.HasPrefix(rest, "data/"):
			c.Records[strings.TrimPrefix(rest, "data/")] = f.UncompressedSize64
		}
	}
	if pkl == nil {
		return nil, errors.New("not a checkpoint: the zip archive has no data.pkl (a TorchScript archive, or another zip?)")
	}
	if pkl.UncompressedSize64 > maxPickle {
		return nil, fmt.Errorf("%s: a pickle of %d bytes (more than %d)", pkl.Name, pkl.UncompressedSize64, maxPickle)
	}
	rc, err := pkl.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pkl.Name, err)
	}
	defer rc.Close()
	limits := snapshot.DefaultLimits
	limits.MaxBytes = maxPickle
	root, err := snapshot.ReadObjects(rc, int64(pkl.UncompressedSize64), limits, savedGlobal)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pkl.Name, err)
	}
	if c.Root, err = c.tensors(root, map[any]any{}); err != nil {
		return nil, fmt.Errorf("%s: %w", pkl.Name, err)
	}
	return c, nil
}

// tensors is v with each tensor or parameter rebuild in it made a
// *SavedTensor, checked against the records; done keeps the value
// each shared one became.
func (c *SavedFile) tensors(v any, done map[any]any) (any, error) {
	switch v.(type) {
	case *snapshot.List, *snapshot.Dict, *snapshot.Call:
		if d, ok := done[v]; ok {
			return d, nil
		}
	}
	switch x := v.(type) {
	case snapshot.Tuple:
		out := make(snapshot.Tuple, len(x))
		for i, e := range x {
			var err error
			if out[i], err = c.tensors(e, done); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *snapshot.List:
		done[v] = x
		for i, e := range x.Items {
			var err error
			if x.Items[i], err = c.tensors(e, done); err != nil {
				return nil, err
			}
		}
	case *snapshot.Dict:
		done[v] = x
		for i, it := range x.Items {
			var err error
			if x.Items[i].Value, err = c.tensors(it.Value, done); err != nil {
				return nil, err
			}
		}
	case *snapshot.Call:
		t, err := c.rebuild(x)
		if err != nil {
			return nil, err
		}
		done[v] = t
		return t, nil
	case *snapshot.PersistentID:
		return nil, errors.New("a storage outside a tensor")
	case snapshot.Global:
		return nil, fmt.Errorf("%s outside a tensor", x)
	}
	return v, nil
}

// rebuild is the tensor a call of _rebuild_tensor_v2(storage, offset,
// size, stride, requires_grad, hooks[, metadata]) or
// _rebuild_parameter(tensor, requires_grad, hooks) makes.
func (c *SavedFile) rebuild(call *snapshot.Call) (*SavedTensor, error) {
	a := call.Args
	switch call.Fn.Name {
	case "_rebuild_parameter":
		inner, ok := argAt(a, 0).(*snapshot.Call)
		grad, okg := argAt(a, 1).(bool)
		if len(a) != 3 || !ok || !okg || inner.Fn.Name != "_rebuild_tensor_v2" {
			return nil, errors.New("_rebuild_parameter of something other than (tensor, requires_grad, hooks)")
		}
		t, err := c.rebuild(inner)
		if err != nil {
			return nil, err
		}
		p := *t
		p.Parameter, p.RequiresGrad = true, grad
		return &p, nil
	case "_rebuild_tensor_v2":
	default:
		return nil, fmt.Errorf("a call of %s outside a tensor", call.Fn)
	}
	if len(a) != 6 && len(a) != 7 {
		return nil, fmt.Errorf("_rebuild_tensor_v2 with %d arguments (6 or 7)", len(a))
	}
	pid, ok := a[0].(*snapshot.PersistentID)
	if !ok {
		return nil, errors.New("_rebuild_tensor_v2 of something other than a storage")
	}
	t, err := c.storageOf(pid)
	if err != nil {
		return nil, err
	}
	off, ok1 := a[1].(int64)
	shape, ok2 := dims(a[2])
	strides, ok3 := dims(a[3])
	grad, ok4 := a[4].(bool)
	if !ok1 || !ok2 || !ok3 || !ok4 || off < 0 || len(shape) != len(strides) {
		return nil, errors.New("_rebuild_tensor_v2 with arguments other than (storage, offset, size, stride, requires_grad, hooks)")
	}
	if err := checkSize(shape, t.DType.Size); err != nil {
		return nil, err
	}
	t.Offset, t.Shape, t.Strides, t.RequiresGrad = uint64(off), shape, strides, grad
	if end, ok := extent(shape, strides, t.Offset); ok && end > t.StorageElems {
		return nil, fmt.Errorf("a tensor of size %s, stride %s and offset %d reaches past its storage %s of %d elements", dimList(shape), dimList(strides), off, t.Key, t.StorageElems)
	}
	return t, nil
}

// storageOf is the tensor of a persistent id ('storage', class, key,
// location, numel), its view not yet set; the record must hold the
// storage's bytes.
func (c *SavedFile) storageOf(pid *snapshot.PersistentID) (*SavedTensor, error) {
	id, ok := pid.ID.(snapshot.Tuple)
	if !ok || len(id) != 5 || id[0] != "storage" {
		return nil, errors.New("a persistent id other than ('storage', class, key, location, numel)")
	}
	class, ok1 := id[1].(snapshot.Global)
	key, ok2 := id[2].(string)
	loc, ok3 := id[3].(string)
	n, ok4 := id[4].(int64)
	if !ok1 || !ok2 || !ok3 || !ok4 || n < 0 {
		return nil, errors.New("a persistent id other than ('storage', class, key, location, numel)")
	}
	dt := DTypes[storageTypes[class.Name]]
	if err := checkSize([]int64{n}, dt.Size); err != nil {
		return nil, err
	}
	size, ok := c.Records[key]
	if !ok {
		return nil, fmt.Errorf("storage %s has no record data/%s", strconv.Quote(key), key)
	}
	if want := uint64(n) * dt.Size; size != want {
		return nil, fmt.Errorf("storage %s: its record holds %d bytes, its %d %s elements need %d", strconv.Quote(key), size, n, dt.Name, want)
	}
	return &SavedTensor{Key: key, Location: loc, DType: dt, StorageElems: uint64(n)}, nil
}

func argAt(a snapshot.Tuple, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

// dims is a tuple of non-negative ints.
func dims(v any) ([]int64, bool) {
	t, ok := v.(snapshot.Tuple)
	if !ok {
		return nil, false
	}
	out := make([]int64, len(t))
	for i, e := range t {
		n, ok := e.(int64)
		if !ok || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// extent is one past the last element a view reaches (offset when it
// has none); false when that overflows.
func extent(shape, strides []int64, offset uint64) (uint64, bool) {
	end := offset
	for i, d := range shape {
		if d == 0 {
			return offset, true
		}
		step := uint64(d-1) * uint64(strides[i])
		if strides[i] != 0 && step/uint64(strides[i]) != uint64(d-1) || end+step < end {
			return 0, false
		}
		end += step
	}
	return end + 1, true
}

// SavedLoader makes a checkpoint's tensors as torch.load does: each
// storage once, at its first tensor (the order the pickle names them),
// on the device the caller maps its location to. With mmap a host
// storage is the file's pages, mapped and not read: it takes none of
// the process's memory until the program reads it (the tool never
// does); without, it is read into memory of its own. A CUDA storage is
// allocated on the device (torch.load reads each into host memory
// first, one at a time, and frees it after the copy: not modelled).
type SavedLoader struct {
	s        *Session
	mmap     bool
	storages map[string]*storage
}

// NewSavedLoader starts loading a checkpoint's tensors.
func (s *Session) NewSavedLoader(mmap bool) *SavedLoader {
	return &SavedLoader{s: s, mmap: mmap, storages: map[string]*storage{}}
}

// Tensor is t, its storage on dev (made there at the storage's first
// tensor).
func (l *SavedLoader) Tensor(t *SavedTensor, dev Device) (*Tensor, error) {
	st, ok := l.storages[t.Key]
	if !ok {
		if dev.CUDA && dev.Index >= len(l.s.gpus) {
			return nil, Errorf(RuntimeError, "Attempting to deserialize object on CUDA device %d but torch.cuda.device_count() is %d. Please use torch.load with map_location to map your storages to an existing device.", dev.Index, len(l.s.gpus))
		}
		n := t.StorageElems * t.DType.Size
		var err error
		if !dev.CUDA && l.mmap {
			st = &storage{device: dev, bytes: n, refs: 1, mapped: true}
		} else if st, err = l.s.newStorage(dev, n, !dev.CUDA); err != nil {
			return nil, err
		}
		l.storages[t.Key] = st
	}
	st.refs++
	v := &Tensor{Shape: t.Shape, DType: t.DType, st: st, offset: t.Offset}
	if !contiguous(t.Shape, t.Strides) {
		v.strides, v.strided = t.Strides, true
	}
	if t.RequiresGrad {
		v.slot = newGradSlot()
	}
	return v, nil
}

// Close lets go of the loader's own references to the storages: those
// no tensor kept are freed.
func (l *SavedLoader) Close() {
	for _, st := range l.storages {
		l.s.release(st)
	}
	l.storages = nil
}
