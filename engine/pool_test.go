package engine

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// probeCase is one line of testdata/pyrules/cnn_probe.txt: the case, the
// input's shape and dtype, and each phase's events ("a8192", "f4").
type probeCase struct {
	name   string
	shape  []int64
	dtype  string
	phases map[string][]string
}

// probeCases reads cnn_probe.txt's cases (not those that raised).
func probeCases(t *testing.T) []probeCase {
	t.Helper()
	f, err := os.Open("../testdata/pyrules/cnn_probe.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []probeCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		head, rest, ok := strings.Cut(sc.Text(), " | ")
		if !ok || strings.HasPrefix(rest, "error") {
			continue
		}
		lp, rp := strings.Index(head, "("), strings.Index(head, ")")
		c := probeCase{name: strings.TrimSpace(head[:lp]), dtype: strings.TrimSpace(head[rp+1:]), phases: map[string][]string{}}
		for _, d := range strings.Split(head[lp+1:rp], ",") {
			if d = strings.TrimSpace(d); d != "" {
				n, err := strconv.ParseInt(d, 10, 64)
				if err != nil {
					t.Fatalf("%q: %v", head, err)
				}
				c.shape = append(c.shape, n)
			}
		}
		for _, p := range strings.Split(rest, " | ") {
			words := strings.Fields(p)
			c.phases[words[0]] = words[1:]
		}
		cases = append(cases, c)
	}
	return cases
}

// TestPoolErrorsAsRecorded: a window larger than the input is PyTorch's
// error, word for word (cnn_probe's 1x1024 planes).
func TestPoolErrorsAsRecorded(t *testing.T) {
	x := &Tensor{Shape: []int64{16, 8, 1, 1024}, DType: Float32}
	w := window{2, 2, 0, 1}
	_, err := pooledShape(x, []window{w, w}, false)
	want := probeError(t, "max2 (16, 8, 1, 1024) float32")
	if err == nil || pyText(err) != want {
		t.Errorf("error %v, PyTorch's %q", err, want)
	}
}

// probeError is the error cnn_probe recorded for a case ("Type message").
func probeError(t *testing.T, head string) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/pyrules/cnn_probe.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if msg, ok := strings.CutPrefix(l, head+" | error "); ok {
			typ, text, _ := strings.Cut(msg, " ")
			return typ + ": " + text
		}
	}
	t.Fatalf("no error recorded for %s", head)
	return ""
}

// TestPoolsAsRecorded replays every pooling and leaky_relu of cnn_probe
// (8 input shapes in two dtypes, 11 windows; 3-d inputs) and checks each
// phase's allocations and frees against PyTorch's.
func TestPoolsAsRecorded(t *testing.T) {
	p := newProbeSession(t)
	sizes := map[string][2]int64{"gap1": {1, 1}, "ap57": {5, 7}, "ap2": {2, 2}}
	windowsOf := map[string][3]int64{
		"max2": {2, 2, 0}, "max3s2p1": {3, 2, 1}, "max3": {3, 3, 0}, "max2s1": {2, 1, 0}, "max-ceil": {3, 2, 0}, "max2-3d": {2, 2, 0},
		"avg2": {2, 2, 0}, "avg3s2p1": {3, 2, 1}, "avg-nopad": {3, 2, 1},
	}
	replayed := 0
	for _, c := range probeCases(t) {
		var fn func(x *Tensor) (*Tensor, error)
		if size, ok := sizes[c.name]; ok {
			fn = func(x *Tensor) (*Tensor, error) { return p.s.adaptiveAvgPool2d(x, size) }
		} else if w, ok := windowsOf[c.name]; ok {
			win := window{w[0], w[1], w[2], 1}
			ww, ceil := []window{win, win}, c.name == "max-ceil"
			fn = func(x *Tensor) (*Tensor, error) {
				if strings.HasPrefix(c.name, "avg") {
					return p.s.avgPool("avg_pool2d", x, ww, ceil)
				}
				outs, err := p.s.maxPool("max_pool2d", x, ww, ceil, false)
				if err != nil {
					return nil, err
				}
				return outs[0], nil
			}
		} else if c.name == "lrelu" {
			fn = func(x *Tensor) (*Tensor, error) { return p.s.Op("leaky_relu", x) }
		} else {
			continue
		}
		p.replay(c, fn)
		replayed++
	}
	if replayed < 170 {
		t.Errorf("only %d poolings replayed", replayed)
	}
}
