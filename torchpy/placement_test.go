package torchpy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// TestSegmentsWhereTheDriverPutThem runs the rule scripts recorded with
// their segments' addresses (testdata/segments, scripts/record_script.py
// --addresses) on the simulated H200 with the driver's own address space
// modelled (Options.DriverAddresses) and requires each segment PyTorch
// made, in order, at the driver's address relative to the first: the
// engine reports what makes the driver take address space for itself
// (its first kernel, cuBLAS handles, the first reduction, the library
// an optimizer maps, cuDNN's first handle: device.Event) and the
// simulated device takes it (allocator/device/sim). Each script is held
// as far as the model goes: its first segment placed elsewhere is the
// one named, and a change that places more must raise the count.
func TestSegmentsWhereTheDriverPutThem(t *testing.T) {
	for _, c := range []struct {
		recording string            // under testdata/segments
		script    string            // under testdata
		env       map[string]string // the probe's os.environ.get(NAME), given
		segs      int               // segments at the driver's address, from the first
		stops     string            // what places the next one elsewhere
	}{
		{"ckpt_block", "pyrules/ckpt_block", nil, 10, ""},
		{"amp_linear", "pyrules/amp_linear", nil, 8, ""},
		{"amp_scaler", "pyrules/amp_scaler", nil, 9, "line 25: 2 MiB more of the driver's where the backward thread's workspace ends"},
		{"autograd_buffer", "pyrules/autograd_buffer", nil, 7, "line 80: as amp_scaler's line 25"},
		{"module_convert", "pyrules/module_convert", nil, 2, "line 32: the parameters made on the host first moved the driver's next chunk above the context"},
		{"cnn_net", "pyrules/cnn_net", nil, 1, "line 30: what cuDNN takes"},
		{"h100/ckpt_block", "pyrules/ckpt_block", nil, 10, ""},
		{"h100/amp_linear", "pyrules/amp_linear", nil, 8, ""},
		{"h100/amp_scaler", "pyrules/amp_scaler", nil, 8, "line 22: a 16 MiB segment the H200 put at -504 at -276, the driver's own 2 MiB pieces placed otherwise in the two runs"},
		{"h100/module_convert", "pyrules/module_convert", nil, 2, "as on the H200"},
		{"h100/llama_train", "models/zoo/llama_train", nil, 3, "line 142: a model built on the host, the driver's chunks between its threads' malloc arenas"},
		{"h100/ckpt_gpt_train", "models/zoo/ckpt_gpt_train", nil, 13, "line 67: a 2 MiB segment in the new local memory's top gap 2 MiB above the tool's, the driver's own 2 MiB pieces placed otherwise, as amp_scaler's line 25"},
		{"h100/dcgan_train", "models/zoo/dcgan_train", nil, 3, "line 65: 6 MiB more of the driver's below the segment (cuDNN's)"},
		{"h100/siamese_triplet", "models/zoo/siamese_triplet", nil, 2, "line 42: a 2 MiB segment in the top gap of the new local memory, which the driver reserved below the libraries cuDNN mapped at its first convolution (not modelled)"},
		{"h100/vae_mnist", "models/zoo/vae_mnist", nil, 2, "line 53: the first workspace in a chunk 32 MiB lower"},
		{"h100/vit_train", "models/zoo/vit_train", nil, 7, "line 91: as siamese_triplet's; its segments in PyTorch's order all the same (TestVitTrainPlacedAsPyTorch)"},
		{"h100/nanogpt_bf16_accum", "models/zoo/nanogpt_bf16_accum", nil, 7, "line 83: 10 MiB of the driver's above the first workspace (8 MiB, then 2 MiB host-mapped) before attention's next segment, not modelled"},
		{"h100/train_sweep", "models/train_sweep", nil, 6, "line 56: a chunk above the context, where the model's host tensors were until .cuda() copied them"},
		{"h100/train_sweep_again", "models/train_sweep", nil, 6, "as train_sweep's, that chunk 32 MiB higher"},
		{"h100/probe_old_lmem_host0_fill", "../scripts/probe_old_lmem", map[string]string{"PROBE_HOST": "0", "PROBE_FIRST": "fill"}, 8, "line 38: the host's own mapping (malloc's, line 37) in the old local memory the driver gave back"},
		{"h100/probe_old_lmem_host0_embedding", "../scripts/probe_old_lmem", map[string]string{"PROBE_HOST": "0", "PROBE_FIRST": "embedding"}, 7, "line 36: as host0_fill's line 38 (line 35's mapping)"},
		{"h100/probe_old_lmem_host1_fill", "../scripts/probe_old_lmem", map[string]string{"PROBE_HOST": "1", "PROBE_FIRST": "fill"}, 2, "line 27: a chunk above the context, where the host tensor was until .cuda() copied it"},
		{"h100/probe_old_lmem_host1_embedding", "../scripts/probe_old_lmem", map[string]string{"PROBE_HOST": "1", "PROBE_FIRST": "embedding"}, 2, "as host1_fill's"},
		{"h100/probe_cudnn_libs_attention", "../scripts/probe_cudnn_libs", map[string]string{"PROBE_CUDNN": "attention"}, 5, "line 30: below the new local memory, cuDNN's libraries having filled the old local memory the driver gave back, where the tool carves it (an estimate there)"},
		{"h100/probe_cudnn_libs_conv", "../scripts/probe_cudnn_libs", map[string]string{"PROBE_CUDNN": "conv"}, 5, "as the attention's"},
		{"h100/gpt2_sample", "models/zoo/gpt2_sample", nil, 3, "line 125: a model built on the host, the driver's next chunks above the context where its host tensors were (+832 on)"},
		{"h100/probe_host_room_none", "../scripts/probe_host_room", map[string]string{"PROBE_ROOM": "none"}, 5, ""},
		{"h100/probe_host_room_ops", "../scripts/probe_host_room", map[string]string{"PROBE_ROOM": "ops"}, 1, "line 41: a chunk between the malloc arenas of the host's intra-op threads (line 31's cos of 8,192 elements started them), where the tool labels ties instead"},
		{"h100/probe_host_room_threads", "../scripts/probe_host_room", map[string]string{"PROBE_ROOM": "threads"}, 1, "as ops' (line 32's fill of 3M elements)"},
		{"h100/probe_host_room_tensor40", "../scripts/probe_host_room", map[string]string{"PROBE_ROOM": "tensor40"}, 5, ""},
		{"h100/probe_host_room_tensor64", "../scripts/probe_host_room", map[string]string{"PROBE_ROOM": "tensor64"}, 1, "line 41: a chunk where the 64 MiB host tensor was, 32 MiB aligned (the 40 MiB one's hole held none)"},
		{"h100/probe_host_room_small20", "../scripts/probe_host_room", map[string]string{"PROBE_ROOM": "small20"}, 5, ""},
		{"h100/probe_piece_hole_sum", "../scripts/probe_piece_hole", map[string]string{"PROBE_OP": "sum"}, 6, ""},
		{"h100/probe_piece_hole_embedding", "../scripts/probe_piece_hole", map[string]string{"PROBE_OP": "embedding"}, 6, ""},
	} {
		t.Run(c.recording, func(t *testing.T) {
			want := recordedSegments(t, filepath.Join("..", "testdata", "segments", c.recording+".jsonl"))
			preset := "h200"
			if strings.HasPrefix(c.recording, "h100/") {
				preset = "h100"
			}
			s, err := engine.NewSession(engine.Options{Preset: engine.Presets[preset], Backend: "sim", FakeHost: true, Devices: 1, DriverAddresses: true})
			if err != nil {
				t.Fatal(err)
			}
			script := filepath.Join("..", "testdata", c.script+".py")
			if c.env != nil {
				script = withEnv(t, script, c.env)
			}
			runScriptIn(t, s, script)
			var got []uint64
			for _, e := range s.History(0)[:scriptEnd[s]] {
				if e.Action == "segment_alloc" {
					got = append(got, e.Addr)
				}
			}
			n := 0
			for n < min(len(got), len(want)) && got[n]-got[0] == want[n]-want[0] {
				n++
			}
			if n != c.segs {
				t.Errorf("%d of %d segments at the driver's address, want %d (%s)", n, len(want), c.segs, c.stops)
			}
			if c.stops == "" && (n != len(want) || len(got) != len(want)) {
				t.Errorf("%d segments made, PyTorch's %d", len(got), len(want))
			}
		})
	}
}

// withEnv is a copy of script (in a test's directory) that reads the
// values env gives where it reads os.environ.get(NAME): the tool's os
// holds PYTORCH_* variables only, and a probe is recorded once for each
// setting of its own.
func withEnv(t *testing.T, script string, env map[string]string) string {
	t.Helper()
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		call := fmt.Sprintf("os.environ.get(%q)", k)
		if !bytes.Contains(src, []byte(call)) {
			t.Fatalf("%s does not read %s", script, call)
		}
		src = bytes.ReplaceAll(src, []byte(call), []byte(strconv.Quote(v)))
	}
	out := filepath.Join(t.TempDir(), filepath.Base(script))
	if err := os.WriteFile(out, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// recordedSegments are the addresses of the segments a recording made,
// in order.
func recordedSegments(t *testing.T, path string) []uint64 {
	t.Helper()
	var addrs []uint64
	for _, e := range readAddressed(t, path) {
		if e.action == "segment_alloc" {
			addrs = append(addrs, e.block)
		}
	}
	return addrs
}

// TestVitTrainPlacedAsPyTorch: models/zoo/vit_train.py on the simulated
// H100 with the driver's address space modelled makes PyTorch's every
// allocator event (2,871 over its two training iterations), each in
// the segment PyTorch made it in (segments counted in the order made)
// at the same offset (testdata/segments/h100/vit_train.jsonl). From its
// second iteration on its best fit breaks ties between equal free
// blocks by their addresses; what places them is cuDNN's first handle,
// which took 2 MiB of the 12 MiB gap the segment of its first MLP's
// output would otherwise take (allocator/device/sim), and label
// smoothing's backward, which frees its two products' gradients in
// PyTorch's order (engine/loss_nll.go).
func TestVitTrainPlacedAsPyTorch(t *testing.T) {
	var want []pairedEvent
	for _, e := range readAddressed(t, filepath.Join("..", "testdata", "segments", "h100", "vit_train.jsonl")) {
		if e.action != "snapshot" {
			want = append(want, e)
		}
	}
	s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h100"], Backend: "sim", FakeHost: true, Devices: 1, DriverAddresses: true})
	if err != nil {
		t.Fatal(err)
	}
	runScriptIn(t, s, filepath.Join("..", "testdata", "models", "zoo", "vit_train.py"))
	var got []pairedEvent
	for _, e := range s.History(0)[:scriptEnd[s]] {
		got = append(got, pairedEvent{e.Action, e.Size, e.Addr})
	}
	if len(got) != len(want) {
		t.Errorf("%d events, PyTorch's %d", len(got), len(want))
	}
	gotAt, wantAt := inSegment(got), inSegment(want)
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.action != w.action || g.size != w.size || gotAt(g.block) != wantAt(w.block) {
			t.Fatalf("event %d: %s %d at (segment, offset) %v, PyTorch's %s %d at %v", i, g.action, g.size, gotAt(g.block), w.action, w.size, wantAt(w.block))
		}
	}
}

// inSegment names an address of events by the segment it lies in (its
// count among the segments events made) and its offset there.
func inSegment(events []pairedEvent) func(addr uint64) [2]uint64 {
	var segs []pairedEvent
	for _, e := range events {
		if e.action == "segment_alloc" {
			segs = append(segs, e)
		}
	}
	return func(addr uint64) [2]uint64 {
		for i, sg := range segs {
			if addr >= sg.block && addr < sg.block+sg.size {
				return [2]uint64{uint64(i), addr - sg.block}
			}
		}
		return [2]uint64{^uint64(0), addr}
	}
}
