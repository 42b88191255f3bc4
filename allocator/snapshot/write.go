package snapshot

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// File is a snapshot file to write: one device's segments now and its
// history, in PyTorch's format (what _dump_snapshot writes: segments,
// device_traces, allocator_settings, external_annotations), so that
// pytorch.org/memory_viz and torch.cuda._memory_viz read it. Each active
// block carries the stack of the allocation that made it, each segment
// that of the allocation that created it.
type File struct {
	Device    int
	Segments  []allocator.SegmentInfo
	Events    []Event
	AllocConf string
	// From is the snapshot the history was replayed from, or nil: what
	// it holds besides (allocator_settings, external_annotations,
	// host_segments, host_traces, its segments' pool ids...) is written
	// too.
	From *Snapshot
}

// Save writes a snapshot of one device's segments now and its recorded
// events.
func Save(path string, device int, segs []allocator.SegmentInfo, events []Event, allocConf string) error {
	return (&File{Device: device, Segments: segs, Events: events, AllocConf: allocConf}).Save(path, nil)
}

// Save writes the file at path, as fileio.Write does ("-" is stdout
// where stdout is not nil).
func (f *File) Save(path string, stdout io.Writer) error {
	return fileio.Write(path, stdout, f.Write)
}

// Write writes the file's pickle to w.
func (f *File) Write(w io.Writer) error {
	e := newEncoder(w)
	e.b(0x80, 4) // PROTO 4, unframed
	e.emptyDict()
	e.mark()
	e.str("segments")
	f.segments(e)
	e.str("device_traces")
	e.emptyList()
	e.mark()
	for d := 0; d < f.Device; d++ {
		e.emptyList()
	}
	e.events(f.Events)
	e.b('e') // APPENDS
	e.str("allocator_settings")
	e.value(f.settings(), 0)
	if f.From == nil || f.From.rest.get("external_annotations") == nil {
		e.str("external_annotations")
		e.emptyList()
	}
	if f.From != nil {
		for _, it := range f.From.rest.items {
			if it.key != "allocator_settings" {
				e.value(it.key, 0)
				e.value(it.value, 0)
			}
		}
	}
	e.b('u', '.') // SETITEMS, STOP
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// settings is allocator_settings: the recording's, with the config the
// history was replayed under.
func (f *File) settings() *dict {
	set := &dict{}
	if f.From != nil {
		if d, ok := f.From.rest.get("allocator_settings").(*dict); ok {
			set.items = slices.Clone(d.items)
		}
	}
	set.set("PYTORCH_CUDA_ALLOC_CONF", f.AllocConf)
	if f.From != nil && f.From.AllocConf != f.AllocConf {
		if c, err := allocator.ParseConfig(f.AllocConf); err == nil {
			split := int64(-1) // SIZE_MAX as PyTorch's int64
			if c.MaxSplitSize != allocator.NoMaxSplit {
				split = int64(c.MaxSplitSize)
			}
			set.set("max_split_size", split)
			set.set("garbage_collection_threshold", c.GCThreshold)
			set.set("expandable_segments", c.ExpandableSegments)
		}
	}
	return set
}

// segmentRow is one segment as written: its fields, pool id and frames,
// what the recording's segment at its address had besides, its blocks.
type segmentRow struct {
	s      allocator.SegmentInfo
	pool   any
	frames any
	extra  *dict // the recording's segment's other fields, or nil
	blocks []blockRow
}

// blockRow is one block as written: its frames and what the recording's
// block at its address had besides, or nil.
type blockRow struct {
	b      allocator.BlockInfo
	frames any
	extra  *dict
}

// segmentRows are the segments by address, each block with the stack of
// the allocation live in it and each segment with that of the event that
// created it, and what the recording's segment at the same address had
// besides (its pool id).
func (f *File) segmentRows() []segmentRow {
	live := map[uint64]int{} // block address → the event of its allocation
	made := map[uint64]int{} // segment address → the event that created it
	for i, ev := range f.Events {
		switch ev.Action {
		case "alloc":
			live[ev.Addr] = i
		case "free_completed":
			delete(live, ev.Addr)
		case "segment_alloc", "segment_map":
			if _, ok := made[ev.Addr]; !ok || ev.Action == "segment_alloc" {
				made[ev.Addr] = i
			}
		}
	}
	recorded := map[uint64]*Segment{}
	if f.From != nil {
		for i := range f.From.Segments {
			recorded[f.From.Segments[i].Address] = &f.From.Segments[i]
		}
	}
	segs := slices.Clone(f.Segments)
	slices.SortStableFunc(segs, func(a, b allocator.SegmentInfo) int { return cmp.Compare(a.Address, b.Address) })
	rows := make([]segmentRow, len(segs))
	for i, s := range segs {
		r := segmentRow{s: s, pool: tuple{int64(0), int64(0)}}
		if g, ok := recorded[s.Address]; ok && g.TotalSize == s.TotalSize {
			r.extra = g.extra
		}
		if r.extra != nil && r.extra.get("segment_pool_id") != nil {
			r.pool = r.extra.get("segment_pool_id")
		}
		if k, ok := made[s.Address]; ok {
			r.frames = f.Events[k].Frames.value()
		} else if r.extra != nil {
			r.frames = r.extra.get("frames")
		}
		var blocks map[uint64]Block
		if g, ok := recorded[s.Address]; ok {
			blocks = map[uint64]Block{}
			for _, b := range g.Blocks {
				blocks[b.Address] = b
			}
		}
		for _, b := range s.Blocks {
			br := blockRow{b: b}
			rb, same := blocks[b.Address]
			same = same && rb.Size == b.Size && rb.State == b.State
			if k, ok := live[b.Address]; ok && b.State == allocator.StateAllocated {
				br.frames = f.Events[k].Frames.value()
			} else if same && rb.extra != nil {
				br.frames = rb.extra.get("frames")
			}
			if same {
				br.extra = rb.extra
			}
			r.blocks = append(r.blocks, br)
		}
		rows[i] = r
	}
	return rows
}

// pairs are the segment's items as written, in order.
func (r segmentRow) pairs() []item {
	s := r.s
	typ := "large"
	if s.Small {
		typ = "small"
	}
	items := []item{{"device", int64(s.Device)}, {"address", s.Address}, {"total_size", s.TotalSize}, {"allocated_size", s.AllocatedSize},
		{"active_size", s.ActiveSize}, {"requested_size", s.RequestedSize}, {"stream", s.Stream}, {"segment_type", typ},
		{"segment_pool_id", r.pool}, {"is_expandable", s.Expandable}, {"frames", orEmpty(r.frames)}}
	return append(items, restItems(r.extra, "segment_pool_id", "is_expandable", "frames")...)
}

// pairs are the block's items as written, in order.
func (r blockRow) pairs() []item {
	b := r.b
	items := []item{{"address", b.Address}, {"size", b.Size}, {"requested_size", b.RequestedSize}, {"state", b.State}, {"frames", orEmpty(r.frames)}}
	return append(items, restItems(r.extra, "frames")...)
}

// segments writes the segments (segmentRows).
func (f *File) segments(e *encoder) {
	rows := f.segmentRows()
	e.emptyList()
	e.batches(len(rows), func(i int) {
		e.emptyDict()
		e.mark()
		e.items(rows[i].pairs())
		e.str("blocks")
		e.emptyList()
		blocks := rows[i].blocks
		e.batches(len(blocks), func(k int) {
			e.emptyDict()
			e.mark()
			e.items(blocks[k].pairs())
			e.b('u')
		})
		e.b('u')
	})
}

// items writes key, value items of a dict being written.
func (e *encoder) items(items []item) {
	for _, it := range items {
		e.value(it.key, 0)
		e.value(it.value, 0)
	}
}

// orEmpty is v, or the shared empty list for none.
func orEmpty(v any) any {
	if v == nil {
		return emptyList
	}
	return v
}

// events writes a device trace.
func (e *encoder) events(events []Event) {
	e.emptyList()
	e.batches(len(events), func(i int) {
		e.emptyDict()
		e.mark()
		e.rest(events[i].asDict())
		e.b('u')
	})
}

// batchSize is how many items one APPENDS or SETITEMS takes, as
// CPython's pickler batches them: the reader's stack stays small.
const batchSize = 1000

// batches writes n list items, item(i) writing the i-th, in batches
// after the EMPTY_LIST already written.
func (e *encoder) batches(n int, item func(i int)) {
	for from := 0; from < n; from += batchSize {
		if e.proto2 && n-from == 1 {
			item(from)
			e.b('a') // APPEND
			return
		}
		e.mark()
		for i := from; i < min(n, from+batchSize); i++ {
			item(i)
		}
		e.b('e')
	}
}

// rest writes a kept dict's items but those named.
func (e *encoder) rest(d *dict, but ...string) { e.items(restItems(d, but...)) }

// restItems are a kept dict's items but those named (none for nil).
func restItems(d *dict, but ...string) []item {
	if d == nil {
		return nil
	}
	return d.without(but...).items
}

// encoder writes plain data as protocol 4 opcodes. Strings and the
// containers kept from a read are memoized, so that what the input
// shared is written once and fetched after.
type encoder struct {
	w       *bufio.Writer
	err     error
	memo    map[any]uint32
	strs    map[string]uint32
	next    uint32
	writing map[any]bool // containers being written: one met again contains itself
	scratch [10]byte
	// proto2 writes protocol 2 as CPython's pickler does (WriteObjects):
	// BINPUT memo, BINUNICODE, BININT2, the shortest LONG1, tuples
	// memoized, a batch of one item without its MARK.
	proto2 bool
}

func newEncoder(w io.Writer) *encoder {
	return &encoder{w: bufio.NewWriterSize(w, 256<<10), memo: map[any]uint32{}, strs: map[string]uint32{}, writing: map[any]bool{}}
}

func (e *encoder) b(bs ...byte) {
	if e.err == nil {
		_, e.err = e.w.Write(bs)
	}
}

func (e *encoder) mark()      { e.b('(') }
func (e *encoder) emptyDict() { e.b('}') }
func (e *encoder) emptyList() { e.b(']') }

// memoize stores the value just written as the next memo entry.
func (e *encoder) memoize() uint32 {
	switch {
	case !e.proto2:
		e.b(0x94) // MEMOIZE
	case e.next < 256:
		e.b('q', byte(e.next)) // BINPUT
	default:
		e.scratch[0] = 'r' // LONG_BINPUT
		binary.LittleEndian.PutUint32(e.scratch[1:], e.next)
		e.b(e.scratch[:5]...)
	}
	e.next++
	return e.next - 1
}

// get fetches memo entry i.
func (e *encoder) get(i uint32) {
	if i < 256 {
		e.b('h', byte(i))
		return
	}
	e.scratch[0] = 'j'
	binary.LittleEndian.PutUint32(e.scratch[1:], i)
	e.b(e.scratch[:5]...)
}

// maxWriteDepth bounds how deep kept data nests when written.
const maxWriteDepth = 64

func (e *encoder) value(v any, depth int) {
	if depth > maxWriteDepth {
		if e.err == nil {
			e.err = fmt.Errorf("pickle: data nested deeper than %d levels", maxWriteDepth)
		}
		return
	}
	switch v := v.(type) {
	case nil:
		e.b('N')
	case bool:
		if v {
			e.b(0x88)
		} else {
			e.b(0x89)
		}
	case int:
		e.int(int64(v))
	case int64:
		e.int(v)
	case uint64:
		if v > math.MaxInt64 {
			e.long(binary.LittleEndian.AppendUint64(nil, v), true)
			return
		}
		e.int(int64(v))
	case *bigInt:
		e.long(v.le, false)
	case *big.Int:
		e.long(bigLE(v), false)
	case float64:
		e.scratch[0] = 'G'
		binary.BigEndian.PutUint64(e.scratch[1:], math.Float64bits(v))
		e.b(e.scratch[:9]...)
	case string:
		e.str(v)
	case pyBytes:
		e.counted('C', 'B', []byte(v))
	case tuple:
		e.tuple(v, depth)
	case Stack:
		e.value(v.value(), depth)
	case *list, *dict:
		e.container(v, depth)
	default:
		if e.object(v, depth) {
			return
		}
		if e.err == nil {
			e.err = fmt.Errorf("pickle: cannot write a %T", v)
		}
	}
}

func (e *encoder) tuple(t tuple, depth int) {
	switch len(t) {
	case 0:
		e.b(')')
		return
	case 1, 2, 3:
		for _, x := range t {
			e.value(x, depth+1)
		}
		e.b(0x84 + byte(len(t))) // TUPLE1..3
		if e.proto2 {
			e.memoize()
		}
		return
	}
	e.mark()
	for _, x := range t {
		e.value(x, depth+1)
	}
	e.b('t')
	if e.proto2 {
		e.memoize()
	}
}

// container writes a list or dict once; again, it is fetched.
func (e *encoder) container(v any, depth int) {
	e.shared(v, depth, func() {
		switch c := v.(type) {
		case *list:
			e.emptyList()
			e.memo[v] = e.memoize()
			e.batches(len(c.items), func(i int) { e.value(c.items[i], depth+1) })
		case *dict:
			e.emptyDict()
			e.memo[v] = e.memoize()
			e.setItems(c.items, depth)
		}
	})
}

// setItems writes a dict's items, in batches, after the dict.
func (e *encoder) setItems(items []item, depth int) {
	for from := 0; from < len(items); from += batchSize {
		if e.proto2 && len(items)-from == 1 {
			e.value(items[from].key, depth+1)
			e.value(items[from].value, depth+1)
			e.b('s') // SETITEM
			return
		}
		e.mark()
		for _, it := range items[from:min(len(items), from+batchSize)] {
			e.value(it.key, depth+1)
			e.value(it.value, depth+1)
		}
		e.b('u')
	}
}

// str writes a string, memoized: the keys of a million events are
// written once each.
func (e *encoder) str(s string) {
	if i, ok := e.strs[s]; ok {
		e.get(i)
		return
	}
	e.text(s)
	e.strs[s] = e.memoize()
}

// text writes a string's opcode: SHORT_BINUNICODE where it fits, or in
// protocol 2 BINUNICODE always.
func (e *encoder) text(s string) {
	if e.proto2 {
		e.scratch[0] = 'X'
		binary.LittleEndian.PutUint32(e.scratch[1:], uint32(len(s)))
		e.b(e.scratch[:5]...)
		e.b([]byte(s)...)
		return
	}
	e.counted(0x8c, 'X', []byte(s))
}

// counted writes bytes after their length: short (one byte of length)
// or long (four).
func (e *encoder) counted(short, long byte, b []byte) {
	if len(b) < 256 {
		e.b(short, byte(len(b)))
	} else {
		e.scratch[0] = long
		binary.LittleEndian.PutUint32(e.scratch[1:], uint32(len(b)))
		e.b(e.scratch[:5]...)
	}
	e.b(b...)
}

// int writes an integer in the shortest form: BININT1, BININT or LONG1.
func (e *encoder) int(v int64) {
	switch {
	case v >= 0 && v < 256:
		e.b('K', byte(v))
	case e.proto2 && v >= 0 && v < 1<<16:
		e.b('M', byte(v), byte(v>>8)) // BININT2
	case e.proto2 && (v < math.MinInt32 || v > math.MaxInt32):
		e.long(shortestLE(v), false)
	case v >= math.MinInt32 && v <= math.MaxInt32:
		e.scratch[0] = 'J'
		binary.LittleEndian.PutUint32(e.scratch[1:], uint32(int32(v)))
		e.b(e.scratch[:5]...)
	default:
		e.long(binary.LittleEndian.AppendUint64(nil, uint64(v)), false)
	}
}

// long writes LONG1 of little-endian two's complement bytes; unsigned
// ones get a zero byte so that they stay positive.
func (e *encoder) long(le []byte, unsigned bool) {
	if unsigned && len(le) > 0 && le[len(le)-1]&0x80 != 0 {
		le = append(le, 0)
	}
	if len(le) > 255 {
		e.scratch[0] = 0x8b // LONG4
		binary.LittleEndian.PutUint32(e.scratch[1:], uint32(len(le)))
		e.b(e.scratch[:5]...)
	} else {
		e.b(0x8a, byte(len(le)))
	}
	e.b(le...)
}

// Pair is one key and value of a Python dict in Objects' form.
type Pair struct{ Key, Value any }

// Tuple is a Python tuple in Objects' form.
type Tuple []any

// Objects is the file as the Python objects its pickle holds (what
// torch.cuda.memory._snapshot() returns, and _dump_snapshot pickles):
// a dict as its Pairs in order, a list as []any, a tuple as Tuple, ints
// as int64, uint64 or *big.Int, bytes as []byte, floats, strs, bools and
// None (nil).
func (f *File) Objects() any {
	top := &dict{}
	segs := &list{}
	for _, r := range f.segmentRows() {
		d := &dict{items: r.pairs()}
		blocks := &list{}
		for _, b := range r.blocks {
			blocks.items = append(blocks.items, &dict{items: b.pairs()})
		}
		d.items = append(d.items, item{"blocks", blocks})
		segs.items = append(segs.items, d)
	}
	top.items = append(top.items, item{"segments", segs})
	traces := &list{}
	for range f.Device {
		traces.items = append(traces.items, &list{})
	}
	events := &list{items: make([]any, len(f.Events))}
	for i, ev := range f.Events {
		events.items[i] = ev.asDict()
	}
	traces.items = append(traces.items, events)
	top.items = append(top.items, item{"device_traces", traces}, item{"allocator_settings", f.settings()})
	if f.From == nil || f.From.rest.get("external_annotations") == nil {
		top.items = append(top.items, item{"external_annotations", &list{}})
	}
	if f.From != nil {
		top.items = append(top.items, restItems(f.From.rest, "allocator_settings")...)
	}
	return exported(top)
}

// exported is a value of the pickle's plain form in Objects' form.
func exported(v any) any {
	switch v := v.(type) {
	case *dict:
		pairs := make([]Pair, len(v.items))
		for i, it := range v.items {
			pairs[i] = Pair{exported(it.key), exported(it.value)}
		}
		return pairs
	case *list:
		items := make([]any, len(v.items))
		for i, x := range v.items {
			items[i] = exported(x)
		}
		return items
	case tuple:
		items := make(Tuple, len(v))
		for i, x := range v {
			items[i] = exported(x)
		}
		return items
	case Stack:
		return exported(v.value())
	case int:
		return int64(v)
	case pyBytes:
		return []byte(v)
	case *bigInt:
		return v.value()
	}
	return v
}

// value is the integer.
func (b *bigInt) value() *big.Int {
	be := make([]byte, len(b.le))
	for i, c := range b.le {
		be[len(be)-1-i] = c
	}
	n := new(big.Int).SetBytes(be)
	if len(be) > 0 && be[0]&0x80 != 0 { // two's complement: negative
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(be))))
	}
	return n
}
