package engine

import "fmt"

// The backward of indexing by a bool mask and of masked_select on the
// GPU, as PyTorch 2.11 runs them (testdata/pyrules/ops_mask_grad.py,
// ops_mask_grad_shapes.py, recorded with their allocator events on the
// H200).
//
// x[mask] is IndexBackward0, which saves the mask: its backward makes
// zeros of x's shape, nonzero of the mask again (made as the forward's),
// whose columns are the indices of index_put_ with accumulate
// (indexPutTemps: the flattened index made, then the nonzero freed, the
// sort's temporaries). With no true element only the zeros and the
// nonzero's temporaries remain. The sort's scratch is advanced
// indexing's (indexSortScratch), refused past what was measured.
//
// masked_select is MaskedSelectBackward0, which saves the input and the
// mask: its backward makes zeros of the broadcast shape, then
// masked_scatter_ of the gradient into them (maskedScatterTemps), and
// the result is summed down to the input's shape when the input was
// broadcast (autograd's sum_to, as validate_outputs does it).

// maxScanProbed is the most elements scripts/probe_mask_scan.py
// measured CUB's int64 scan at (testdata/pyrules/mask_scan_probe.txt).
const maxScanProbed = 1 << 22

// int64ScanTile is the elements one tile of CUB's DeviceScan of int64
// sums takes on the H200: the scratch grows every 32 tiles, at 14,337,
// 28,673, 43,009 and 57,345 elements (mask_scan_probe.txt).
const int64ScanTile = 448

// int64ScanScratch is CUB's DeviceScan scratch for n int64 sums, as
// mask_scan_probe.txt measured it for masked_scatter_'s exclusive sum of
// its mask (1 to maxScanProbed) and cub_scan_dtypes.jsonl.gz for a 1-d
// int64 cumsum (to scanDTypesProbed) alike: 8 bytes a tile of int64ScanTile elements and 768 more,
// each rounded up to 256 bytes, and 255 (cubTemporaries); 1,279 bytes
// up to 14,336 elements, 19,967 at 2^20.
func int64ScanScratch(n uint64) uint64 {
	return cubTemporaries(8*ceilDiv(n, int64ScanTile), 768)
}

// maskIndexBackward is IndexBackward0's backward for x[mask], a mask of
// shape mshape and values ms with count true elements.
func maskIndexBackward(mshape []int64, ms []float64, count uint64) backward {
	return indexBackward(count, make([]bool, len(mshape)), len(mshape), false, &maskKey{mshape, ms})
}

// maskedSelectBackward is MaskedSelectBackward0's backward for
// masked_select of an input (contiguous when dense) and a mask
// broadcast to shape, the mask copied dense by masked_scatter_ when
// maskCopied.
func maskedSelectBackward(shape []int64, dense, maskCopied bool) backward {
	return func(s *Session, _ *node, g *Tensor) ([]*Tensor, error) {
		dev, n := g.Device(), numel(shape)
		switch {
		case !dense:
			return []*Tensor{nil}, NotModelledError("the backward of torch.masked_select of a tensor that is not contiguous")
		case n == 0:
			return []*Tensor{nil}, NotModelledError("the backward of torch.masked_select of an empty tensor")
		case n > maxScanProbed:
			return []*Tensor{nil}, NotModelledError(fmt.Sprintf("the backward of torch.masked_select over more than %d elements (CUB's scan, measured up to there)", maxScanProbed))
		}
		grad, err := s.alloc(shape, g.DType, dev)
		if err != nil {
			return []*Tensor{grad}, err
		}
		return []*Tensor{grad}, s.maskedScatterTemps(g, n, maskCopied)
	}
}

// maskedScatterTemps allocates and frees what masked_scatter_ takes on
// the GPU to scatter source into a tensor of n elements: the mask's
// int64 offsets (8 bytes an element), the mask copied dense when
// maskCopied, CUB's scan scratch (made and freed), a dense copy of a
// source that is not contiguous; then the copy, the mask's and the
// offsets freed.
func (s *Session) maskedScatterTemps(source *Tensor, n uint64, maskCopied bool) error {
	dev := source.Device()
	offsets, err := s.newStorage(dev, 8*n, false)
	if err != nil {
		return err
	}
	defer s.release(offsets)
	if maskCopied {
		dense, err := s.newStorage(dev, n, false)
		if err != nil {
			return err
		}
		defer s.release(dense)
	}
	if err := s.libScratch(dev, "CUB's scan", int64ScanScratch(n)); err != nil {
		return err
	}
	if source.IsContiguous() || source.Numel() == 0 {
		return nil
	}
	copied, err := s.newStorage(dev, source.Bytes(), false)
	s.release(copied)
	return err
}
