package engine

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestConvTableIsTheRecording: the embedded tables are testdata/conv's
// recordings, byte for byte.
func TestConvTableIsTheRecording(t *testing.T) {
	names, err := fs.Glob(convTableFiles, "convtable/*.jsonl.gz")
	if err != nil || len(names) < 3 {
		t.Fatalf("embedded tables %v: %v", names, err)
	}
	for _, path := range names {
		name := strings.TrimPrefix(path, "convtable/")
		embedded, err := convTableFiles.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recorded, err := os.ReadFile(filepath.Join("..", "testdata", "conv", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(embedded, recorded) {
			t.Errorf("engine/convtable/%s differs from testdata/conv/%s: copy the recording", name, name)
		}
	}
}

// TestConvTableHoldsTheRecordings: every configuration recorded in each
// embedded file (the grid's 300, the table's 19, the common ones' 42, of
// which 4 are the grid's again, event for event, and the networks'
// grid's) reads, and is in the table with the same events; and the
// issue's 7x7 forward's workspace is x + y + w + 16 bytes
// (testdata/conv/README.md).
func TestConvTableHoldsTheRecordings(t *testing.T) {
	table, err := builtinConvTable()
	if err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(convTableFiles, "convtable/*.jsonl.gz")
	older := map[string]bool{}
	for _, name := range names {
		f, _ := convTableFiles.Open(name)
		alone := convTable{}
		err := alone.read(f, name, false)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k, e := range alone {
			if strings.Contains("grid table common", strings.TrimSuffix(strings.TrimPrefix(name, "convtable/"), ".jsonl.gz")) {
				older[k] = true
			}
			in := table[k]
			if in == nil {
				t.Errorf("%s: %s is not in the table", name, k)
				continue
			}
			if err := in.readEvents(); err != nil {
				t.Errorf("%s: %v", k, err)
				continue
			}
			if !sameEvents(in.forward, e.forward) {
				t.Errorf("%s: %s: forward %v, the table's %v", name, k, e.forward, in.forward)
			}
			for bk, ev := range e.backward {
				if !slices.Equal(in.backward[bk], ev) || !in.hasPhase(&bk) {
					t.Errorf("%s: %s: backward %v %v, the table's %v", name, k, bk, ev, in.backward[bk])
				}
			}
		}
	}
	if len(older) != 300+19+42-4 {
		t.Errorf("%d configurations in the older recordings, want 357", len(older))
	}
	c := convConfig{x: []int64{1, 128, 768, 1024}, w: []int64{64, 128, 7, 7}, stride: []int64{1, 1}, padding: []int64{3, 3},
		dilation: []int64{1, 1}, groups: 1, bias: true, dtype: Float32, format: "contiguous"}
	e := table[c.canon()]
	if e == nil {
		t.Fatal("the issue's 7x7 convolution is not in the table")
	}
	x, y, w := uint64(402653184), uint64(201326592), uint64(1605632)
	if e.forward[1].bytes != x+y+w+16 || e.forward[1].kept || !e.forward[0].kept || e.forward[0].bytes != y {
		t.Errorf("7x7 forward: %+v, want the output then a workspace of %d freed", e.forward, x+y+w+16)
	}
}

// TestConvTableBackwardsAreUsable: in every recorded backward, each
// tensor kept is the gradient of exactly one input asked (by its size in
// the older recordings).
func TestConvTableBackwardsAreUsable(t *testing.T) {
	table, err := builtinConvTable()
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for k, e := range table {
		if err := e.readEvents(); err != nil {
			t.Fatal(err)
		}
		for bk, events := range e.backward {
			var want []int
			for i := range bk.mask {
				want = append(want, strings.IndexByte("xwb", bk.mask[i]))
			}
			if _, err := gradientRoles("conv", events, want); err != nil {
				t.Errorf("%+v %s %s: %v", k, bk.mask, bk.grad, err)
			}
			runs++
		}
	}
	if runs < 300+17 {
		t.Errorf("%d backward runs", runs)
	}
}

// convOnce runs F.conv2d of input x and weight w (padding 1) with a
// bias of w's output channels.
func convOnce(t *testing.T, s *Session, x, w []int64, grad bool) (*Tensor, error) {
	t.Helper()
	in := mustTensor(t, s, TensorSpec{Op: "randn", Shape: x, DType: Float32, Device: cuda0, RequiresGrad: grad})
	wt := mustTensor(t, s, TensorSpec{Op: "randn", Shape: w, DType: Float32, Device: cuda0, RequiresGrad: grad})
	b := mustTensor(t, s, TensorSpec{Op: "randn", Shape: w[:1], DType: Float32, Device: cuda0, RequiresGrad: grad})
	return s.Run(Ops["conv2d"], Args{in, wt, b, []int64{1}, []int64{1}, []int64{1}, int64(1)})
}

// TestConvNotRecordedSaysHowToRecord: under Options.Strict a
// configuration outside the table is refused, naming it, with the
// probe's --config line for it, which records exactly that
// configuration and its backward, and calibrate.py, which records a
// program's, and how to pass the file.
func TestConvNotRecordedSaysHowToRecord(t *testing.T) {
	s, err := NewSession(Options{Preset: Presets["h200"], FakeHost: true, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = convOnce(t, s, []int64{3, 5, 7, 9}, []int64{4, 5, 3, 3}, true)
	if err == nil {
		t.Fatal("an unrecorded convolution ran")
	}
	msg := pyText(err)
	if !strings.HasPrefix(msg, "NotImplementedError: F.conv2d of input [3, 5, 7, 9], weight [4, 5, 3, 3], stride [1, 1], padding [1, 1]") ||
		!strings.Contains(msg, "`python3 scripts/calibrate.py FILE.py`") || !strings.HasSuffix(msg, "pass the file with --calibration or GPUMEMREPL_CALIBRATION") {
		t.Errorf("error %q", msg)
	}
	_, line, ok := strings.Cut(msg, "--config '")
	line, _, _ = strings.Cut(line, "'")
	var cfg struct {
		X, W    []int64
		Padding []int64
		Bias    bool
		Bwd     [][2]string
	}
	if !ok || json.Unmarshal([]byte(line), &cfg) != nil {
		t.Fatalf("no --config line in %q", msg)
	}
	if len(cfg.X) != 4 || cfg.X[3] != 9 || cfg.W[0] != 4 || !cfg.Bias || len(cfg.Bwd) != 1 || cfg.Bwd[0] != [2]string{"xwb", "dense"} {
		t.Errorf("--config %s", line)
	}
}

// TestConvUserTable: a table named by GPUMEMREPL_CONV_TABLE adds its
// configurations; the recorded workspace is allocated and freed.
func TestConvUserTable(t *testing.T) {
	rec := `{"x": [3, 5, 7, 9], "w": [4, 5, 3, 3], "stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "groups": 1, "bias": true, "dtype": "float32", "format": "contiguous", "deterministic": false, "x_bytes": 3780, "w_bytes": 720, "y_bytes": 3024, "fwd": {"events": [["alloc", 3024, 0], ["alloc", 5000000, 1], ["free_requested", 5000000, 1], ["free_completed", 5000000, 1]]}, "bwd_runs": []}`
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write([]byte(rec + "\n"))
	z.Close()
	path := filepath.Join(t.TempDir(), "mine.jsonl.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(convTableEnv, path)
	s := newTestSession(t, 1)
	if _, err := convOnce(t, s, []int64{3, 5, 7, 9}, []int64{4, 5, 3, 3}, false); err != nil {
		t.Fatal(err)
	}
	peak, _ := s.MemoryStat(0, "allocated_bytes.all.peak")
	now, _ := s.MemoryStat(0, "allocated_bytes.all.current")
	if peak-now != 5000192 { // the workspace, rounded to 512
		t.Errorf("peak %d over %d now, want the 5000192-byte workspace", peak, now)
	}
}

// TestConvRefusals: cudnn.benchmark, cudnn.enabled=False and a mismatch
// of channels.
func TestConvRefusals(t *testing.T) {
	s := newTestSession(t, 1)
	s.SetCudnnFlags(func() CudnnFlags { return CudnnFlags{Benchmark: true} })
	_, err := convOnce(t, s, []int64{64, 3, 32, 32}, []int64{32, 3, 3, 3}, false)
	wantErr(t, "benchmark", err, "NotImplementedError: F.conv2d under torch.backends.cudnn.benchmark=True (cuDNN's timed search for the fastest algorithm) is not modelled by gpumemrepl")
	s.SetCudnnFlags(func() CudnnFlags { return CudnnFlags{Disabled: true} })
	_, err = convOnce(t, s, []int64{64, 3, 32, 32}, []int64{32, 3, 3, 3}, false)
	wantErr(t, "enabled", err, "NotImplementedError: F.conv2d under torch.backends.cudnn.enabled=False (PyTorch's own convolution kernels) is not modelled by gpumemrepl")
	s.SetCudnnFlags(nil)
	_, err = convOnce(t, s, []int64{64, 4, 32, 32}, []int64{32, 3, 3, 3}, false)
	wantErr(t, "channels", err, "RuntimeError: Given groups=1, weight of size [32, 3, 3, 3], expected input[64, 4, 32, 32] to have 3 channels, but got 4 channels instead")
}

// TestChannelsLastLike: suggest_memory_format's test of strides, as
// c10's is_channels_last_strides_2d_s4 and _3d_s5 decide it.
func TestChannelsLastLike(t *testing.T) {
	for _, c := range []struct {
		what            string
		shape, strides  []int64
		channelsLastish bool
	}{
		{"contiguous", []int64{2, 3, 4, 5}, []int64{60, 20, 5, 1}, false},
		{"channels_last", []int64{2, 3, 4, 5}, []int64{60, 1, 15, 3}, true},
		{"a permute back from channels last (convnext)", []int64{6, 384, 3, 3}, []int64{3456, 1, 1152, 384}, true},
		{"flatten(2).transpose(1, 2) of a slice (vit)", []int64{10, 384, 14, 14}, []int64{75648, 1, 5376, 384}, true},
		{"H and W transposed", []int64{2, 3, 4, 5}, []int64{60, 20, 1, 4}, false},
		{"a broadcast channel", []int64{2, 3, 4, 5}, []int64{20, 0, 5, 1}, false},
		{"N111, strides alike", []int64{4, 1, 1, 1}, []int64{1, 1, 1, 1}, false},
		{"channels_last_3d", []int64{2, 3, 4, 5, 6}, []int64{360, 1, 90, 18, 3}, true},
		{"3-d", []int64{2, 3, 4}, []int64{12, 1, 3}, false},
	} {
		if got := channelsLastLike(c.shape, c.strides); got != c.channelsLastish {
			t.Errorf("%s: %v, want %v", c.what, got, c.channelsLastish)
		}
	}
}
