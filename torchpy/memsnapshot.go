package torchpy

import (
	"fmt"
	"math"
	"math/big"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// memorySnapshot is torch.cuda.memory_snapshot(): every used device's
// segments, by device and address, each a dict with PyTorch's keys in
// PyTorch's order and its blocks. Frames are left empty: they are what
// _record_memory_history records (the history _dump_snapshot writes
// has them).
func (b *Binding) memorySnapshot(in *eval.Interp) (eval.Value, error) {
	var segs []eval.Value
	for i := range b.S.DeviceCount() {
		infos, _, err := b.S.Segments(i)
		if err != nil {
			return nil, b.pyErr(err)
		}
		for _, s := range infos {
			segs = append(segs, b.segmentDict(in, s))
		}
	}
	return in.NewList(segs), nil
}

// segmentDict is one segment of memory_snapshot().
func (b *Binding) segmentDict(in *eval.Interp, s allocator.SegmentInfo) *eval.Dict {
	d := in.NewDict()
	typ := "large"
	if s.Small {
		typ = "small"
	}
	for _, kv := range []struct {
		k string
		v eval.Value
	}{
		{"device", int64(s.Device)}, {"address", int64(s.Address)}, {"total_size", int64(s.TotalSize)},
		{"allocated_size", int64(s.AllocatedSize)}, {"active_size", int64(s.ActiveSize)},
		{"requested_size", int64(s.RequestedSize)}, {"stream", int64(s.Stream)}, {"segment_type", typ},
	} {
		in.SetStr(d, kv.k, kv.v)
	}
	setNew(in, d, "segment_pool_id", in.NewTuple([]eval.Value{int64(0), int64(0)}))
	in.SetStr(d, "is_expandable", s.Expandable)
	setNew(in, d, "frames", in.NewList(nil))
	blocks := make([]eval.Value, len(s.Blocks))
	for i, bl := range s.Blocks {
		bd := in.NewDict()
		in.SetStr(bd, "address", int64(bl.Address))
		in.SetStr(bd, "size", int64(bl.Size))
		in.SetStr(bd, "requested_size", int64(bl.RequestedSize))
		in.SetStr(bd, "state", bl.State)
		setNew(in, bd, "frames", in.NewList(nil))
		blocks[i] = bd
	}
	setNew(in, d, "blocks", in.NewList(blocks))
	return d
}

// setNew stores a new object in d and gives up the maker's reference.
func setNew(in *eval.Interp, d *eval.Dict, k string, v eval.Value) {
	in.SetStr(d, k, v)
	in.Decref(v)
}

// pyObject is a value of snapshot.File.Objects as a new Python object
// (a new reference).
func pyObject(in *eval.Interp, v any) (eval.Value, error) {
	switch v := v.(type) {
	case []snapshot.Pair:
		d := in.NewDict()
		for _, p := range v {
			k, err := pyObject(in, p.Key)
			if err != nil {
				in.Decref(d)
				return nil, err
			}
			x, err := pyObject(in, p.Value)
			if err == nil {
				err = in.SetItem(d, k, x)
				in.Decref(x)
			}
			in.Decref(k)
			if err != nil {
				in.Decref(d)
				return nil, err
			}
		}
		return d, nil
	case []any:
		items, err := pyItems(in, v)
		if err != nil {
			return nil, err
		}
		return in.NewList(items), nil
	case snapshot.Tuple:
		items, err := pyItems(in, v)
		if err != nil {
			return nil, err
		}
		return in.NewTuple(items), nil
	case uint64:
		if v > math.MaxInt64 {
			return new(big.Int).SetUint64(v), nil
		}
		return int64(v), nil
	case nil:
		return eval.None, nil
	case int64, float64, string, bool, *big.Int:
		return v, nil
	case []byte:
		return eval.Bytes(v), nil
	}
	return nil, fmt.Errorf("a snapshot value of type %T", v)
}

// pyItems are the values of a list or tuple of snapshot.File.Objects as
// new Python objects.
func pyItems(in *eval.Interp, src []any) ([]eval.Value, error) {
	items := make([]eval.Value, len(src))
	for i, x := range src {
		o, err := pyObject(in, x)
		if err != nil {
			for _, made := range items[:i] {
				in.Decref(made)
			}
			return nil, err
		}
		items[i] = o
	}
	return items, nil
}
