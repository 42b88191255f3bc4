package allocator

import "math/bits"

// Sizes from c10/cuda/CUDACachingAllocator.cpp.
const (
	KiB = 1 << 10
	MiB = 1 << 20
	GiB = 1 << 30

	kMinBlockSize  = 512      // every block is a multiple of this
	kSmallSize     = 1 * MiB  // rounded sizes up to this use the small pool
	kSmallBuffer   = 2 * MiB  // small-pool segment size
	kMinLargeAlloc = 10 * MiB // below this, large requests get a large_segment_size segment
	kRoundLarge    = 2 * MiB  // larger segments are rounded up to this
	kLargeBuffer   = 20 * MiB // default large_segment_size
	maxRequest     = 1 << 60  // "Tried to allocate more than 1EB memory"
)

// roundSize is PyTorch's round_size: at least 512, a multiple of 512, or
// the next 1/d step of its power-of-two interval when
// roundup_power2_divisions gives d > 1 for it (never for n <= 512*d).
func (c *Config) roundSize(n uint64) uint64 {
	if d := c.divisions(n); d > 1 && n > kMinBlockSize*d {
		return nextDivision(n, d)
	}
	return roundBlocks(n)
}

// roundBlocks rounds n up to a whole number of 512-byte blocks, at least
// one.
func roundBlocks(n uint64) uint64 {
	return (max(n, kMinBlockSize) + kMinBlockSize - 1) &^ (kMinBlockSize - 1)
}

// divided reports whether roundup_power2_divisions rounds any size.
func (c *Config) divided() bool {
	for _, d := range c.RoundupDivisions {
		if d > 1 {
			return true
		}
	}
	return false
}

// divisions looks up the division count of n's power-of-two interval:
// index 0 is everything below 2 MiB, index i covers [2^(20+i), 2^(21+i)).
func (c *Config) divisions(n uint64) uint64 {
	// Sizes below and above 2 MiB come in random turns, so the index is
	// kept at 0 or above by a mask (d's sign), not a branch.
	d := bits.Len64(n) - 21
	return c.RoundupDivisions[min(d&^(d>>63), roundupIntervals-1)]
}

func nextDivision(n, d uint64) uint64 {
	if n&(n-1) == 0 {
		return n
	}
	p := uint64(1) << (bits.Len64(n) - 1)
	q := p >> (bits.Len64(d) - 1)
	if q == 0 {
		return 2 * p
	}
	f := n &^ (q - 1)
	if f == n {
		return n
	}
	return f + q
}

// allocationSize is get_allocation_size: the segment size asked of the
// device for a rounded request that no cached block serves.
func (c *Config) allocationSize(s uint64) uint64 {
	switch {
	case s <= kSmallSize:
		return kSmallBuffer
	case s < kMinLargeAlloc:
		return c.LargeSegmentSize
	default:
		return (s + kRoundLarge - 1) / kRoundLarge * kRoundLarge
	}
}
