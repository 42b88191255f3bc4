package allocator

import "sort"

// A Stat is one memory_stats() figure with its four fields.
type Stat struct {
	Current, Peak, Allocated, Freed int64
}

// Increase adds n to the figure (an allocation, a segment): its peak
// follows.
func (s *Stat) Increase(n int64) {
	s.Current += n
	s.raisePeak()
	s.Allocated += n
}

// raisePeak raises the peak to the current value. A new peak is rare
// once a run warms up, so the test is a branch that is predicted, and
// no store is made when the peak stays.
func (s *Stat) raisePeak() {
	if s.Current > s.Peak {
		s.Peak = s.Current
	}
}

// Decrease takes n from the figure (a free).
func (s *Stat) Decrease(n int64) {
	s.Current -= n
	s.Freed += n
}

// Pool buckets of a StatArray, in PyTorch's order.
const (
	bucketAll = iota
	bucketSmall
	bucketLarge
	numBuckets
)

var bucketNames = [numBuckets]string{"all", "small_pool", "large_pool"}

// A StatArray is a Stat per bucket: all, small_pool, large_pool. On the
// allocator's hot path only the pool's bucket and the peak of all are
// kept; the rest of all is the sum of the pools, filled in by settle.
type StatArray [numBuckets]Stat

func (a *StatArray) increase(small bool, n int64) {
	a[poolBucket(small)].Increase(n)
	a.notePeakAll()
}

func (a *StatArray) decrease(small bool, n int64) {
	a[poolBucket(small)].Decrease(n)
}

// change applies a signed difference as PyTorch does: an increase or a
// decrease by its absolute value. It takes no branch on the sign (a
// free's merges make it a coin toss): a decrease leaves the peaks as they
// are, since a peak is never below its current value.
func (a *StatArray) change(small bool, n int64) {
	s := &a[poolBucket(small)]
	s.Current += n
	s.raisePeak()
	s.Allocated += max(n, 0)
	s.Freed += max(-n, 0)
	a.notePeakAll()
}

// notePeakAll raises all's peak to the pools' current sum, by a
// predicted branch as raisePeak.
func (a *StatArray) notePeakAll() {
	if c := a[bucketSmall].Current + a[bucketLarge].Current; c > a[bucketAll].Peak {
		a[bucketAll].Peak = c
	}
}

// settle fills in all's current, allocated and freed from the pools.
func (a *StatArray) settle() {
	s, l := &a[bucketSmall], &a[bucketLarge]
	all := &a[bucketAll]
	all.Current, all.Allocated, all.Freed = s.Current+l.Current, s.Allocated+l.Allocated, s.Freed+l.Freed
}

// settled returns a copy of s with every all bucket filled in.
func (s Stats) settled() Stats {
	for _, a := range s.arrays() {
		a.settle()
	}
	return s
}

// poolBucket is the bucket of a pool. Small and large pools take turns
// at random, so it is computed without a branch, which would be
// mispredicted about once an op.
func poolBucket(small bool) int { return bucketLarge - bit(small) }

// Stats is DeviceStats: everything torch.cuda.memory_stats() reports.
type Stats struct {
	Allocation         StatArray // blocks handed out
	Segment            StatArray // device segments
	Active             StatArray // handed-out blocks not yet returned
	InactiveSplit      StatArray // cached blocks of split segments
	AllocatedBytes     StatArray
	ReservedBytes      StatArray
	ActiveBytes        StatArray
	InactiveSplitBytes StatArray
	RequestedBytes     StatArray
	OversizeAllocs     Stat
	OversizeSegments   Stat
	NumAllocRetries    int64
	NumOOMs            int64
	NumSyncAllStreams  int64
	NumDeviceAlloc     int64
	NumDeviceFree      int64
	MaxSplitSize       int64 // -1 when unlimited; frozen at creation
}

func (s *Stats) arrays() [9]*StatArray {
	return [9]*StatArray{&s.Allocation, &s.Segment, &s.Active, &s.InactiveSplit,
		&s.AllocatedBytes, &s.ReservedBytes, &s.ActiveBytes, &s.InactiveSplitBytes, &s.RequestedBytes}
}

var arrayNames = [9]string{"allocation", "segment", "active", "inactive_split",
	"allocated_bytes", "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes"}

var fieldNames = [4]string{"current", "peak", "allocated", "freed"}

func (s *Stat) fields() [4]int64 { return [4]int64{s.Current, s.Peak, s.Allocated, s.Freed} }

func (s *Stats) resetPeak() {
	for _, a := range s.arrays() {
		a.settle()
		for i := range a {
			a[i].Peak = a[i].Current
		}
	}
	s.OversizeAllocs.Peak = s.OversizeAllocs.Current
	s.OversizeSegments.Peak = s.OversizeSegments.Current
}

func (s *Stats) resetAccumulated() {
	for _, a := range s.arrays() {
		for i := range a {
			a[i].Allocated, a[i].Freed = 0, 0
		}
	}
	for _, st := range []*Stat{&s.OversizeAllocs, &s.OversizeSegments} {
		st.Allocated, st.Freed = 0, 0
	}
	s.NumAllocRetries, s.NumOOMs, s.NumSyncAllStreams, s.NumDeviceAlloc, s.NumDeviceFree = 0, 0, 0, 0, 0
}

// StatKeys lists the memory_stats() keys in PyTorch's order (sorted).
var StatKeys = statKeys()

// NumStatKeys is the number of memory_stats() keys (122).
const NumStatKeys = 9*numBuckets*4 + 2*4 + 6

func statKeys() []string {
	var keys []string
	for _, a := range arrayNames {
		for _, b := range bucketNames {
			for _, f := range fieldNames {
				keys = append(keys, a+"."+b+"."+f)
			}
		}
	}
	for _, a := range []string{"oversize_allocations", "oversize_segments"} {
		for _, f := range fieldNames {
			keys = append(keys, a+"."+f)
		}
	}
	keys = append(keys, "num_alloc_retries", "num_ooms", "num_sync_all_streams",
		"num_device_alloc", "num_device_free", "max_split_size")
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return keys[order[i]] < keys[order[j]] })
	sorted := make([]string, len(keys))
	for i, o := range order {
		sorted[i] = keys[o]
	}
	statOrder = order
	return sorted
}

// statOrder[i] is the position, in the unsorted build order, of
// StatKeys[i].
var statOrder []int

// Values fills v with the memory_stats() values, in StatKeys order.
func (s *Stats) Values(v *[NumStatKeys]int64) {
	var raw [NumStatKeys]int64
	n := 0
	for _, a := range s.arrays() {
		for b := range a {
			f := a[b].fields()
			n += copy(raw[n:], f[:])
		}
	}
	for _, st := range []*Stat{&s.OversizeAllocs, &s.OversizeSegments} {
		f := st.fields()
		n += copy(raw[n:], f[:])
	}
	copy(raw[n:], []int64{s.NumAllocRetries, s.NumOOMs, s.NumSyncAllStreams,
		s.NumDeviceAlloc, s.NumDeviceFree, s.MaxSplitSize})
	for i, o := range statOrder {
		v[i] = raw[o]
	}
}
