package engine

import (
	"fmt"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// Rules that read the card. Most rules hold on every GPU: an output's
// size follows from shapes and dtypes, the caching allocator rounds and
// splits alike everywhere, autograd saves what the graph needs. Some
// read the GPU: the cuBLAS workspace (by compute capability), a
// reduction's blocks (by multiprocessor count), CUB's scratch (tiles
// tuned per architecture), cuDNN's workspaces (its engine, chosen per
// card), which attention kernel runs (by architecture), and where the
// device runs out of memory (its total less the CUDA context). Those
// were recorded on the GH100: the H200, and the H100 lent for it, on
// which every rule script was recorded again and agreed but for cuDNN's
// choice of convolution engine (testdata/cards/h100; convolutions keep
// their own cards: conv.go). On any other GPU such a rule's figure is an
// estimate naming the card, and --strict refuses it.

// recordedCards are the GPUs the card-dependent rules were recorded on,
// as get_device_name names them.
var recordedCards = []string{"NVIDIA H200", "NVIDIA H100 80GB HBM3"}

// recordedCard reports whether dev's GPU is one the rules that read the
// card were recorded on.
func (s *Session) recordedCard(dev Device) bool {
	return slices.Contains(recordedCards, s.cardOf(dev))
}

// cardOf is dev's GPU as get_device_name names it: the preset's on a
// simulated device, the driver's on a real one.
func (s *Session) cardOf(dev Device) string { return s.gpus[dev.Index].b.name() }

// cardName is dev's GPU as an estimate names it: "the Tesla T4 (sm75)".
func (s *Session) cardName(dev Device) string {
	p := s.gpus[dev.Index].b.properties()
	return fmt.Sprintf("the %s (sm%d%d)", p.Name, p.Major, p.Minor)
}

// onCard records an estimate for a rule that reads the GPU (op, then
// the cause formatted as fmt does), when dev's GPU is not one the rule
// was recorded on; under Options.Strict it is the error to raise.
func (s *Session) onCard(dev Device, op, cause string, args ...any) error {
	if s.recordedCard(dev) {
		return nil
	}
	return s.estimate(nil, op, "on %s: %s", s.cardName(dev), fmt.Sprintf(cause, args...))
}

// smCause is the cause of an estimate whose figure the GPU's
// multiprocessor count sizes (what, "a reduction's blocks").
func (s *Session) smCause(dev Device, what string) string {
	sms, threads := s.gpus[dev.Index].b.grid()
	return fmt.Sprintf("%s sized for %d multiprocessors of %d threads by the rule recorded on the GH100's 132 of 2048", what, sms, threads)
}

// ReplayEstimate says what of a history replayed on the simulated GPU
// of preset p (explain's larger GPU) is an estimate: the capacity of
// any preset but the H200's, and, off the GH100, the sizes of the
// kernels' workspaces, which the history holds as the GPU it ran on
// made them; empty for the H200.
func ReplayEstimate(p Preset) string {
	if p.Name == "h200" {
		return ""
	}
	cause := "its total is a published deviceQuery figure and its CUDA context the H200's"
	if !slices.Contains(recordedCards, p.Model) {
		cause += fmt.Sprintf(", and the history's library workspaces and kernel scratch are those of the GPU it ran on, which the %s may size otherwise (fit --gpus %s runs the program there)", p.Name, p.Name)
	}
	return cause
}

// capacityMeasured reports whether where dev runs out of memory was
// measured: a real GPU's is the driver's, a simulated H200's the total
// and CUDA context measured with PyTorch; the other presets' totals are
// published deviceQuery figures and their contexts the H200's.
func (s *Session) capacityMeasured(dev Device) bool {
	b, sim := s.gpus[dev.Index].b.(*simBackend)
	return !sim || b.preset.Name == "h200"
}

// noteRefusals records an estimate when the device (or the memory
// fraction, a share of its total) refused the caching allocator
// memory while it served a request of n bytes on a GPU whose capacity
// was not measured (capacityMeasured): whether it ran out there, and
// what it freed to retry, rest on that capacity; not where the request
// alone is more than the device's total, which fails on it whatever its
// context. before is the allocator's count of refusals before the
// request.
func (s *Session) noteRefusals(dev Device, g *gpu, before uint64, n uint64) error {
	if g.alloc.DeviceRefusals() == before || s.capacityMeasured(dev) {
		return nil
	}
	b := g.b.(*simBackend)
	total := b.dev.TotalMemory()
	if n > total {
		return nil
	}
	return s.estimate(nil, "cudaMalloc", "%s on %s, a simulated %s: its memory ran out here by a total of %s (a published deviceQuery figure) less the H200's CUDA context (%s), neither measured on it",
		allocator.FormatSize(n), dev, b.preset.Name, allocator.FormatSize(total), allocator.FormatSize(b.ctx))
}

// libScratch is scratch of n bytes that a library sizes by the
// architecture it tunes its kernels for (lib: "CUB's radix sort",
// "cuDNN attention"), recorded on the GH100: on another GPU an
// estimate (scratchOnCard).
func (s *Session) libScratch(dev Device, lib string, n uint64) error {
	if err := s.scratchOnCard(dev, lib, n); err != nil {
		return err
	}
	return s.scratch(dev, n)
}

// scratchOnCard records the estimate of lib's scratch of n bytes on
// dev's GPU, where it is not one the scratch was recorded on.
func (s *Session) scratchOnCard(dev Device, lib string, n uint64) error {
	if n == 0 {
		return nil
	}
	return s.onCard(dev, lib, "its scratch of %d bytes was recorded on the GH100 (sm90); the library sizes it by the tiles or the kernel it picks for the architecture", n)
}
