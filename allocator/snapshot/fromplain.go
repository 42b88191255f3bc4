package snapshot

import (
	"fmt"
	"slices"
)

// maxDevice bounds a segment's device index: PyTorch's
// C10_COMPILE_TIME_MAX_GPUS.
const maxDevice = 120

// fromPlain turns the snapshot dict read (its device_traces already
// records) into per-device snapshots: the segments, the traces, the
// alloc conf, and the rest kept for export. What contradicts itself
// becomes a Problem.
func fromPlain(top *dict, u *unpickler) ([]*Snapshot, error) {
	s := &Snapshot{HasRequested: true, rest: top.without("segments", "device_traces")}
	if set, ok := top.get("allocator_settings").(*dict); ok {
		s.AllocConf, _ = set.get("PYTORCH_CUDA_ALLOC_CONF").(string)
	}
	ds := devices{}
	for dev, l := range u.traces.lists {
		if l.records.n > 0 {
			ds.of(dev, s).log = l
		}
	}
	var problems []Problem
	for _, p := range u.problems {
		if p.list != nil {
			p.Device = p.list.dev
		}
		problems = append(problems, p)
	}
	if v := top.get("segments"); v != nil {
		segs, ok := v.(*list)
		if !ok {
			return nil, fmt.Errorf("not a snapshot: segments is a %s, not a list", typeName(slotOf(v)))
		}
		for i, g := range segs.items {
			seg, dev, err := segmentOf(g, i)
			if err != nil {
				return nil, err
			}
			if bad := impossible(g.(*dict), i); len(bad) > 0 {
				problems = append(problems, bad...)
				continue
			}
			if dev < 0 || dev >= maxDevice {
				problems = append(problems, Problem{Event: -1, Offset: -1, Path: fmt.Sprintf("segments[%d]", i), Msg: fmt.Sprintf("device index %d is outside 0 to %d (the segment is left out)", dev, maxDevice-1)})
				continue
			}
			sd := ds.of(int(dev), s)
			sd.Segments = append(sd.Segments, seg)
		}
	}
	all := ds.list(s)
	for _, d := range all {
		problems = append(problems, overlaps(d)...)
	}
	for _, d := range all {
		d.Problems = problems
	}
	return all, nil
}

// segmentOf reads segments[i].
func segmentOf(v any, i int) (Segment, int64, error) {
	d, ok := v.(*dict)
	if !ok {
		return Segment{}, 0, fmt.Errorf("segments[%d] is a %s, not a dict", i, typeName(slotOf(v)))
	}
	dev, _ := d.get("device").(int64)
	expandable, _ := d.get("is_expandable").(bool)
	typ, _ := d.get("segment_type").(string)
	seg := Segment{Device: int(dev), Stream: uintOf(d.get("stream")), Address: uintOf(d.get("address")), TotalSize: uintOf(d.get("total_size")), Type: typ, Expandable: expandable,
		extra: d.without("device", "address", "total_size", "allocated_size", "active_size", "requested_size", "stream", "segment_type", "is_expandable", "blocks")}
	if blocks, ok := d.get("blocks").(*list); ok {
		for _, b := range blocks.items {
			bd, ok := b.(*dict)
			if !ok {
				return Segment{}, 0, fmt.Errorf("segments[%d]: a block is a %s, not a dict", i, typeName(slotOf(b)))
			}
			state, _ := bd.get("state").(string)
			seg.Blocks = append(seg.Blocks, Block{Address: uintOf(bd.get("address")), Size: uintOf(bd.get("size")), Requested: uintOf(bd.get("requested_size")), State: state,
				extra: bd.without("address", "size", "requested_size", "state")})
		}
	}
	return seg, dev, nil
}

// impossible are the problems of segments[i] (seg) that no PyTorch run
// writes: an address or size that is not an integer of at least 0 (NaN,
// -5, missing), in the segment or one of its blocks. Such a segment is
// left out: where it and its blocks lie is unknown.
func impossible(seg *dict, i int) []Problem {
	var out []Problem
	check := func(d *dict, path string, keys ...string) {
		for _, k := range keys {
			v := d.get(k)
			if n, ok := v.(int64); ok && n >= 0 {
				continue
			}
			what := describe(v)
			if v == nil {
				what = "missing"
			}
			out = append(out, Problem{Event: -1, Offset: -1, Path: path, Msg: fmt.Sprintf("%s is %s, not %s (the segment is left out)", k, what, wantOf(k))})
		}
	}
	check(seg, fmt.Sprintf("segments[%d]", i), "address", "total_size")
	if blocks, ok := seg.get("blocks").(*list); ok {
		for k, b := range blocks.items {
			check(b.(*dict), fmt.Sprintf("segments[%d].blocks[%d]", i, k), "address", "size")
		}
	}
	return out
}

// uintOf is a non-negative integer's value, else 0.
func uintOf(v any) uint64 {
	if n, ok := v.(int64); ok && n >= 0 {
		return uint64(n)
	}
	return 0
}

// overlaps are the problems of a device's segments that overlap.
func overlaps(s *Snapshot) []Problem {
	idx := make([]int, len(s.Segments))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := s.Segments[a].Address, s.Segments[b].Address
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	var out []Problem
	for k := 1; k < len(idx); k++ {
		a, b := s.Segments[idx[k-1]], s.Segments[idx[k]]
		if a.Address+a.TotalSize > b.Address {
			out = append(out, Problem{Event: -1, Offset: -1, Path: fmt.Sprintf("cuda:%d's segments", s.Device),
				Msg: fmt.Sprintf("the segment at %#x (%d bytes) overlaps the one at %#x", a.Address, a.TotalSize, b.Address)})
		}
	}
	return out
}
