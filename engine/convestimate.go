package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// A convolution the table does not hold is estimated from the nearest
// recorded one (testdata/conv/README.md, "The estimate"): cuDNN's choice
// of engine, and so its workspace, follows heuristics no formula
// predicts, but its workspaces have forms that carry over between
// neighbouring configurations: most NCHW ones transpose to NHWC inside
// the workspace (x + y + w + 16 bytes, x, y and w the input's, output's
// and weight's bytes) beside the native engine's own part, a constant or
// a multiple of the weight's. So the estimate takes the nearest recorded
// configuration of the same class (float32, or half precision; layout;
// depthwise or not; deterministic; 3-d; transposed) that recorded the
// phase asked (the forward, or the backward of the same grads and
// incoming gradient), by a distance over the logarithms of batch,
// channels, spatial size, kernel size, stride, dilation and groups; and
// replays that recording's events with each temporary's size rewritten:
// a temporary of x+y+w+c bytes there (the largest of x, y and w that its
// size holds, in that order, and the rest c) is x'+y'+w'+c here. Its
// error on held-out recordings is measured by TestConvEstimateError and
// published in testdata/conv/README.md.

// convFeatures are a configuration's coordinates for the distance:
// log2 of batch, input and output channels, spatial size, kernel size,
// stride, dilation and groups, and whether it pads.
type convFeatures [9]float64

// convWeights weigh the features' differences.
var convWeights = convFeatures{1, 1, 1, 1, 2, 2, 2, 3, 1}

// features are c's coordinates.
func (c *convConfig) features() convFeatures {
	prod := func(v []int64) float64 {
		p := 1.0
		for _, n := range v {
			p *= float64(n)
		}
		return math.Log2(p)
	}
	pads := 0.0
	for _, p := range c.padding {
		if p != 0 {
			pads = 1
		}
	}
	in := c.x[1]
	return convFeatures{math.Log2(float64(c.x[0])), math.Log2(float64(in)), math.Log2(float64(c.outChannels())),
		prod(c.x[2:]), prod(c.w[2:]), prod(c.stride), prod(c.dilation), math.Log2(float64(c.groups)), pads}
}

// convClass is what the estimate never crosses while a configuration of
// the same class recorded the phase: precision (float16 and bfloat16
// behave alike in every recording), layout, PyTorch's depthwise case,
// cudnn.deterministic, 3-d, transposed.
type convClass struct {
	half, depthwise, deterministic, threeD, transposed bool
	format                                             string
}

// class is c's.
func (c *convConfig) class() convClass {
	return convClass{half: c.dtype.Size == 2, depthwise: c.groups > 1 && c.groups == c.x[1], deterministic: c.deterministic,
		threeD: len(c.x) == 5, transposed: c.transposed, format: c.format}
}

// convDistance is how far the recorded b is from a configuration of
// features fa, class ca and dtype dt, or some distance at least bound
// once it is past it.
func convDistance(fa convFeatures, ca convClass, dt DType, b *convEntry, bound float64) float64 {
	d := 0.0
	if cb := b.class; ca != cb {
		for _, differ := range []bool{ca.half != cb.half, ca.depthwise != cb.depthwise, ca.deterministic != cb.deterministic,
			ca.threeD != cb.threeD, ca.transposed != cb.transposed, ca.format != cb.format} {
			if differ {
				d += 100
			}
		}
	}
	if dt != b.cfg.dtype {
		d += 0.5 // float16 for bfloat16: the same class, a nearer one of the same dtype first
	}
	for i := range fa {
		if d >= bound {
			return d // farther than the nearest so far: the rest cannot bring it back
		}
		d += convWeights[i] * math.Abs(fa[i]-b.feat[i])
	}
	return d
}

// hasPhase reports whether the entry recorded a phase (bk nil: the
// forward) whose kept allocations say what they are.
func (e *convEntry) hasPhase(bk *convBackwardKey) bool {
	return bk == nil || slices.Contains(e.runs, *bk)
}

// phaseOf is an entry's recording of a phase (bk nil: the forward).
func (e *convEntry) phaseOf(bk *convBackwardKey) ([]convEvent, error) {
	if err := e.readEvents(); err != nil {
		return nil, err
	}
	if bk == nil {
		return e.forward, nil
	}
	return e.backward[*bk], nil
}

// convIndex is a table's entries as the estimate searches them: in key
// order (a tie goes to the smaller key, so the choice does not depend on
// map order), and by class, each class's coordinates side by side (a
// search reads them all).
type convIndex struct {
	all     []*convEntry
	byClass map[convClass]*convBucket
}

// convBucket is one class's entries and their features and dtypes.
type convBucket struct {
	entries []*convEntry
	feats   []convFeatures
	dtypes  []string
}

// index is t's convIndex.
func (t convTable) index() *convIndex {
	ix := &convIndex{all: make([]*convEntry, 0, len(t)), byClass: map[convClass]*convBucket{}}
	for _, k := range slices.Sorted(maps.Keys(t)) {
		e := t[k]
		ix.all = append(ix.all, e)
		b := ix.byClass[e.class]
		if b == nil {
			b = &convBucket{}
			ix.byClass[e.class] = b
		}
		b.entries = append(b.entries, e)
		b.feats = append(b.feats, e.feat)
		b.dtypes = append(b.dtypes, e.cfg.dtype.Name)
	}
	return ix
}

// nearest is the recorded configuration nearest q that recorded the
// phase (bk nil: the forward), other than skip's (and skip's with a bias
// or without: the same cuDNN call): of q's class where one of its class
// recorded it, else of any; nil when none did.
func (ix *convIndex) nearest(q *convConfig, bk *convBackwardKey, skip *convConfig) *convEntry {
	qf, qc := q.features(), q.class()
	usable := func(e *convEntry) bool { return e.hasPhase(bk) && (skip == nil || !e.cfg.sameCall(skip)) }
	var best *convEntry
	bestD := math.Inf(1)
	if b := ix.byClass[qc]; b != nil {
		for i := range b.feats {
			d := 0.0
			if b.dtypes[i] != q.dtype.Name {
				d = 0.5 // as convDistance
			}
			for j := range qf {
				if d >= bestD {
					break
				}
				d += convWeights[j] * math.Abs(qf[j]-b.feats[i][j])
			}
			if d < bestD && usable(b.entries[i]) {
				best, bestD = b.entries[i], d
			}
		}
	}
	if best != nil {
		return best
	}
	for _, e := range ix.all {
		if d := convDistance(qf, qc, q.dtype, e, bestD); d < bestD && usable(e) {
			best, bestD = e, d
		}
	}
	return best
}

// sameCall reports whether c and d are the same configuration but for
// the bias (which PyTorch adds after cuDNN's call).
func (c *convConfig) sameCall(d *convConfig) bool {
	return slices.Equal(c.x, d.x) && slices.Equal(c.w, d.w) && slices.Equal(c.stride, d.stride) &&
		slices.Equal(c.padding, d.padding) && slices.Equal(c.dilation, d.dilation) && slices.Equal(c.outPad, d.outPad) &&
		c.groups == d.groups && c.dtype == d.dtype && c.format == d.format && c.deterministic == d.deterministic &&
		c.transposed == d.transposed
}

// convForm is a temporary's size in terms of its configuration's
// tensors: the sum of those of x, y and w it holds (tried whole first:
// x+y+w, x+y, x+w, x, y+w, y, w) and the rest.
type convForm struct {
	x, y, w bool
	rest    uint64
}

// formOf is size's form for a configuration of tensors of x, y and w
// bytes: of the sums of them that size holds, the one that leaves the
// least rest (a dense copy of the output is y; the NCHW transform
// x+y+w+16), the one of more tensors on a tie.
func formOf(size, x, y, w uint64) convForm {
	best := convForm{rest: size}
	for _, f := range []convForm{{x: true, y: true, w: true}, {x: true, y: true}, {x: true, w: true}, {y: true, w: true},
		{x: true}, {y: true}, {w: true}} {
		if sum := f.bytes(x, y, w, 0); sum <= size && size-sum < best.rest {
			f.rest = size - sum
			best = f
		}
	}
	return best
}

// bytes is the form's size for tensors of x, y and w bytes.
func (f convForm) bytes(x, y, w, rest uint64) uint64 {
	n := rest
	for _, t := range []struct {
		in bool
		n  uint64
	}{{f.x, x}, {f.y, y}, {f.w, w}} {
		if t.in {
			n += t.n
		}
	}
	return n
}

// String is the form as the estimate's cause writes it ("x+y+w+16").
func (f convForm) String() string {
	var parts []string
	for _, t := range []struct {
		in   bool
		name string
	}{{f.x, "x"}, {f.y, "y"}, {f.w, "w"}} {
		if t.in {
			parts = append(parts, t.name)
		}
	}
	if f.rest != 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprint(f.rest))
	}
	return strings.Join(parts, "+")
}

// convEstimate is q's estimated phase: the nearest recording's events,
// each temporary's size carried over by its form, and the cause that
// says so; ok false when no configuration recorded the phase.
func (ix *convIndex) convEstimate(q *convConfig, bk *convBackwardKey, skip *convConfig) (events []convEvent, cause string, ok bool) {
	from := ix.nearest(q, bk, skip)
	if from == nil {
		return nil, "", false
	}
	rec, err := from.phaseOf(bk)
	if err != nil {
		return nil, "", false
	}
	x, y, w := q.roleBytes('x'), q.roleBytes('y'), q.roleBytes('w')
	var forms []string
	events = make([]convEvent, len(rec))
	sizes := map[int]uint64{}
	for i, e := range rec {
		switch {
		case e.alloc && e.kept:
			e.bytes = q.roleBytes(e.role)
		case e.alloc:
			f := formOf(e.bytes, from.xBytes, from.yBytes, from.wBytes)
			e.bytes = f.bytes(x, y, w, f.rest)
			sizes[e.id] = e.bytes
			forms = append(forms, f.String())
		default:
			e.bytes = sizes[e.id]
		}
		events[i] = e
	}
	what := workspaceWords(forms)
	k := from.cfg.key()
	cause = fmt.Sprintf("cuDNN's workspace of an unrecorded configuration, taken from the nearest recorded one, %s x %s stride %s %s %s (%s; %s)",
		k.X, k.W, k.Stride, k.DType, k.Format, what, from.source)
	return events, cause, true
}

// workspaceWords is how an estimate's cause says its temporaries' forms:
// "no workspace", "workspace 400", "workspace x+y+w+16 in its input's,
// output's and weight's bytes x, y, w".
func workspaceWords(forms []string) string {
	if len(forms) == 0 {
		return "no workspace"
	}
	joined := strings.Join(forms, ", ")
	if strings.ContainsAny(joined, "xyw") {
		return "workspace " + joined + " in its input's, output's and weight's bytes x, y, w"
	}
	return "workspace " + joined
}

// kept is the sizes of a phase's kept allocations, in order.
func kept(events []convEvent) []uint64 {
	var sizes []uint64
	for _, e := range events {
		if e.alloc && e.kept {
			sizes = append(sizes, e.bytes)
		}
	}
	return sizes
}

// probeConfig is the probe's --config line for k, its backward for
// each of bwd.
func (k convKey) probeConfig(bwd ...convBackwardKey) string {
	runs := make([][2]string, 0, len(bwd))
	for _, b := range bwd {
		runs = append(runs, [2]string{b.mask, b.grad})
	}
	ints := func(s string) json.RawMessage { return json.RawMessage(strings.ReplaceAll(s, " ", "")) }
	cfg := map[string]any{"x": ints(k.X), "w": ints(k.W), "stride": ints(k.Stride), "padding": ints(k.Padding),
		"dilation": ints(k.Dilation), "groups": k.Groups, "bias": k.Bias, "dtype": k.DType, "format": k.Format,
		"deterministic": k.Deterministic, "bwd": runs}
	if k.Transposed {
		cfg["transposed"], cfg["output_padding"] = true, ints(k.OutputPadding)
	}
	b, _ := json.Marshal(cfg)
	return string(b)
}

// describe is k as an error names it.
func (k convKey) describe(op string) string {
	t := ""
	if k.Transposed {
		t = ", output_padding " + k.OutputPadding
	}
	return fmt.Sprintf("%s of input %s, weight %s, stride %s, padding %s, dilation %s, groups %d%s, bias %s, %s, deterministic=%s",
		op, k.X, k.W, k.Stride, k.Padding, k.Dilation, k.Groups, t, pyBool(k.Bias), k.DType, pyBool(k.Deterministic))
}

// notRecorded is the error of a convolution the table does not hold:
// what, and how to record it.
func (k convKey) notRecorded(op, what string, bwd ...convBackwardKey) error {
	return Refusef(NotImplementedError, "%s%s is not modelled by gpumemrepl: cuDNN's workspace for it was not recorded; record your program's convolutions on a GPU with `python3 scripts/calibrate.py FILE.py` (docs/calibration.md), or this one with `python3 scripts/probe_conv.py table conv.jsonl.gz --config '%s'`, and pass the file with --calibration or %s",
		k.describe(op), what, k.probeConfig(bwd...), calibrationEnv)
}

// onOtherCard is --strict's refusal of a configuration recorded only on
// other cards (recorded, in the built-in file source) than the one
// simulated.
func (k convKey) onOtherCard(op, what string, recorded []string, source, simulated string) error {
	return Refusef(NotImplementedError, "%s%s was recorded on %s (%s), not on the simulated %s, so its figures would be estimated, and --strict refuses estimates", k.describe(op), what, strings.Join(recorded, " and "), source, simulated)
}

// pyBool is b as Python writes it.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
