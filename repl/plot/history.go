package plot

// History is a run's steps for the chart, kept in at most maxPoints
// points however long the run: when full, neighbouring points merge in
// pairs, so every point but the last covers the same number of steps.
// A merged point keeps its steps' peaks and the figures after its last
// step, so no peak is lost, and one label (its peak's). The zero History
// is empty.
type History []Point

// Point is one or more consecutive steps.
type Point struct {
	First, Count int // the steps it covers, numbered from 1
	// Peak holds the most allocated, reserved and driver-used memory of
	// its steps, and the label of the step with the most reserved.
	Peak Step
	// Last is the figures after its last step (no label).
	Last Step
	// Mark is its last step's Mark.
	Mark int
}

// maxPoints bounds a History; it is even, so that a full History merges
// into points of twice the span exactly.
const maxPoints = 2000

// maxLabel bounds a label's length in bytes (a script's line may be a
// megabyte long).
const maxLabel = 200

// Add records the figures after the next step.
func (h *History) Add(s Step) {
	s.Label = shorten(s.Label)
	n := len(*h)
	if n > 0 && (*h)[n-1].Count < (*h)[0].Count {
		(*h)[n-1] = merge((*h)[n-1], pointOf(s, 0))
		return
	}
	if n == maxPoints {
		for i := range n / 2 {
			(*h)[i] = merge((*h)[2*i], (*h)[2*i+1])
		}
		*h = (*h)[:n/2]
	}
	*h = append(*h, pointOf(s, h.Steps()+1))
}

// Steps is how many steps were added.
func (h History) Steps() int {
	if len(h) == 0 {
		return 0
	}
	last := h[len(h)-1]
	return last.First + last.Count - 1
}

// pointOf is the point of one step.
func pointOf(s Step, first int) Point {
	last := s
	last.Label = ""
	return Point{First: first, Count: 1, Peak: s, Last: last, Mark: s.Mark}
}

// merge is the point of a's steps and then b's.
func merge(a, b Point) Point {
	peak := a.Peak
	if b.Peak.Reserved > peak.Reserved {
		peak.Label = b.Peak.Label
	}
	peak.Allocated = max(a.Peak.Allocated, b.Peak.Allocated)
	peak.Peak = max(a.Peak.Peak, b.Peak.Peak)
	peak.Reserved = max(a.Peak.Reserved, b.Peak.Reserved)
	peak.Driver = max(a.Peak.Driver, b.Peak.Driver)
	peak.HasDriver = a.Peak.HasDriver || b.Peak.HasDriver
	return Point{First: a.First, Count: a.Count + b.Count, Peak: peak, Last: b.Last, Mark: b.Mark}
}

// shorten cuts a label to maxLabel bytes, at a rune's start, with an
// ellipsis.
func shorten(s string) string {
	if len(s) <= maxLabel {
		return s
	}
	cut := maxLabel
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
