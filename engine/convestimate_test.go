package engine

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestConvCompactFormReadsAsTheOlder: the calibration example (train_cnn's
// convolutions converted to the compact form by scripts/conv_compact.py)
// reads as the same events, roles and all, as the built-in table's older
// recordings of them.
func TestConvCompactFormReadsAsTheOlder(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "conv", "calibration_example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	compact := convTable{}
	if err := compact.read(f, "calibration_example.jsonl", false); err != nil {
		t.Fatal(err)
	}
	builtin, err := builtinConvTable()
	if err != nil {
		t.Fatal(err)
	}
	if len(compact) != 4 {
		t.Errorf("%d configurations, want 4", len(compact))
	}
	for k, e := range compact {
		old := builtin[k]
		if old == nil {
			t.Errorf("%s is not in the built-in table", k)
			continue
		}
		if err := old.readEvents(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(e.forward, old.forward) {
			t.Errorf("%s forward %+v, the older %+v", k, e.forward, old.forward)
		}
		if len(e.backward) != len(old.backward) || len(e.backward) != 4 {
			t.Errorf("%s: %d backward runs, the older %d", k, len(e.backward), len(old.backward))
		}
		for bk, ev := range e.backward {
			if !slices.Equal(ev, old.backward[bk]) {
				t.Errorf("%s backward %v: %+v, the older %+v", k, bk, ev, old.backward[bk])
			}
		}
	}
}

// TestConvCompactFormErrors: a line that does not read is refused, naming
// its line and what is wrong.
func TestConvCompactFormErrors(t *testing.T) {
	cfg := `"x":[3,5,7,9],"w":[4,5,3,3],"stride":[1,1],"padding":[1,1],"dilation":[1,1],"groups":1,"bias":false,"dtype":"float32","format":"contiguous","deterministic":false`
	for _, c := range []struct{ line, want string }{
		{`{` + cfg + `,"fwd":"y +100 -1","bwd":{"xw":"x +5 -1 w"}}`, ""},
		{`{` + cfg + `,"fwd":"y +100","bwd":{}}`, "line 2: fwd: its temporary 1 (+100) is not freed"},
		{`{` + cfg + `,"fwd":"y -0","bwd":{}}`, `line 2: fwd: token "-0": not the free of a temporary the phase allocated and has not freed`},
		{`{` + cfg + `,"fwd":"+100 -0","bwd":{}}`, `line 2: fwd: it keeps "", want one of each of "y"`},
		{`{` + cfg + `,"fwd":"y","bwd":{"xb":"x b"}}`, `line 2: bwd "xb": not a grad mask (of x, w and b) with /dense or /expanded`},
		{`{` + cfg + `,"fwd":"y","bwd":{"xw":"x w w"}}`, `line 2: bwd "xw": token "w": want one of x, w (once each), +BYTES or -INDEX`},
		{`{` + cfg + `,"fwd":"y !512","bwd":{}}`, `line 2: fwd: it ran out of memory (cuDNN's fallback is not modelled)`},
		{`{"x":[3,6,7,9],"w":[4,5,3,3],"stride":[1,1],"padding":[1,1],"dilation":[1,1],"groups":1,"dtype":"float32","fwd":"y"}`, "line 2: input [3, 6, 7, 9] and weight [4, 5, 3, 3] of groups 1 do not make a convolution"},
		{`{` + cfg + `,"fwd":"y","bwd":{}`, "line 2: unexpected end of JSON input"},
	} {
		err := convTable{}.read(strings.NewReader("{\"calibration\": \"a header\"}\n"+c.line+"\n"), "t", false)
		if got := fmt.Sprint(err); c.want == "" && err != nil || c.want != "" && got != c.want {
			t.Errorf("%s: %v, want %q", c.line, err, c.want)
		}
	}
}

// convPhasePeak is the most bytes live in a phase of configuration c:
// its operands (input and weight, and in a backward the incoming
// gradient) and what its events allocate.
func convPhasePeak(c *convConfig, events []convEvent, backward bool) uint64 {
	live := c.roleBytes('x') + c.roleBytes('w')
	if backward {
		live += c.roleBytes('y')
	}
	peak := live
	for _, e := range events {
		if e.alloc {
			live += e.bytes
			peak = max(peak, live)
		} else {
			live -= e.bytes
		}
	}
	return peak
}

// convEstimateErrors estimates every recorded phase of the queries from
// base (each query's own configuration, and the same call with a bias or
// without, set aside) and returns, per phase, the error of its peak
// over its recorded peak and in bytes.
func convEstimateErrors(t *testing.T, table convTable, queries []*convEntry) (rel []float64, abs []uint64, exact int) {
	base := table.index()
	for _, e := range queries {
		phases := []*convBackwardKey{nil}
		for _, bk := range e.runs {
			phases = append(phases, &bk)
		}
		for _, bk := range phases {
			rec, err := e.phaseOf(bk)
			if err != nil {
				t.Fatal(err)
			}
			est, _, ok := base.convEstimate(&e.cfg, bk, &e.cfg)
			if !ok {
				continue
			}
			want, got := convPhasePeak(&e.cfg, rec, bk != nil), convPhasePeak(&e.cfg, est, bk != nil)
			d := max(want, got) - min(want, got)
			if d == 0 {
				exact++
			}
			rel = append(rel, float64(d)/float64(want))
			abs = append(abs, d)
		}
	}
	return rel, abs, exact
}

// convErrorLine is how testdata/conv/README.md says a measurement of
// the estimate: what was held out, then its phases' errors.
func convErrorLine(what string, configs int, rel []float64, abs []uint64, exact int) string {
	slices.Sort(rel)
	slices.Sort(abs)
	n := len(rel)
	return fmt.Sprintf("%s, %d phases of %d configurations: %d exact; the phase's peak off by a median of %.2f%% (%d bytes), 90th percentile %.1f%% (%d bytes), worst %.0f%% (%d bytes).",
		what, n, configs, exact, 100*rel[n/2], abs[n/2], 100*rel[n*9/10], abs[n*9/10], 100*rel[n-1], abs[n-1])
}

// convHeldBatches are the batches of the networks' grid recorded only to
// measure the estimate between recorded batches (scripts/probe_conv_grid.py).
var convHeldBatches = []int64{3, 12, 24, 48, 96}

// TestConvEstimateError: the estimate's error measured three ways is the
// one testdata/conv/README.md publishes (its "Held out" lines); a new
// recording changes both. Each recorded configuration of the older
// tables (grid, table, common) held out one at a time and estimated from
// the rest of the table; the networks' grid's configurations at the
// batches recorded for this check (3, 12, 24, 48, 96), estimated from the
// table without them (so from the same layer at the nearest batch of the
// grid, 1 to 256 in powers of two); the zoo programs' own convolutions
// (zoo_*.jsonl.gz), estimated from the table without them.
func TestConvEstimateError(t *testing.T) {
	table, err := builtinConvTable()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "testdata", "conv", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(table))
	without := func(held map[string]bool) convTable {
		base := make(convTable, len(table))
		for k, e := range table {
			if !held[k] {
				base[k] = e
			}
		}
		return base
	}
	fromFiles := func(prefix string) map[string]bool {
		held := map[string]bool{}
		names, _ := fs.Glob(convTableFiles, "convtable/"+prefix+"*.jsonl.gz")
		for _, name := range names {
			f, err := convTableFiles.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			one := convTable{}
			if err := one.read(f, name, true); err != nil {
				t.Fatal(err)
			}
			f.Close()
			for k := range one {
				held[k] = true
			}
		}
		return held
	}
	older := map[string]bool{}
	for _, prefix := range []string{"grid", "table", "common"} {
		maps.Copy(older, fromFiles(prefix))
	}
	batches := map[string]bool{}
	for k := range fromFiles("networks") {
		if slices.Contains(convHeldBatches, table[k].cfg.x[0]) {
			batches[k] = true
		}
	}
	for _, m := range []struct {
		what string
		held map[string]bool
		base convTable
	}{
		{"Held out one at a time", older, table},
		{"Held out between recorded batches", batches, without(batches)},
		{"The zoo's convolutions held out", fromFiles("zoo_"), nil},
	} {
		if m.base == nil {
			m.base = without(m.held)
		}
		var queries []*convEntry
		for _, k := range keys {
			if m.held[k] {
				if err := table[k].readEvents(); err != nil {
					t.Fatal(err)
				}
				queries = append(queries, table[k])
			}
		}
		published := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(m.what) + `, .*?bytes\)\.`).Find(readme)
		if len(queries) == 0 {
			if published != nil {
				t.Errorf("testdata/conv/README.md publishes %q, but the table has no such configurations", published)
			}
			continue
		}
		rel, abs, exact := convEstimateErrors(t, m.base, queries)
		got := convErrorLine(m.what, len(queries), rel, abs, exact)
		t.Log(got)
		if strings.Join(strings.Fields(string(published)), " ") != got {
			t.Errorf("testdata/conv/README.md publishes\n%s\nmeasured\n%s", published, got)
		}
	}
}

// convRun runs F.conv2d (or op) of new tensors of shapes x and w (w
// requiring grad) and returns the output and the bytes its forward
// held at its peak over what it keeps.
func convRun(t *testing.T, s *Session, op string, x, w []int64, args ...any) (*Tensor, int64) {
	t.Helper()
	in := mustTensor(t, s, TensorSpec{Op: "randn", Shape: x, DType: Float32, Device: cuda0})
	wt := mustTensor(t, s, TensorSpec{Op: "randn", Shape: w, DType: Float32, Device: cuda0, RequiresGrad: true})
	s.ResetPeak(0)
	y, err := s.Run(Ops[op], append(Args{in, wt, nil}, args...))
	if err != nil {
		t.Fatal(err)
	}
	peak, _ := s.MemoryStat(0, "allocated_bytes.all.peak")
	now, _ := s.MemoryStat(0, "allocated_bytes.all.current")
	return y, peak - now
}

// TestConvEstimatedFromNearest: ResNet's stem at batch 13, not recorded,
// runs with the workspace of the nearest recorded configuration, the
// same layer at batch 12 (the networks' grid: x+y+w+16 there), carried
// over to batch 13's sizes (7827456 + 41746432 + 37632 + 16), an
// estimate that names both; its backward (the weight's gradient only) is
// estimated from that configuration's recorded one.
func TestConvEstimatedFromNearest(t *testing.T) {
	s := newTestSession(t, 1)
	y, _ := convRun(t, s, "conv2d", []int64{13, 3, 224, 224}, []int64{64, 3, 7, 7}, []int64{2}, []int64{3}, []int64{1}, int64(1))
	for _, e := range s.convEstimated {
		if len(e.forward) != 3 || e.forward[1].bytes != 49611536 {
			t.Errorf("forward %+v, want the output then a workspace of 49611536 bytes", e.forward)
		}
	}
	est := s.StepEstimatesSince(0)
	if len(est) != 1 || est[0].Op != "F.conv2d" ||
		!strings.HasPrefix(est[0].Cause, "[13, 3, 224, 224] x [64, 3, 7, 7] stride [2, 2] float32: cuDNN's workspace of an unrecorded configuration, taken from the nearest recorded one, [12, 3, 224, 224] x [64, 3, 7, 7] stride [2, 2] float32 contiguous (workspace x+y+w+16 in its input's, output's and weight's bytes x, y, w; networks.jsonl.gz)") {
		t.Fatalf("estimates %v forward %v", est, s.convEstimated)
	}
	g := mustTensor(t, s, TensorSpec{Op: "randn", Shape: y.Shape, DType: Float32, Device: cuda0})
	if err := s.BackwardWith(y, g, false); err != nil {
		t.Fatal(err)
	}
	est = s.StepEstimatesSince(0)
	if len(est) != 2 || est[1].Op != "F.conv2d backward" || !strings.Contains(est[1].Cause, "grads of w, the incoming gradient dense: cuDNN's workspace of an unrecorded configuration, taken from the nearest recorded one, [12, 3, 224, 224]") {
		t.Errorf("estimates %v", est)
	}
}

// TestConvEstimateWords: an estimate's cause names the letters x, y and
// w only where a form holds them (a constant workspace is its bytes).
func TestConvEstimateWords(t *testing.T) {
	for _, c := range []struct {
		forms []string
		want  string
	}{{nil, "no workspace"}, {[]string{"400"}, "workspace 400"},
		{[]string{"x+y+w+16", "131"}, "workspace x+y+w+16, 131 in its input's, output's and weight's bytes x, y, w"}} {
		if got := workspaceWords(c.forms); got != c.want {
			t.Errorf("workspaceWords(%q) = %q, want %q", c.forms, got, c.want)
		}
	}
}

// TestConvHeldOut: Options.ForceGeneral naming conv2d sets the built-in
// recording of a configuration aside: train_cnn's first convolution is
// estimated from another recording, not from itself; a calibration
// file's recording of it stays exact.
func TestConvHeldOut(t *testing.T) {
	x, w := []int64{64, 3, 32, 32}, []int64{32, 3, 3, 3}
	args := []any{[]int64{1}, []int64{1}, []int64{1}, int64(1)}
	s, err := NewSession(Options{Preset: Presets["h200"], FakeHost: true, ForceGeneral: []string{"conv2d"}})
	if err != nil {
		t.Fatal(err)
	}
	convRun(t, s, "conv2d", x, w, args...)
	est := s.StepEstimatesSince(0)
	if len(est) != 1 || strings.Contains(est[0].Cause, "nearest recorded one, [64, 3, 32, 32] x [32, 3, 3, 3] stride [1, 1] float32 contiguous") {
		t.Errorf("estimates %v", est)
	}
	s, err = NewSession(Options{Preset: Presets["h200"], FakeHost: true, ForceGeneral: []string{"conv2d"},
		Calibration: []string{filepath.Join("..", "testdata", "conv", "calibration_example.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	in := mustTensor(t, s, TensorSpec{Op: "randn", Shape: x, DType: Float32, Device: cuda0})
	wt := mustTensor(t, s, TensorSpec{Op: "randn", Shape: w, DType: Float32, Device: cuda0})
	b := mustTensor(t, s, TensorSpec{Op: "randn", Shape: w[:1], DType: Float32, Device: cuda0})
	if _, err := s.Run(Ops["conv2d"], append(Args{in, wt, b}, args...)); err != nil {
		t.Fatal(err)
	}
	if est := s.StepEstimatesSince(0); len(est) != 0 {
		t.Errorf("a calibrated configuration estimated: %v", est)
	}
}

// TestConvTransposed: F.conv_transpose2d makes the output PyTorch's
// shape rule gives ([N, out, (H-1)*stride - 2*padding + kernel +
// output_padding, ...]), its figures estimated from the nearest recorded
// configuration (no transposed one is recorded yet: a plain one), and
// refuses what PyTorch refuses.
func TestConvTransposed(t *testing.T) {
	s := newTestSession(t, 1)
	y, _ := convRun(t, s, "conv_transpose2d", []int64{7, 64, 15, 15}, []int64{64, 32, 4, 4}, []int64{2}, []int64{1}, []int64{1}, int64(1), []int64{1})
	if !slices.Equal(y.Shape, []int64{7, 32, 31, 31}) {
		t.Errorf("shape %v, want [7, 32, 31, 31]", y.Shape)
	}
	if est := s.StepEstimatesSince(0); len(est) != 1 || est[0].Op != "F.conv_transpose2d" {
		t.Errorf("estimates %v", est)
	}
	in := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{7, 32, 15, 15}, DType: Float32, Device: cuda0})
	wt := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{64, 32, 4, 4}, DType: Float32, Device: cuda0})
	_, err := s.Run(Ops["conv_transpose2d"], Args{in, wt, nil, []int64{2}, []int64{1}, []int64{0}, int64(1), []int64{1}})
	wantErr(t, "channels", err, "RuntimeError: Given transposed=1, weight of size [64, 32, 4, 4], expected input[7, 32, 15, 15] to have 64 channels, but got 32 channels instead")
	_, err = s.Run(Ops["conv_transpose2d"], Args{wt, wt, nil, []int64{2}, []int64{1}, []int64{2}, int64(1), []int64{1}})
	wantErr(t, "output_padding", err, "RuntimeError: output padding must be smaller than either stride or dilation, but got output_padding_height: 2 output_padding_width: 2 stride_height: 2 stride_width: 2 dilation_height: 1 dilation_width: 1")
}

// TestConvStridedInput: a strided input (PointNet's Conv1d of
// points.transpose(2, 1)) is copied dense first: the forward's peak holds
// the copy too; recorded for conv1d (zoo_paths.py), it is no estimate.
func TestConvStridedInput(t *testing.T) {
	s := newTestSession(t, 1)
	pts := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{8, 1000, 16}, DType: Float32, Device: cuda0})
	wt := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{32, 16, 5}, DType: Float32, Device: cuda0})
	x := s.Transpose(pts, 1, 2)
	s.ResetPeak(0)
	if _, err := s.Run(Ops["conv1d"], Args{x, wt, nil, []int64{1}, []int64{2}, []int64{1}, int64(1)}); err != nil {
		t.Fatal(err)
	}
	peak, _ := s.MemoryStat(0, "allocated_bytes.all.peak")
	now, _ := s.MemoryStat(0, "allocated_bytes.all.current")
	if peak-now < 512000 {
		t.Errorf("peak over what is kept %d, want at least the 512000-byte copy", peak-now)
	}
	for _, e := range s.StepEstimatesSince(0) {
		if strings.Contains(e.Cause, "strided input") {
			t.Errorf("estimated: %v", e)
		}
	}
}

// TestConvDenseGradientCopies: the dense copies of a strided incoming
// gradient, put into a recorded dense backward, are where PyTorch put
// those of a broadcast one in its recording of the same configuration
// (train_cnn's second convolution), up to the bias's gradient (whose
// reduction's buffers are the broadcast one's own).
func TestConvDenseGradientCopies(t *testing.T) {
	table, err := builtinConvTable()
	if err != nil {
		t.Fatal(err)
	}
	c := convConfig{x: []int64{64, 32, 16, 16}, w: []int64{64, 32, 3, 3}, stride: []int64{1, 1}, padding: []int64{1, 1},
		dilation: []int64{1, 1}, groups: 1, bias: true, dtype: Float32, format: "contiguous"}
	e := table[c.canon()]
	if err := e.readEvents(); err != nil {
		t.Fatal(err)
	}
	for _, mask := range []string{"xwb", "wb"} {
		got := withDenseGradient(e.backward[convBackwardKey{mask, "dense"}], e.yBytes)
		want := e.backward[convBackwardKey{mask, "expanded"}]
		b := slices.IndexFunc(want, func(x convEvent) bool { return x.role == 'b' })
		if !sameEvents(got, want[:b+1]) {
			t.Errorf("%s: %+v\nwant %+v", mask, got, want[:b+1])
		}
	}
}

// TestConvRecordedOnH100: a configuration the H100 alone recorded
// (ResNet's stem at batch 12, networks.jsonl.gz) runs with its recorded
// workspace (x+y+w+16 at batch 12: 7225344 + 38535168 + 37632 + 16), an
// estimate that names the card and the file, and --strict refuses it;
// one the H200 recorded too (the stem at batch 32, common.jsonl.gz) is
// exact.
func TestConvRecordedOnH100(t *testing.T) {
	s := newTestSession(t, 1)
	convRun(t, s, "conv2d", []int64{12, 3, 224, 224}, []int64{64, 3, 7, 7}, []int64{2}, []int64{3}, []int64{1}, int64(1))
	est := s.StepEstimatesSince(0)
	if len(est) != 1 || est[0].Cause != "[12, 3, 224, 224] x [64, 3, 7, 7] stride [2, 2] float32: "+otherCard([]string{"NVIDIA H100 80GB HBM3"}, "networks.jsonl.gz", "NVIDIA H200") {
		t.Fatalf("estimates %v", est)
	}
	c, err := lineConfig([]int64{12, 3, 224, 224}, []int64{64, 3, 7, 7}, []int64{2, 2}, []int64{3, 3}, []int64{1, 1}, nil, 1, false, false, false, "float32", "")
	if err != nil {
		t.Fatal(err)
	}
	if e := s.convTable[c.canon()]; e == nil || len(e.forward) != 3 || e.forward[1].bytes != 45798160 {
		t.Errorf("the recorded entry %+v, want the output then a workspace of 45798160 bytes", e)
	}
	exact := newTestSession(t, 1)
	convRun(t, exact, "conv2d", []int64{32, 3, 224, 224}, []int64{64, 3, 7, 7}, []int64{2}, []int64{3}, []int64{1}, int64(1))
	if est := exact.StepEstimatesSince(0); len(est) != 0 {
		t.Errorf("a configuration the H200 recorded: estimates %v", est)
	}
	strict, err := NewSession(Options{Preset: Presets["h200"], Devices: 1, FakeHost: true, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	in := mustTensor(t, strict, TensorSpec{Op: "randn", Shape: []int64{12, 3, 224, 224}, DType: Float32, Device: cuda0})
	wt := mustTensor(t, strict, TensorSpec{Op: "randn", Shape: []int64{64, 3, 7, 7}, DType: Float32, Device: cuda0})
	if _, err := strict.Run(Ops["conv2d"], Args{in, wt, nil, []int64{2}, []int64{3}, []int64{1}, int64(1)}); err == nil || !strings.Contains(err.Error(), "was recorded on NVIDIA H100 80GB HBM3 (networks.jsonl.gz), not on the simulated NVIDIA H200") {
		t.Errorf("--strict: %v, want the refusal", err)
	}
}

// TestConvExactOnTheCardThatRecordedIt: on the simulated H100 the
// configuration the H100 alone recorded is exact, and one the H200
// alone recorded (table.jsonl.gz) is the estimate, naming both cards.
func TestConvExactOnTheCardThatRecordedIt(t *testing.T) {
	h100, err := NewSession(Options{Preset: Presets["h100"], Devices: 1, FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	convRun(t, h100, "conv2d", []int64{12, 3, 224, 224}, []int64{64, 3, 7, 7}, []int64{2}, []int64{3}, []int64{1}, int64(1))
	if est := h100.StepEstimatesSince(0); len(est) != 0 {
		t.Errorf("the H100's own recording on the simulated H100: estimates %v", est)
	}
	convRun(t, h100, "conv2d", []int64{16, 32, 64, 64}, []int64{48, 32, 5, 5}, []int64{1}, []int64{2}, []int64{1}, int64(1))
	est := h100.StepEstimatesSince(0)
	want := "[16, 32, 64, 64] x [48, 32, 5, 5] stride [1, 1] float32: " + otherCard([]string{"NVIDIA H200"}, "table.jsonl.gz", "NVIDIA H100 80GB HBM3")
	if len(est) != 1 || est[0].Cause != want || !strings.Contains(want, "145 agree") {
		t.Errorf("the H200's recording on the simulated H100: estimates %v, want one: %s", est, want)
	}
	t4, err := NewSession(Options{Preset: Presets["t4"], Devices: 1, FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	convRun(t, t4, "conv2d", []int64{16, 32, 64, 64}, []int64{48, 32, 5, 5}, []int64{1}, []int64{2}, []int64{1}, int64(1))
	if est := t4.StepEstimatesSince(0); len(est) != 1 || !strings.HasSuffix(est[0].Cause, "not on the simulated Tesla T4: cuDNN picks its engines per GPU") {
		t.Errorf("the H200's recording on a simulated T4: estimates %v", est)
	}
}
