package engine

import (
	"slices"
)

// Packed sequences (torch.nn.utils.rnn), as memory, as PyTorch 2.11's
// native/PackedSequence.cpp makes them. _pack_padded_sequence walks the
// lengths from the shortest and, for each longer length, takes the
// block of steps not taken yet for the sequences that reach it: a
// dense copy of the block when the slice is not contiguous (the first
// block of a time-major batch taken whole is read in place), then the
// packed data, one cat of the blocks (freed after it), and batch_sizes,
// an int64 tensor on the host. Its backward makes the input's gradient,
// zeros of its shape filled block by block (a transposed view of it for
// batch_first). _pad_packed_sequence makes the padded output (full of the
// padding value), copies each block in (under autograd through a slice
// and a view of the data, CopySlices over the output: copyBlocks) and
// gives the lengths on the host; pad_sequence makes the padded batch and
// copies each sequence in. The tool needs the lengths' values (a tensor
// of values it knows, as torch.as_tensor of a list makes). Recorded and
// held (testdata/pyrules/rnn_packed.py and train_lstm_packed.py, every
// statement matching: both layouts, sorted and not, forward and
// backward); pad_sequence's backward through its copies (PyTorch's
// CopySlices), not recorded, is estimated as one gradient of each
// input's shape.

func init() {
	declare(
		&OpDef{Name: "_pack_padded_sequence", Function: true,
			Params: []Param{input, {Name: "lengths", Kind: TensorParam}, {Name: "batch_first", Kind: BoolParam}},
			Memory: "a dense copy of each block of steps not contiguous, the packed data (their cat) and batch_sizes on the host; backward zeros of the input's shape",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				ts, err := s.packPadded(a.Tensor(0), a.Tensor(1), a.Bool(2))
				return ts, true, err
			}},
		&OpDef{Name: "_pad_packed_sequence", Function: true,
			Params: []Param{{Name: "data", Kind: TensorParam}, {Name: "batch_sizes", Kind: TensorParam}, {Name: "batch_first", Kind: BoolParam},
				{Name: "padding_value", Kind: NumberParam}, {Name: "total_length", Kind: IntParam}},
			Memory: "the padded output, full of padding_value, the blocks copied in; the lengths on the host; backward, each block's copy last first: the output's gradient, the block's and zeros for it, then zeros of the data's shape",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				ts, err := s.padPacked(a.Tensor(0), a.Tensor(1), a.Bool(2), a.Int(4))
				return ts, true, err
			}},
		&OpDef{Name: "_pad_sequence", Function: true,
			Params: []Param{{Name: "sequences", Kind: TensorsParam}, {Name: "batch_first", Kind: BoolParam, Default: "False"},
				{Name: "padding_value", Kind: NumberParam, Default: "0.0"}, {Name: "padding_side", Kind: StringParam, Default: "'right'"}},
			Memory: "the padded batch, full of padding_value, each sequence copied in",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.padSequence(a.TensorList(0), a.Bool(1))
			}},
	)
}

// hostInts are the values of a tensor of integers on the host, which
// op needs.
func hostInts(op, what string, t *Tensor) ([]int64, error) {
	if t.Device().CUDA || t.DType.Name != "int64" {
		return nil, Errorf(RuntimeError, "%s: %s must be a CPU int64 tensor, but got %s on %s", op, what, t.DType.Name, t.Device())
	}
	vals, ok := t.Values()
	if !ok {
		return nil, Refusef(NotImplementedError, "%s of %s whose values the tool does not know (it needs them: make them with torch.as_tensor of a list, or values it computed)", op, what)
	}
	out := make([]int64, len(vals))
	for i, v := range vals {
		out[i] = int64(v)
	}
	return out, nil
}

// hostIntTensor is a new int64 tensor on the host of values vals.
func (s *Session) hostIntTensor(vals []int64) (*Tensor, error) {
	t, err := s.alloc([]int64{int64(len(vals))}, DTypes["int64"], CPU)
	if err != nil {
		return nil, err
	}
	kv := make(knownValues, len(vals))
	for i, v := range vals {
		kv[i] = float64(v)
	}
	t.st.vals = kv
	return t, nil
}

// packPadded is _pack_padded_sequence: the data and batch_sizes.
func (s *Session) packPadded(in, lengthsT *Tensor, batchFirst bool) ([]*Tensor, error) {
	const op = "_pack_padded_sequence"
	if in.Numel() == 0 {
		return nil, Errorf(RuntimeError, "Cannot pack empty tensors.")
	}
	lengths, err := hostInts(op, "lengths", lengthsT)
	if err != nil {
		return nil, err
	}
	x := in
	if batchFirst {
		x = s.Transpose(in, 0, 1)
		defer s.dropTensor(x)
	}
	batch := x.Shape[1]
	switch {
	case int64(len(lengths)) != batch:
		return nil, Errorf(RuntimeError, "Expected `len(lengths)` to be equal to batch_size, but got %d (batch_size=%d)", len(lengths), batch)
	case lengths[batch-1] <= 0:
		return nil, Errorf(RuntimeError, "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0")
	}
	for i := batch - 1; i > 0; i-- {
		if lengths[i] > lengths[i-1] {
			return nil, Errorf(RuntimeError, "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if you do not need ONNX exportability.")
		}
	}
	batchSizes := make([]int64, 0, lengths[0])
	var blocks []*Tensor // the steps, each a copy or a view
	defer func() { dropAll(s, blocks) }()
	tokens, prev := int64(0), int64(0)
	strides := x.Strides()
	for i := int64(0); i < batch; i++ {
		l := lengths[batch-1-i]
		if l <= prev {
			continue
		}
		b := batch - i
		shape := slices.Clone(x.Shape)
		shape[0], shape[1] = l-prev, b
		if contiguous(shape, strides) {
			blocks = append(blocks, restrided(x, shape, strides, x.offset+uint64(prev*strides[0])))
		} else {
			c, err := s.alloc(shape, x.DType, x.Device())
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, c)
		}
		for range l - prev {
			batchSizes = append(batchSizes, b)
		}
		tokens += (l - prev) * b
		prev = l
	}
	bs, err := s.hostIntTensor(batchSizes)
	if err != nil {
		return nil, err
	}
	data, err := s.alloc(append([]int64{tokens}, x.Shape[2:]...), x.DType, x.Device())
	if err != nil {
		s.dropTensor(bs)
		return nil, err
	}
	shape, dt, dev := slices.Clone(in.Shape), in.DType, in.Device()
	s.record("PackPaddedSequenceBackward0", data, []*Tensor{in}, []*Tensor{bs}, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		zs := slices.Clone(shape)
		if batchFirst {
			zs[0], zs[1] = zs[1], zs[0]
		}
		z, err := s.zeros(zs, dt, dev)
		if err != nil || !batchFirst {
			return []*Tensor{z}, err
		}
		t := s.Transpose(z, 0, 1)
		s.dropTensor(z)
		t.view = false
		return []*Tensor{t}, nil
	})
	return []*Tensor{data, bs}, nil
}

// padPacked is _pad_packed_sequence: the padded output and the lengths.
func (s *Session) padPacked(data, batchSizesT *Tensor, batchFirst bool, total int64) ([]*Tensor, error) {
	batchSizes, err := hostInts("_pad_packed_sequence", "batch_sizes", batchSizesT)
	if err != nil {
		return nil, err
	}
	if len(batchSizes) == 0 {
		return nil, Errorf(RuntimeError, "_pad_packed_sequence: empty batch_sizes")
	}
	steps := int64(len(batchSizes))
	if total > 0 {
		if total < steps {
			return nil, Errorf(RuntimeError, "Expected total_length to be at least the length of the longest sequence in input, but got total_length=%d and max sequence length being %d", total, steps)
		}
		steps = total
	}
	batch := batchSizes[0]
	lengths := make([]int64, batch)
	for i, b := range batchSizes {
		for j := range b {
			lengths[j] = int64(i) + 1
		}
	}
	out, err := s.zeros(append([]int64{steps, batch}, data.Shape[1:]...), data.DType, data.Device())
	if err != nil {
		return nil, err
	}
	lt, err := s.hostIntTensor(lengths)
	if err != nil {
		s.dropTensor(out)
		return nil, err
	}
	if needsGraph(s, []*Tensor{data}) {
		if err := s.copyBlocks(out, data, batchSizes); err != nil {
			s.dropTensor(lt)
			return nil, err
		}
	}
	if batchFirst {
		t := s.Transpose(out, 0, 1)
		s.recordPermute("TransposeBackward0", t, out, swapped(len(out.Shape), 0, 1))
		s.dropTensor(out)
		out = t
	}
	return []*Tensor{out, lt}, nil
}

// copyBlocks is _pad_packed_sequence's copies under autograd: for each
// run of steps of one batch size, in order, the run's rows of data (a
// slice, SliceBackward0, viewed as [steps, batch, ...], ViewBackward0)
// copied into out's [steps, :batch] (CopySlices over out). Backward
// goes through them last first: each copy's base gradient and the
// slice's clone, the zeros for what the copy overwrote (none for the
// first, out having no graph before it), and each slice's gradient
// (zeros of data's shape), added into the first (rnn_packed.py lines
// 18 and 30 recorded them).
func (s *Session) copyBlocks(out, data *Tensor, batchSizes []int64) error {
	steps := int64(len(batchSizes))
	off, prevStep, prevBatch := int64(0), int64(0), batchSizes[0]
	for i := int64(0); i <= steps; i++ {
		b := int64(0)
		if i < steps {
			b = batchSizes[i]
		}
		if b == prevBatch {
			continue
		}
		n := prevBatch * (i - prevStep)
		rows, err := s.NarrowDim(data, 0, off, n)
		if err != nil {
			return err
		}
		block, err := s.View(rows, append([]int64{i - prevStep, prevBatch}, data.Shape[1:]...))
		s.dropTensor(rows)
		if err != nil {
			return err
		}
		s.copySlices(out, block)
		off, prevStep, prevBatch = off+n, i, b
	}
	return nil
}

// padSequence is pad_sequence's kernel: the padded batch, each sequence
// copied in.
func (s *Session) padSequence(seqs []*Tensor, batchFirst bool) (*Tensor, error) {
	if len(seqs) == 0 {
		return nil, Errorf(RuntimeError, "received an empty list of sequences")
	}
	made := func(...*Tensor) {}
	if needsGraph(s, seqs) { // its backward through the copies, not recorded
		var err error
		made, err = s.estimateOp("torch.nn.utils.rnn.pad_sequence", "%s: its backward through the copies (PyTorch's CopySlices) estimated as one gradient of each input's shape, %s", argShapes(Args{seqs}), recording(""))
		if err != nil {
			return nil, err
		}
	}
	longest := int64(0)
	for _, t := range seqs {
		longest = max(longest, t.Shape[0])
	}
	shape := append([]int64{longest, int64(len(seqs))}, seqs[0].Shape[1:]...)
	if batchFirst {
		shape[0], shape[1] = shape[1], shape[0]
	}
	out, err := s.zeros(shape, seqs[0].DType, seqs[0].Device())
	if err != nil {
		return nil, err
	}
	s.record("torch::autograd::CopySlices", out, seqs, nil, gradPerInput)
	made(out)
	return out, nil
}
