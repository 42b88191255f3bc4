package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/big"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// torch.save's file: the zip archive PyTorch's writer (miniz through
// PyTorchStreamWriter) makes, byte for byte, but for the random
// serialization id: records stored, not compressed, each with a data
// descriptor, its data aligned to 64 bytes by an "FB" padding field,
// zip64 fields once an offset or a size passes 4 GiB, and zip64's end
// records always (testdata/checkpoints, compared in tests).

// SavedParameter marks a tensor that torch.save writes as an
// nn.Parameter (torch._utils._rebuild_parameter).
type SavedParameter struct{ T *Tensor }

// SaveOptions is what torch.save writes beside the object.
type SaveOptions struct {
	// Name is the archive's folder: the file's name without its
	// extension ("archive" for a file object).
	Name string
}

// Save writes obj as torch.save does: obj is plain data as
// snapshot.WriteObjects takes it, with *Tensor and SavedParameter where
// tensors are. Each storage is written once, its bytes the values the
// tool knows, zeros where it does not know them (the tool computes no
// values; a meta tensor's storage has none to write, as in PyTorch,
// which refuses it).
func (s *Session) Save(w io.Writer, obj any, o SaveOptions) error {
	sv := &saver{keys: map[*storage]*snapshot.Str{}, made: map[any]any{}}
	root, err := sv.object(obj)
	if err != nil {
		return err
	}
	var pkl bytes.Buffer
	if err := snapshot.WriteObjects(&pkl, root); err != nil {
		return err
	}
	z := &zipWriter{w: w}
	z.record(o.Name+"/data.pkl", int64(pkl.Len()), bytesFill(pkl.Bytes()))
	z.record(o.Name+"/.format_version", 1, bytesFill([]byte("1")))
	z.record(o.Name+"/.storage_alignment", 2, bytesFill([]byte("64")))
	z.record(o.Name+"/byteorder", 6, bytesFill([]byte("little")))
	for i, st := range sv.order {
		z.record(fmt.Sprintf("%s/data/%d", o.Name, i), int64(st.st.bytes), storageFill(st.st, st.dtype))
	}
	z.record(o.Name+"/version", 2, bytesFill([]byte("3\n")))
	z.record(o.Name+"/.data/serialization_id", 40, bytesFill(serializationID()))
	return z.finish()
}

// saver turns an object with tensors into the pickle's objects.
type saver struct {
	keys  map[*storage]*snapshot.Str
	order []savedStorage
	made  map[any]any // each tensor (or container) written once
}

type savedStorage struct {
	st    *storage
	dtype DType
}

// maxSaveDepth bounds how deep a saved object nests.
const maxSaveDepth = 1000

func (sv *saver) object(v any) (any, error) { return sv.value(v, 0) }

func (sv *saver) value(v any, depth int) (any, error) {
	if depth > maxSaveDepth {
		return nil, fmt.Errorf("torch.save: an object nested more than %d deep", maxSaveDepth)
	}
	switch v.(type) {
	case *Tensor, SavedParameter, *snapshot.List, *snapshot.Dict:
		if m, ok := sv.made[v]; ok {
			return m, nil
		}
	}
	switch x := v.(type) {
	case *Tensor:
		c, err := sv.tensor(x)
		sv.made[v] = c
		return c, err
	case SavedParameter:
		t, err := sv.tensor(x.T)
		if err != nil {
			return nil, err
		}
		t.Args[4] = false
		c := &snapshot.Call{Fn: snapshot.Global{Module: "torch._utils", Name: "_rebuild_parameter"},
			Args: snapshot.Tuple{t, x.T.RequiresGrad(), &snapshot.Dict{Ordered: true}}}
		sv.made[v] = c
		return c, nil
	case snapshot.Tuple:
		out := make(snapshot.Tuple, len(x))
		for i, e := range x {
			var err error
			if out[i], err = sv.value(e, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *snapshot.List:
		out := &snapshot.List{Items: make([]any, len(x.Items))}
		sv.made[v] = out
		for i, e := range x.Items {
			var err error
			if out.Items[i], err = sv.value(e, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *snapshot.Dict:
		out := &snapshot.Dict{Items: make([]snapshot.Pair, len(x.Items)), Ordered: x.Ordered}
		sv.made[v] = out
		for i, it := range x.Items {
			k, err := sv.value(it.Key, depth+1)
			if err != nil {
				return nil, err
			}
			val, err := sv.value(it.Value, depth+1)
			if err != nil {
				return nil, err
			}
			out.Items[i] = snapshot.Pair{Key: k, Value: val}
		}
		var err error
		out.State, err = sv.value(x.State, depth+1)
		return out, err
	case nil, bool, int64, float64, string, *big.Int:
		return v, nil
	}
	return nil, Refusef(NotImplementedError, "torch.save of a %T is not modelled by gpumemrepl", v)
}

// tensor is _rebuild_tensor_v2 of t: its storage (a persistent id, the
// storage numbered at its first tensor), offset, size, stride,
// requires_grad and an empty OrderedDict of hooks.
func (sv *saver) tensor(t *Tensor) (*snapshot.Call, error) {
	if t.number {
		return nil, Refusef(NotImplementedError, "torch.save of a Python number's tensor is not modelled by gpumemrepl")
	}
	if t.IsMeta() {
		return nil, ErrNoData
	}
	class := tensorTypes[t.DType.Name]
	if class == "" {
		return nil, Refusef(NotImplementedError, "torch.save of a %s tensor is not modelled by gpumemrepl", t.DType.Name)
	}
	key, ok := sv.keys[t.st]
	if !ok {
		key = &snapshot.Str{S: fmt.Sprint(len(sv.order))}
		sv.keys[t.st] = key
		sv.order = append(sv.order, savedStorage{t.st, t.DType})
	}
	var loc any = "cpu" // one string object in PyTorch: fetched from the memo
	if d := t.Device(); d.CUDA {
		loc = &snapshot.Str{S: d.String()} // made anew each time
	}
	pid := &snapshot.PersistentID{ID: snapshot.Tuple{"storage", snapshot.Global{Module: "torch", Name: class + "Storage"}, key, loc, int64(t.st.bytes / t.DType.Size)}}
	dims := func(d []int64) snapshot.Tuple {
		out := make(snapshot.Tuple, len(d))
		for i, x := range d {
			out[i] = x
		}
		return out
	}
	return &snapshot.Call{Fn: snapshot.Global{Module: "torch._utils", Name: "_rebuild_tensor_v2"},
		Args: snapshot.Tuple{pid, int64(t.offset), dims(t.Shape), dims(t.Strides()), t.RequiresGrad(), &snapshot.Dict{Ordered: true}}}, nil
}

// serializationID is a record's worth of random decimal digits, as
// PyTorch writes one in each archive.
func serializationID() []byte {
	b := make([]byte, 40)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	for i := range b {
		b[i] = '0' + b[i]%10
	}
	return b
}

// fill writes a record's data to w and returns its CRC-32.
type fill func(w io.Writer) (uint32, error)

func bytesFill(b []byte) fill {
	return func(w io.Writer) (uint32, error) {
		_, err := w.Write(b)
		return crc32.ChecksumIEEE(b), err
	}
}

// storageFill writes a storage's bytes: its known values as dt's
// elements, little-endian, else zeros.
func storageFill(st *storage, dt DType) fill {
	return func(w io.Writer) (uint32, error) {
		n := st.bytes / dt.Size
		crc := uint32(0)
		buf := make([]byte, 0, 64<<10)
		flush := func() error {
			crc = crc32.Update(crc, crc32.IEEETable, buf)
			_, err := w.Write(buf)
			buf = buf[:0]
			return err
		}
		for i := range n {
			v := 0.0
			if st.vals != nil {
				v = st.vals.at(i)
			}
			buf = appendElement(buf, dt, v)
			if len(buf)+8 > cap(buf) {
				if err := flush(); err != nil {
					return 0, err
				}
			}
		}
		return crc, flush()
	}
}

// appendElement appends v as one element of dt.
func appendElement(b []byte, dt DType, v float64) []byte {
	switch dt.Name {
	case "float32":
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
	case "float64":
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	case "float16":
		return binary.LittleEndian.AppendUint16(b, halfBits(v))
	case "bfloat16":
		return binary.LittleEndian.AppendUint16(b, bfloat16Bits(v))
	case "int64":
		return binary.LittleEndian.AppendUint64(b, uint64(int64(v)))
	case "int32":
		return binary.LittleEndian.AppendUint32(b, uint32(int32(v)))
	case "int16":
		return binary.LittleEndian.AppendUint16(b, uint16(int16(v)))
	case "int8":
		return append(b, byte(int8(v)))
	case "bool":
		if v != 0 {
			return append(b, 1)
		}
		return append(b, 0)
	}
	return append(b, byte(uint8(v)))
}

// bfloat16Bits is v rounded to bfloat16, to nearest even (as
// c10::BFloat16 rounds a float).
func bfloat16Bits(v float64) uint16 {
	f := math.Float32bits(float32(v))
	if f&0x7fffffff > 0x7f800000 { // NaN
		return 0x7fc0
	}
	return uint16((f + 0x7fff + (f>>16)&1) >> 16)
}

// halfBits is v rounded to IEEE half precision, to nearest even.
func halfBits(v float64) uint16 {
	f := math.Float32bits(float32(v))
	sign := uint16(f>>16) & 0x8000
	exp := int(f>>23&0xff) - 127 + 15
	mant := f & 0x7fffff
	switch {
	case f&0x7fffffff > 0x7f800000:
		return sign | 0x7e00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		half := uint32(1) << (shift - 1)
		r := mant >> shift
		if rem := mant & (1<<shift - 1); rem > half || rem == half && r&1 == 1 {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++
	}
	return sign | uint16(r)
}
