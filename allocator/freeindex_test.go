package allocator

import "testing"

// seek finds the first entry at or above a key in a leaf of any fill, for
// keys equal to an entry, between two, below all and above all.
func TestSeekLeaf(t *testing.T) {
	for n := 0; n <= nodeCap; n++ {
		x := newLeaf()
		for i := range n {
			// Pairs of equal sizes, told apart by address.
			x.ents[i] = poolEntry{size: uint64(i/2+1) * 1024, ptr: uint64(i%2+1) << 20}
		}
		x.n = n
		ix := blockIndex{root: x, n: n}
		for size := uint64(0); size <= uint64(n/2+2)*1024; size += 512 {
			for _, ptr := range []uint64{0, 1 << 20, 2 << 20, 3 << 20} {
				want := 0
				for want < n && keyLess(x.ents[want].size, x.ents[want].ptr, &poolEntry{size: size, ptr: ptr}) {
					want++
				}
				if got := ix.seek(size, ptr, false); got.leaf != x || got.i != want {
					t.Fatalf("%d entries, key (%d, %#x): %d, want %d", n, size, ptr, got.i, want)
				}
			}
		}
	}
}
