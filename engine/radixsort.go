package engine

import (
	"fmt"
	"math/bits"
)

// The sort in index_put_ with accumulate (the backward of x[idx] and of
// x[mask]): PyTorch sorts the n flattened int64 indices, each divided by
// the slice (the elements after the indexed dimensions), with their
// positions as int64 values, by CUB's radix sort over only the bits of
// the largest key it can meet, (numel - 1) / slice, at least 1 (x[:, idx]
// of a [4, 65536] x sorts 18 bits though its indices need 16).
// scripts/probe_radix_sort.py measured CUB's scratch on the H200 in 250
// sorts of 90 counts from 2300 to 2^24, keys of 8 to 25 bits, by index
// tensors, two indices and masks (testdata/pyrules/radix_sort_probe.txt;
// TestRadixSortScratchTable checks every row): 1 byte for
// one tile, up to 2304 indices; past it the onesweep sort's
// (onesweepScratch: a pass per 8 bits, a tile of 4608 pairs).

// maxOneTileSort is the most int64 indices CUB's radix sort sorts in one
// tile on the H200 (scripts/probe_index_sort.py, probe_radix_sort.py).
const maxOneTileSort = 2304

// maxSortProbed is the most indices, and maxSortBits the most key bits,
// radix_sort_probe.txt covers in their pass count (25 bits measured: a
// fourth pass, as for every count up to 32); more are refused.
const (
	maxSortProbed = 1 << 24
	maxSortBits   = 32
)

// sortKeyBits is the bits PyTorch's get_num_bits gives for keys up to
// maxKey: those of maxKey, and 1 for 0.
func sortKeyBits(maxKey uint64) uint64 {
	return uint64(max(bits.Len64(maxKey), 1))
}

// radixSortScratch is CUB's scratch for index_put_'s sort of n int64
// keys up to maxKey with int64 values: 1 byte for one tile, up to
// maxOneTileSort; else the onesweep sort's, a pass per 8 of
// sortKeyBits(maxKey).
func radixSortScratch(n, maxKey uint64) uint64 {
	if n <= maxOneTileSort {
		return 1
	}
	return onesweepScratch(n, 8, ceilDiv(sortKeyBits(maxKey), 8), onesweepTile[8], true)
}

// indexSortScratch is radixSortScratch for index_put_ of n indices into
// a tensor of shape along its dimensions before after (the slice is
// those from after on); an error where the sort is more than
// radix_sort_probe.txt measured, or of indices into no elements.
func indexSortScratch(n uint64, shape []int64, after int) (uint64, error) {
	slice, all := numel(shape[after:]), numel(shape)
	if n <= maxOneTileSort {
		return 1, nil
	}
	if all == 0 || n > maxSortProbed || sortKeyBits((all-1)/slice) > maxSortBits {
		return 0, NotModelledError(fmt.Sprintf("the backward of indexing by %d indices into %d elements (CUB's radix sort was measured up to %d indices and %d-bit keys)", n, all, maxSortProbed, maxSortBits))
	}
	return radixSortScratch(n, (all-1)/slice), nil
}
