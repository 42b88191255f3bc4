package engine

import (
	"math"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// What printing a CUDA tensor allocates: PyTorch 2.11's formatter
// (torch/_tensor_str.py) works on the tensor where it is, so print(t),
// str(t), repr(t), an f-string or format() of a tensor of one element or
// more takes small temporaries on its GPU and frees them, in this order
// (recorded: testdata/pyrules/print_cuda.py):
//
//   - over 1000 elements, get_summarized_data: a cat of each summarized
//     row's first and last three elements, a stack of each summarized
//     dimension's rows (its parts freed after it, last first);
//   - _Formatter: a copy when reshape(-1) cannot view the tensor (kept to
//     the end of __init__); for a floating dtype isfinite (abs, two
//     comparisons, their product), ne(0), their &, and masked_select of
//     the nonzero finite values (nonzero's count and CUB scratch, as
//     masks.go has them), then,
//     when any, their abs converted to double, its min and max, one ceil
//     and one comparison per value up to the first not whole, and the
//     scientific-notation test, whose last 1-byte comparison the
//     formatter keeps as its sci_mode until the print is done;
//   - tolist of each printed row: a row that is not contiguous is copied
//     on the GPU before it goes to the host.
//
// An integer or bool tensor's temporaries follow from its layout alone;
// a floating one's from its values (how many are nonzero and finite,
// which are whole, their range), so printing one whose values the tool
// does not know is an estimate where some values could change a figure.

// printTemps takes and frees on t's GPU what PyTorch's formatter does
// while printing t. A floating tensor whose values the tool does not
// know takes nothing: its print is refused unless no values could make
// it change a figure (unknownPrint).
func (s *Session) printTemps(t *Tensor) error {
	if s.reporting || t.number || !t.Device().CUDA || t.Numel() == 0 {
		return nil
	}
	return s.formatterTemps(t, false)
}

// Reporting runs f, the tool's own report calling the program's code (a
// module's extra_repr for a step's note), with prints of CUDA tensors
// taking nothing on their GPU: PyTorch's formatter runs where the
// program prints, not where the tool describes what it holds.
func (s *Session) Reporting(f func()) {
	was := s.reporting
	s.reporting = true
	defer func() { s.reporting = was }()
	f()
}

// formatterTemps is printTemps's work; worst takes the temporaries of the
// values that take the most where t's are unknown, instead of only
// adding them up (an estimate of unknownPrint's).
func (s *Session) formatterTemps(t *Tensor, worst bool) error {
	summarize := t.Numel() > summarizeOver
	shown, known := printedValues(t, summarize)
	float := isFloat(t.DType)
	p := &printAllocs{s: s, dev: t.Device(), size: t.DType.Size, dry: float && !known && !worst}
	if float && !known { // every value nonzero, finite and whole: the most any take
		n := t.Numel()
		if summarize {
			n = summarizedNumel(t.Shape)
		}
		shown = slices.Repeat([]float64{1}, int(n))
	}
	if float && uint64(len(shown)) > nonzeroChunk {
		return NotModelledError("printing a CUDA tensor of more than 2^30 printed elements (nonzero in chunks)")
	}
	var data *Tensor
	if summarize {
		data = p.summarized(t.Shape)
	} else if _, ok := viewStrides(t.Shape, t.Strides(), []int64{int64(t.Numel())}); !ok {
		data = p.alloc(t.Numel()) // reshape(-1)'s copy
	}
	var locals []*Tensor
	var sciMode *Tensor
	if float {
		locals, sciMode = p.formatterFloat(shown)
	}
	if summarize {
		p.free(locals...)
		p.free(data)
	} else {
		p.free(append([]*Tensor{data}, locals...)...)
	}
	p.rowCopies(t.Shape, t.Strides(), summarize)
	p.free(sciMode)
	if p.dry {
		return s.unknownPrint(t, p)
	}
	return p.err
}

// smallPoolMax is the largest block of the small pool (kSmallSize).
const smallPoolMax = 1 << 20

// unknownPrint decides the print of a floating CUDA tensor whose values
// the tool does not know, from p, its formatter's temporaries for the
// values that take the most (every one nonzero, finite and whole), as
// sizes only. How many temporaries, and of what size, depends on the
// values, but every allocation of any values is at most its counterpart
// there and every block is freed by the end of the print. So when those
// temporaries stay under the peak of allocated memory, and all of them
// (their sum: never reused) fit in one free block of the small pool on
// the current stream, no values make a new segment or a new peak, and
// freeing them merges every split block back: allocated, reserved,
// their peaks and the cache's layout are PyTorch's whatever the values.
// The print then takes nothing, and the step is an estimate of the
// memory history and the allocation counts, which leave those
// temporaries out (zoo_layers.py's print of an EmbeddingBag, whose
// repr prints its weight, differed from its recording there, labelled
// exact); under Options.Strict, whose promise is exact figures or
// none, it only says so, its figures being PyTorch's. Otherwise it
// takes those temporaries, an estimate (refused under Options.Strict).
func (s *Session) unknownPrint(t *Tensor, p *printAllocs) error {
	g := s.gpus[t.Device().Index]
	st := g.alloc.Stats().AllocatedBytes[0]
	stream := s.currentStream(t.Device())
	var largest uint64
	for _, seg := range g.alloc.Snapshot() {
		if !seg.Small || seg.Stream != stream {
			continue
		}
		for _, b := range seg.Blocks {
			if b.State == allocator.StateInactive {
				largest = max(largest, b.Size)
			}
		}
	}
	if p.big || st.Current+int64(p.peak) > st.Peak || largest < p.total {
		refusal := NotModelledError("printing a CUDA " + t.DType.Name + " tensor of unknown values where PyTorch's formatter, which allocates by the values (up to " + allocator.FormatSize(p.peak) + " at once), could raise the peak or take a new segment")
		if err := s.estimate(refusal, "print", "of %s: its values are unknown to the tool and PyTorch's formatter allocates by them, past the peak or the cache here; taken as the values that take the most (every one nonzero, finite and whole: up to %s at once)", argShapes(Args{t}), allocator.FormatSize(p.peak)); err != nil {
			return err
		}
		return s.formatterTemps(t, true)
	}
	if !s.opts.Strict {
		return s.estimate(nil, "print", "of %s: its values are unknown to the tool and PyTorch's formatter allocates by them (up to %s at once), under the peak and within the cache here, so allocated, reserved and their peaks are PyTorch's whatever the values, but the memory history and the allocation counts leave those temporaries out", argShapes(Args{t}), allocator.FormatSize(p.peak))
	}
	s.event("printed a CUDA %s tensor whose values the tool does not know: PyTorch's formatter takes up to %s of temporaries at once by its values, under the peak and within the cache, so the figures are exact (the memory history and allocation counts leave them out)", t.DType.Name, allocator.FormatSize(p.peak))
	return nil
}

// printAllocs makes a print's temporaries on one GPU; after the first
// failure it allocates nothing more, and frees what it made. Dry, it
// only adds up their blocks: at most at once (peak) and in all (total).
type printAllocs struct {
	s          *Session
	dev        Device
	size       uint64 // the printed tensor's element size
	err        error
	dry        bool
	live, peak uint64
	total      uint64
	big        bool // dry: a block past the small pool
}

// alloc takes n elements of the printed tensor's dtype; n is 0 (no
// allocation, as PyTorch makes none) or follows a failure: nil.
func (p *printAllocs) alloc(n uint64) *Tensor { return p.bytes(n * p.size) }

// bytes takes n bytes.
func (p *printAllocs) bytes(n uint64) *Tensor {
	if n == 0 || p.err != nil {
		return nil
	}
	if p.dry {
		b := p.s.gpus[p.dev.Index].alloc.RoundSize(n)
		p.live, p.total, p.big = p.live+b, p.total+b, p.big || b > smallPoolMax
		p.peak = max(p.peak, p.live)
		return &Tensor{Shape: []int64{int64(n)}, DType: DTypes["uint8"]}
	}
	t, err := p.s.alloc([]int64{int64(n)}, DTypes["uint8"], p.dev)
	p.err = err
	return t
}

// free drops ts in order.
func (p *printAllocs) free(ts ...*Tensor) {
	for _, t := range ts {
		switch {
		case t == nil:
		case p.dry:
			p.live -= p.s.gpus[p.dev.Index].alloc.RoundSize(t.Bytes())
		default:
			p.s.dropTensor(t)
		}
	}
}

// summarized is get_summarized_data of a tensor of shape: nil where it
// is a view, else the new tensor.
func (p *printAllocs) summarized(shape []int64) *Tensor {
	switch {
	case len(shape) == 0:
		return nil
	case len(shape) == 1 && shape[0] > 2*edgeItems:
		return p.alloc(2 * edgeItems) // cat of the first and last three
	case len(shape) == 1:
		return nil
	}
	var parts []*Tensor
	for _, i := range shownIndices(shape[0], true) {
		if i >= 0 {
			parts = append(parts, p.summarized(shape[1:]))
		}
	}
	out := p.alloc(uint64(len(parts)) * summarizedNumel(shape[1:]))
	for i := len(parts) - 1; i >= 0; i-- { // the list of parts dies last first
		p.free(parts[i])
	}
	return out
}

// summarizedNumel is the number of elements get_summarized_data keeps of
// shape.
func summarizedNumel(shape []int64) uint64 {
	n := uint64(1)
	for _, d := range shape {
		if d > 2*edgeItems {
			d = 2 * edgeItems
		}
		n *= uint64(d)
	}
	return n
}

// formatterFloat is _Formatter.__init__ over the printed values of a
// floating tensor: it returns the locals __init__ frees on return (after
// reshape's copy, in that order) and the comparison it keeps as
// sci_mode (nil when no value is nonzero and finite).
func (p *printAllocs) formatterFloat(vals []float64) (locals []*Tensor, sciMode *Tensor) {
	n := uint64(len(vals))
	// isfinite: (self == self) * (self.abs() != inf), the right operand
	// first, its temporaries destroyed newest first
	abs, notInf, eq := p.alloc(n), p.bytes(n), p.bytes(n)
	finite := p.bytes(n)
	p.free(eq, notInf, abs)
	nonzero := p.bytes(n)
	mask := p.bytes(n)
	p.free(finite, nonzero)
	picked, lo, hi := nonzeroFinite(vals)
	k := uint64(len(picked))
	selected := p.maskedSelect(n, k)
	p.free(mask)
	if k == 0 {
		return nil, nil
	}
	// tensor_totype(vals.abs()): a double copy, unless already double
	absDouble := p.alloc(k)
	if p.size != 8 {
		abs := absDouble
		absDouble = p.bytes(8 * k)
		p.free(abs)
	}
	lowest, highest := p.bytes(8), p.bytes(8)
	for _, v := range picked { // value != torch.ceil(value), to the first not whole
		ceil := p.alloc(1)
		ne := p.bytes(1)
		p.free(ceil, ne)
		if v != math.Ceil(v) {
			break
		}
	}
	// max / min > 1000 or max > 1e8 or min < 1e-4: the first true
	// comparison, else the last, stays
	ratio := p.bytes(8)
	sciMode = p.bytes(1)
	p.free(ratio)
	if !(hi/lo > 1000) {
		p.free(sciMode)
		if sciMode = p.bytes(1); !(hi > 1e8) {
			p.free(sciMode)
			sciMode = p.bytes(1)
		}
	}
	return []*Tensor{selected, absDouble, lowest, highest}, sciMode
}

// maskedSelect is torch.masked_select of n elements (at most one of
// nonzero's chunks), k of them picked: nonzero of the mask (masks.go:
// its count, CUB's sum scratch, its int64 output, CUB's select scratch),
// then the result, after which nonzero's output goes.
func (p *printAllocs) maskedSelect(n, k uint64) *Tensor {
	if !p.dry && p.err == nil {
		p.err = p.s.onCard(p.dev, "print", "masked_select of %d elements: CUB's sum and select scratch, recorded on the GH100 (sm90): the library sizes it by the architecture's tiles and %s", n, p.s.smCause(p.dev, "the sum's blocks"))
	}
	sms, threads := p.s.gpus[p.dev.Index].b.grid()
	count := p.bytes(4)
	p.free(p.bytes(cubSumScratch(n, sms, threads)))
	indices := p.bytes(8 * k)
	p.free(p.bytes(cubSelectScratch(n)))
	p.free(count)
	out := p.alloc(k)
	p.free(indices)
	return out
}

// rowCopies are tolist's GPU copies of the printed rows of a tensor of
// shape and strides that are not contiguous (the first and last three
// elements of a summarized row are two lists).
func (p *printAllocs) rowCopies(shape, strides []int64, summarize bool) {
	switch len(shape) {
	case 0:
		return
	case 1:
		pieces := []int64{shape[0]}
		if summarize && shape[0] > 2*edgeItems {
			pieces = []int64{edgeItems, edgeItems}
		}
		for _, l := range pieces {
			if l > 1 && strides[0] != 1 {
				p.free(p.alloc(uint64(l)))
			}
		}
		return
	}
	for _, i := range shownIndices(shape[0], summarize) {
		if i >= 0 {
			p.rowCopies(shape[1:], strides[1:], summarize)
		}
	}
}
