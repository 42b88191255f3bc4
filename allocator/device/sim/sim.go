// Package sim provides a simulated GPU: a fake address space of a chosen
// size that hands out addresses in the pattern the CUDA driver does, so
// that the caching allocator above it breaks ties between equal-size
// blocks, and releases segments, in the same order as on a real GPU.
package sim

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// H200Total is the total memory of an NVIDIA H200 as cuDeviceTotalMem
// reports it.
const H200Total = 150109880320

// The address pattern of cuMemAlloc, measured on an H200 (driver
// 580.159.04) with scripts/probe_torch.py and the segment addresses in
// testdata/traces (scripts/record_traces.py):
//
//   - Sizes are rounded up to 2 MiB.
//   - The driver reserves virtual address space in chunks that are a
//     multiple of 32 MiB; a new allocation sits at the bottom of its chunk
//     and the rest of the chunk is a gap that later allocations fill.
//   - A request first goes into a gap: the chunks are searched from the
//     most recently reserved back; in a chunk it takes the smallest hole
//     that holds it (the lowest of equal ones).
//   - Otherwise a new chunk is carved from the top of the highest free
//     address range that is strictly larger than the chunk.
//   - A chunk whose allocations are all freed is returned to the free
//     address space, merging with free neighbours.
//   - The CUDA context leaves two gaps in chunks of its own (the same in a
//     bare driver process and in PyTorch's): relative to the first, a
//     2 MiB gap at 0 in the newer chunk (above the context's local
//     memory), a 24 MiB gap at +74 MiB in an
//     older one; fresh address space starts 414 MiB below the first.
//   - A chunk's top is on a 32 MiB boundary of the address space, which
//     the context's 2 MiB gap sits 2 MiB below (the first segment of
//     every recording in testdata/segments is 8 MiB above one).
const (
	vaBase    = 0x7f0000000000 // where the context's 2 MiB gap is
	vaAnchor  = vaBase + granule
	vaBottom  = 0x100000000
	granule   = 2 << 20
	chunkUnit = 32 << 20
	mib       = 1 << 20
)

// What the driver and the process take for themselves as a PyTorch
// program runs (testdata/segments/README.md, from the H200's recordings
// with /proc/self/maps; the engine reports the events, Observe):
//
//   - The context's local memory is the 414 MiB below its 2 MiB gap,
//     in the same chunk. The first kernel other than PyTorch's random
//     number generators grows it: the driver takes 2 MiB by its rule,
//     reserves a new 512 MiB chunk as any other, takes its lowest
//     504 MiB and 2 MiB host-mapped above them (its top 6 MiB are a
//     gap), and gives back the old 414 MiB. Where its 2 MiB went to the
//     context's 2 MiB gap (no newer chunk had a hole), the old local
//     memory and the gap make one hole of the context's chunk that
//     later allocations fill from the bottom up (after every newer
//     chunk's holes, before the older chunk's 24 MiB gap:
//     testdata/segments/h100/nanogpt_bf16_accum.jsonl, line 83); where
//     they went to a newer chunk's hole, the context's chunk is empty
//     and given back whole, and new chunks are carved from its top
//     (h100/probe_old_lmem_*, h100/train_sweep line 64). The 2 MiB
//     also explain why the first reduction's 10 MiB skipped a hole of
//     exactly 10 MiB (h100/probe_piece_hole_*, h100/ckpt_gpt_train) and
//     sat 2 MiB above a 20 MiB segment's chunk (amp_linear, train_sweep).
//   - A cuBLAS handle takes 64 MiB by the driver's rule, before the
//     workspace PyTorch allocates for it: the program's thread makes
//     one at its first product, autograd's backward thread another. The
//     first handle takes 2 MiB more.
//   - The first reduction kernel or embedding lookup (index_select's
//     kernel) takes 10 MiB (8.25 MiB of it mapped to the host).
//   - The first torch.optim optimizer and the first activation
//     checkpoint map a 142 MiB shared library into the process, at the
//     top of the highest free range (on a 2 MiB boundary): the driver's
//     next chunk goes below it.
//   - cuDNN's first handle takes 2 MiB where no kernel has grown the
//     local memory yet (a convolution the program's first kernel), as
//     any other request: siamese_triplet's in the context's 24 MiB gap,
//     its first segment 2 MiB higher (testdata/segments/h100), and
//     vit_train's in the 12 MiB gap of its newest chunk, so that its
//     12 MiB segment after the cuBLAS workspace goes to the local memory
//     (its recording with addresses of 2026-12-06). What cuDNN takes
//     once the local memory has grown (6 MiB, 2 of them host-mapped, in
//     dcgan_train and cnn_net) is not modelled, nor where the libraries
//     it maps at its first use go (about 350 MiB): below the new local
//     memory, which moves later chunks down but not their order, and
//     into the old local memory where the driver gave it back
//     (train_sweep's line 64), where the tool would carve chunks: a
//     range carved there after cuDNN's first handle is unplaced
//     (Unplaced), and the figures after it are estimated.
//   - Where the host mapped memory before the context was made (a model
//     built on the host), the driver's chunks may go into the room its
//     mappings leave above the context (testdata/segments/README.md),
//     which is not modelled: a chunk smaller than that room (HostRoom)
//     is unordered, and a tie of best fit between blocks of two chunks,
//     one of them unordered, is unplaced (Tie).
const (
	lmemOld    = 414 * mib
	lmemNew    = 512 * mib
	lmemTaken  = 506 * mib
	blasHandle = 64 * mib
	reduction  = 10 * mib
	library    = 142 * mib
)

type span struct{ start, size uint64 }

func (s span) end() uint64 { return s.start + s.size }

// chunk is a reserved range of address space and the allocations in it,
// sorted by address.
type chunk struct {
	span
	used   []span
	pinned bool // the CUDA context's own: never released
	// unordered: small enough for the room the host's mappings may leave
	// above the context (HostRoom), so that the driver's address of it,
	// above or below the others, is not known.
	unordered bool
}

// fit returns where size bytes go in c: the smallest free hole of the
// chunk that holds them (the lowest of equal ones), and the index in used
// to insert at.
func (c *chunk) fit(size uint64) (uint64, int, bool) {
	best, bestAt, bestIdx := uint64(0), uint64(0), -1
	at := c.start
	for i := 0; i <= len(c.used); i++ {
		end := c.end()
		if i < len(c.used) {
			end = c.used[i].start
		}
		if hole := end - at; hole >= size && (bestIdx < 0 || hole < best) {
			best, bestAt, bestIdx = hole, at, i
		}
		if i < len(c.used) {
			at = c.used[i].end()
		}
	}
	return bestAt, bestIdx, bestIdx >= 0
}

// Device is a simulated GPU. The zero value is not usable; call New.
type Device struct {
	total   uint64
	used    uint64 // bytes handed out, context included
	context uint64
	chunks  []*chunk // in the order they were reserved
	free    []span   // unreserved address space
	live    map[uint64]*chunk
	// reserved holds the address reservations of expandable segments:
	// start -> size.
	reserved map[uint64]uint64
	// mapped holds the granules of reservations backed by memory.
	mapped map[uint64]bool
	// grown, reduced, library and cudnn are the events observed that
	// happen once in a process, handles the cuBLAS handles made
	// (Observe).
	grown, reduced, library, cudnn bool
	handles                        int
	// hostRoom is how large the room the host's mappings may leave above
	// the context can be (HostRoom): a chunk smaller is unordered.
	hostRoom uint64
	// gaveBack is the context's chunk where it was empty when the local
	// memory grew, and given back; libraries the free ranges in it at
	// cuDNN's first handle, where cuDNN's libraries may lie (not
	// modelled); unplaced why the range carved last may be elsewhere on
	// the GPU (Unplaced).
	gaveBack  span
	libraries []span
	unplaced  error
	// ctx is the CUDA context's chunk that holds its local memory, its
	// lowest span until the local memory grows.
	ctx *chunk
}

// New returns a simulated device with total bytes of memory.
func New(total uint64) *Device {
	ctx := &chunk{span: span{vaBase - lmemOld, lmemOld + granule}, used: []span{{vaBase - lmemOld, lmemOld}}, pinned: true}
	return &Device{
		total:  total,
		free:   []span{{vaBottom, vaBase - lmemOld - vaBottom}},
		chunks: []*chunk{{span: span{vaBase + 74*mib, 24 * mib}, pinned: true}, ctx},
		ctx:    ctx,
		live:   make(map[uint64]*chunk),
	}
}

func roundUp(n, unit uint64) uint64 { return (n + unit - 1) / unit * unit }

// SetContextBytes counts n bytes as taken by the CUDA context: they are
// not free and not available to Malloc.
func (d *Device) SetContextBytes(n uint64) {
	d.used = d.used - d.context + n
	d.context = n
}

// Malloc implements device.Device.
func (d *Device) Malloc(size uint64) (uint64, error) {
	va := roundUp(size, granule)
	if size == 0 || d.used+va > d.total {
		return 0, fmt.Errorf("cudaMalloc(%d): %w", size, device.ErrOutOfMemory)
	}
	at, c, err := d.take(va)
	if err != nil {
		return 0, err
	}
	d.live[at] = c
	d.used += va
	return at, nil
}

// take places va bytes by the driver's rule: in a gap of the chunks,
// else at the bottom of a new chunk.
func (d *Device) take(va uint64) (uint64, *chunk, error) {
	for i := len(d.chunks) - 1; i >= 0; i-- {
		c := d.chunks[i]
		if at, j, ok := c.fit(va); ok {
			c.used = append(c.used, span{})
			copy(c.used[j+1:], c.used[j:])
			c.used[j] = span{at, va}
			return at, c, nil
		}
	}
	c, err := d.reserve(roundUp(va, chunkUnit))
	if err != nil {
		return 0, nil, err
	}
	c.used = append(c.used, span{c.start, va})
	return c.start, c, nil
}

// carve takes size bytes from the top of the highest free address range
// that is strictly larger than size (so no range is ever used up whole),
// the top brought down to a multiple of align above anchor; what lies
// above it stays free.
func (d *Device) carve(size, anchor, align uint64) (uint64, bool) {
	best, top := -1, uint64(0)
	for i, r := range d.free {
		t := anchor - roundUp(anchor-r.end(), align) // all free space lies below anchor
		if t > r.start && t-r.start > size && (best < 0 || r.start > d.free[best].start) {
			best, top = i, t
		}
	}
	if best < 0 {
		return 0, false
	}
	r := d.free[best]
	for _, l := range d.libraries {
		if top-size < l.end() && l.start < top {
			d.unplaced = errors.New("a new segment in a range where cuDNN's libraries may lie: it maps them (about 350 MiB, by the engines it loads) at its first use, part of them into the old local memory the driver gave back at the first kernel (its 2 MiB then went to a newer chunk's hole), which the simulated device does not model (testdata/segments/README.md)")
		}
	}
	d.free[best].size = top - size - r.start
	if top < r.end() {
		d.free = append(d.free, span{top, r.end() - top})
	}
	return top - size, true
}

// reserve carves a new chunk of size bytes.
func (d *Device) reserve(size uint64) (*chunk, error) {
	start, ok := d.carve(size, vaAnchor, chunkUnit)
	if !ok {
		return nil, fmt.Errorf("cudaMalloc: address space exhausted: %w", device.ErrOutOfMemory)
	}
	c := &chunk{span: span{start, size}, unordered: size < d.hostRoom}
	d.chunks = append(d.chunks, c)
	return c, nil
}

// Free implements device.Device. As cuMemFree, a null pointer is no
// error (testdata/driver_checks.json: "free of 0").
func (d *Device) Free(ptr uint64) error {
	if ptr == 0 {
		return nil
	}
	c, ok := d.live[ptr]
	if !ok {
		return fmt.Errorf("cudaFree(%#x): not a live allocation", ptr)
	}
	delete(d.live, ptr)
	for j, u := range c.used {
		if u.start == ptr {
			d.used -= u.size
			c.used = append(c.used[:j], c.used[j+1:]...)
			break
		}
	}
	if len(c.used) == 0 && !c.pinned {
		d.release(c)
	}
	return nil
}

// Observe implements device.Observer: what the driver and the process
// take for themselves (see the constants above). Their bytes are not
// counted as used: the preset's context stands for the driver's.
func (d *Device) Observe(e device.Event) {
	switch {
	case e == device.Kernel && !d.grown:
		d.grown = true
		d.take(granule)
		d.ctx.used = d.ctx.used[1:]
		if len(d.ctx.used) == 0 {
			d.release(d.ctx)
			d.gaveBack = d.ctx.span
		}
		if c, err := d.reserve(lmemNew); err == nil { // no room is no place to model
			c.used = append(c.used, span{c.start, lmemTaken})
		}
	case e == device.BLASHandle:
		d.take(blasHandle)
		if d.handles == 0 {
			d.take(granule)
		}
		d.handles++
	case e == device.Reduction && !d.reduced:
		d.reduced = true
		d.take(reduction)
	case e == device.Library && !d.library:
		d.library = true
		d.carve(library, vaAnchor, granule)
	case e == device.CuDNNHandle && !d.cudnn:
		d.cudnn = true
		if !d.grown {
			d.take(granule)
		}
		for _, f := range d.free { // where its libraries may go
			if lo, hi := max(f.start, d.gaveBack.start), min(f.end(), d.gaveBack.end()); lo < hi {
				d.libraries = append(d.libraries, span{lo, hi - lo})
			}
		}
	}
}

// Unplaced implements device.Observer: a range carved where cuDNN's
// libraries may lie (Observe) may not be where the driver puts it.
func (d *Device) Unplaced() error {
	err := d.unplaced
	d.unplaced = nil
	return err
}

// Tie implements device.Observer: where one of the two blocks lies in a
// chunk whose place among the others is not known (unordered), and the
// other in another chunk, the driver may have put them the other way
// round, and PyTorch's best fit taken the other.
func (d *Device) Tie(x, y uint64) {
	if d.hostRoom == 0 { // no chunk is unordered
		return
	}
	if cx, cy := d.chunkAt(x), d.chunkAt(y); cx != cy && (cx.isUnordered() || cy.isUnordered()) {
		d.unplaced = errors.New("best fit took one of two equal free blocks by their addresses, and one lies in a chunk the driver reserved after the model was built on the host: the host's mappings (its tensors, then freed, and its threads' malloc arenas) lie above the CUDA context, and the driver's chunks may go into the room they leave (testdata/segments/h100/module_convert line 32, train_sweep line 56), which the simulated device does not model, so PyTorch may have taken the other (testdata/segments/README.md)")
	}
}

// HostRoom implements device.Observer: a chunk reserved from now on
// that is smaller than n bytes may lie in the room the host's mappings
// leave above the context, which the device does not model (unordered).
func (d *Device) HostRoom(n uint64) { d.hostRoom = n }

// isUnordered reports whether c is a chunk and unordered.
func (c *chunk) isUnordered() bool { return c != nil && c.unordered }

// chunkAt is the chunk that holds address p, or nil (an address of an
// expandable segment's reservation).
func (d *Device) chunkAt(p uint64) *chunk {
	for _, c := range d.chunks {
		if p >= c.start && p < c.end() {
			return c
		}
	}
	return nil
}

// release returns an empty chunk's range to the free address space.
func (d *Device) release(c *chunk) {
	for i, x := range d.chunks {
		if x == c {
			d.chunks = append(d.chunks[:i], d.chunks[i+1:]...)
			break
		}
	}
	r := c.span
	kept := d.free[:0]
	for _, f := range d.free {
		switch {
		case f.end() == r.start:
			r.start, r.size = f.start, r.size+f.size
		case r.end() == f.start:
			r.size += f.size
		default:
			kept = append(kept, f)
		}
	}
	d.free = append(kept, r)
}

// ReserveAddress implements device.Device: the range is carved like a
// chunk, but holds no cudaMalloc allocations.
func (d *Device) ReserveAddress(size uint64) (uint64, error) {
	size = roundUp(size, granule)
	ptr, ok := d.carve(size, vaAnchor, granule)
	if !ok {
		return 0, fmt.Errorf("cuMemAddressReserve(%d): %w", size, device.ErrOutOfMemory)
	}
	if d.reserved == nil {
		d.reserved = map[uint64]uint64{}
	}
	d.reserved[ptr] = size
	return ptr, nil
}

// ReleaseAddress implements device.Device. As cuMemAddressFree, it
// refuses a range that is not one reservation whole, and a reservation
// with pages still mapped (testdata/driver_checks.json).
func (d *Device) ReleaseAddress(ptr, size uint64) error {
	if d.reserved[ptr] != roundUp(size, granule) {
		return fmt.Errorf("cuMemAddressFree(%#x, %d): CUDA_ERROR_INVALID_VALUE (not a reservation)", ptr, size)
	}
	for p := ptr; p < ptr+size; p += granule {
		if d.mapped[p] {
			return fmt.Errorf("cuMemAddressFree(%#x, %d): CUDA_ERROR_INVALID_VALUE (%#x is still mapped)", ptr, size, p)
		}
	}
	delete(d.reserved, ptr)
	d.release(&chunk{span: span{ptr, roundUp(size, granule)}})
	return nil
}

// MapPages implements device.Device. As cuMemMap, it refuses a range
// that is not a multiple of the granularity, or that does not start
// inside an address reservation (CUDA_ERROR_INVALID_VALUE), and a
// granule mapped already. The driver (testdata/driver_checks.json)
// accepted 2 granules mapped from a reservation's last one, running
// past its end, and refused a granule 64 past it: so the range's start
// is checked, not its end (how far past the end the driver goes along
// was not probed; the allocator never maps past one).
func (d *Device) MapPages(ptr, size uint64) error {
	if size%granule != 0 || ptr%granule != 0 {
		return fmt.Errorf("cuMemCreate(%d): CUDA_ERROR_INVALID_VALUE (not a multiple of the granularity)", size)
	}
	if !d.inReservation(ptr) {
		return fmt.Errorf("cuMemMap(%#x, %d): CUDA_ERROR_INVALID_VALUE (not inside an address reservation)", ptr, size)
	}
	for p := ptr; p < ptr+size; p += granule {
		if d.mapped[p] {
			return fmt.Errorf("cuMemMap(%#x, %d): CUDA_ERROR_INVALID_VALUE (%#x is mapped already)", ptr, size, p)
		}
	}
	if d.used+size > d.total {
		return fmt.Errorf("cuMemCreate(%d): %w", size, device.ErrOutOfMemory)
	}
	if d.mapped == nil {
		d.mapped = map[uint64]bool{}
	}
	for p := ptr; p < ptr+size; p += granule {
		d.mapped[p] = true
	}
	d.used += size
	return nil
}

// inReservation reports whether ptr lies inside an address reservation.
func (d *Device) inReservation(ptr uint64) bool {
	for start, n := range d.reserved {
		if ptr >= start && ptr < start+n {
			return true
		}
	}
	return false
}

// UnmapPages implements device.Device: the mapped granules of the range
// are unmapped, as the CUDA device unmaps each granule it mapped (one
// cuMemUnmap a granule); a range not on the granularity is refused.
func (d *Device) UnmapPages(ptr, size uint64) error {
	if size%granule != 0 || ptr%granule != 0 {
		return fmt.Errorf("cuMemUnmap(%#x, %d): CUDA_ERROR_INVALID_VALUE (not a multiple of the granularity)", ptr, size)
	}
	for p := ptr; p < ptr+size; p += granule {
		if d.mapped[p] {
			delete(d.mapped, p)
			d.used -= granule
		}
	}
	return nil
}

// Access checks that the n bytes at ptr, which a copy or a memset
// (cuMemcpy, cuMemsetD8) is about to touch, lie in this device's memory:
// inside one live allocation, or in mapped granules. The driver refuses
// any other range (cuMemcpy: CUDA_ERROR_INVALID_VALUE, as the H200 did
// for a 4 MB copy out of a 2 MB segment); the simulated device, which
// moves no bytes, refuses it too, so that a run fails where the real one
// would. call names the driver call in the error; a cuMemsetD32's
// address must be a multiple of 4, as the driver checks (other calls
// take any address: testdata/driver_checks.json).
func (d *Device) Access(call string, ptr, n uint64) error {
	if strings.HasPrefix(call, "cuMemsetD32") && ptr%4 != 0 {
		return fmt.Errorf("%s(%#x, %d bytes): CUDA_ERROR_INVALID_VALUE (not a multiple of 4)", call, ptr, n)
	}
	if n == 0 {
		return nil
	}
	for _, c := range d.chunks {
		if ptr < c.start || ptr >= c.end() {
			continue
		}
		j := sort.Search(len(c.used), func(j int) bool { return c.used[j].end() > ptr })
		if j < len(c.used) && c.used[j].start <= ptr && n <= c.used[j].end()-ptr {
			return nil
		}
	}
	if ptr+n > ptr && d.allMapped(ptr, n) {
		return nil
	}
	return fmt.Errorf("%s(%#x, %d bytes): CUDA_ERROR_INVALID_VALUE (not inside one allocation or mapped range of this device)", call, ptr, n)
}

// allMapped reports whether every granule of [ptr, ptr+n) is mapped.
func (d *Device) allMapped(ptr, n uint64) bool {
	for p := ptr - ptr%granule; p < ptr+n; p += granule {
		if !d.mapped[p] {
			return false
		}
	}
	return true
}

// MemGetInfo implements device.Device.
func (d *Device) MemGetInfo() (free, total uint64, err error) {
	return d.total - d.used, d.total, nil
}

// TotalMemory implements device.Device.
func (d *Device) TotalMemory() uint64 { return d.total }
