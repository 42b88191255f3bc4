package engine

import (
	"fmt"
	"strings"
	"testing"
)

// probeSession replays cnn_probe's cases on a simulated H200, as the
// probe ran them: the input made, then each phase's allocations and
// frees (forward with grad, backward of a sum, forward under no_grad).
type probeSession struct {
	t    *testing.T
	s    *Session
	seen int
}

func newProbeSession(t *testing.T) *probeSession {
	s, err := NewSession(Options{Preset: Presets["h200"], Backend: "sim", FakeHost: true, Devices: 1})
	if err != nil {
		t.Fatal(err)
	}
	return &probeSession{t: t, s: s}
}

// events are the allocations and frees since the last call, as the
// probe prints them.
func (p *probeSession) events() []string {
	var out []string
	h := p.s.History(0)
	for _, e := range h[p.seen:] {
		switch e.Action {
		case "alloc":
			out = append(out, fmt.Sprintf("a%d", e.Size))
		case "free_completed":
			out = append(out, fmt.Sprintf("f%d", e.Size))
		}
	}
	p.seen = len(h)
	if out == nil {
		out = []string{"-"}
	}
	return out
}

func (p *probeSession) tensor(op string, shape []int64, dt DType, grad bool) *Tensor {
	x, err := p.s.NewTensor(TensorSpec{Op: op, Shape: shape, DType: dt, Device: cuda0, RequiresGrad: grad})
	if err != nil {
		p.t.Fatal(err)
	}
	return x
}

// replay runs c with fn and reports where its events differ from the
// probe's.
func (p *probeSession) replay(c probeCase, fn func(x *Tensor) (*Tensor, error)) {
	x := p.tensor("randn", c.shape, DTypes[c.dtype], true)
	p.events()
	got := map[string][]string{}
	y, err := fn(x)
	if err != nil {
		p.t.Fatalf("%s %v %s: %v", c.name, c.shape, c.dtype, err)
	}
	got["fwd"] = p.events()
	sum, err := p.s.Op("sum", y)
	if err != nil {
		p.t.Fatal(err)
	}
	p.events()
	if err := p.s.Backward(sum, false); err != nil {
		p.t.Fatal(err)
	}
	got["bwd"] = p.events()
	p.s.Release(y)
	p.s.Release(sum)
	p.s.ZeroGrad([]*Tensor{x}, true)
	p.events()
	p.s.SetGradEnabled(false)
	if y, err = fn(x); err != nil {
		p.t.Fatal(err)
	}
	p.s.SetGradEnabled(true)
	got["nograd"] = p.events()
	p.s.Release(y)
	p.s.Release(x)
	p.events()
	for _, phase := range []string{"fwd", "bwd", "nograd"} {
		if g, w := strings.Join(got[phase], " "), strings.Join(c.phases[phase], " "); g != w {
			p.t.Errorf("%s %v %s %s: %s, PyTorch's %s", c.name, c.shape, c.dtype, phase, g, w)
		}
	}
}

// bnLayer is a batch norm module's tensors: weight and bias (nil
// without affine), running stats (nil without them).
type bnLayer struct{ w, b, mean, vr *Tensor }

// TestNormsAsRecorded replays every batch norm and group norm of
// cnn_probe (12 4-d shapes in three dtypes with and without weights,
// running stats, in eval; 9 2-d shapes; 8 group norms in two dtypes) and
// checks each phase's allocations and frees against PyTorch's.
func TestNormsAsRecorded(t *testing.T) {
	p := newProbeSession(t)
	trained := map[string]bnLayer{} // bn2d's module, which bn2d-eval reuses (its .grad kept)
	replayed := 0
	for _, c := range probeCases(t) {
		ch := c.shape[1]
		dt := DTypes[c.dtype]
		layer := func(affine, stats bool) bnLayer {
			var l bnLayer
			if affine {
				l.w, l.b = p.tensor("ones", []int64{ch}, Float32, true), p.tensor("zeros", []int64{ch}, Float32, true)
			}
			if stats {
				l.mean, l.vr = p.tensor("zeros", []int64{ch}, Float32, false), p.tensor("ones", []int64{ch}, Float32, false)
			}
			return l
		}
		key := fmt.Sprint(c.shape, c.dtype)
		var fn func(x *Tensor) (*Tensor, error)
		var l bnLayer
		training := true
		switch c.name {
		case "bn2d", "bn1d-2d", "bn1d-2d-bf16", "bn1d-3d":
			l = layer(true, true)
			trained[key] = l
		case "bn2d-eval":
			l, training = trained[key], false
		case "bn1d-2d-eval":
			l, training = layer(true, true), false
		case "bn2d-noaffine", "bn1d-2d-noaffine":
			l = layer(false, true)
		case "bn2d-nostats":
			l = layer(true, false)
		default:
			var groups int64
			if _, err := fmt.Sscanf(c.name, "gn%d", &groups); err != nil {
				continue
			}
			var w, b *Tensor
			if !strings.HasSuffix(c.name, "-noaffine") {
				w, b = p.tensor("ones", []int64{ch}, dt, true), p.tensor("zeros", []int64{ch}, dt, true)
			}
			fn = func(x *Tensor) (*Tensor, error) { return p.s.groupNorm(x, groups, w, b) }
		}
		if fn == nil {
			fn = func(x *Tensor) (*Tensor, error) { return p.s.batchNorm(x, l.mean, l.vr, l.w, l.b, training) }
		}
		p.events()
		p.replay(c, fn)
		replayed++
	}
	if replayed < 190 {
		t.Errorf("only %d norms replayed", replayed)
	}
}
