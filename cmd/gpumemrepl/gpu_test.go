package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The tests in this file need a real GPU. Elsewhere they skip, saying
// why; with GPUMEMREPL_REQUIRE_GPU=1 (the GPU machine's run) a missing GPU
// fails them instead.

const mib = 1 << 20

// requireGPU returns the gpus listing of --device cuda, or skips.
func requireGPU(t *testing.T) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "gpus.gpumem")
	if err := os.WriteFile(script, []byte("gpus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "cuda", "--no-color", script)
	if code != 0 {
		if os.Getenv("GPUMEMREPL_REQUIRE_GPU") == "1" {
			t.Fatalf("no GPU, and GPUMEMREPL_REQUIRE_GPU=1: %s", errOut)
		}
		t.Skipf("needs a GPU: %s", strings.TrimSpace(errOut))
	}
	return out
}

func TestGPUList(t *testing.T) {
	out := requireGPU(t)
	if !strings.Contains(out, "cuda:0  NVIDIA") || !strings.Contains(out, "NVML:") {
		t.Errorf("gpus on a real GPU:\n%s", out)
	}
}

// TestGPUSeed000 runs the first seed experiment on the real GPU: the same
// allocated and reserved bytes as PyTorch, driver-used tracking reserved
// plus the context, and only the context left at the end.
func TestGPUSeed000(t *testing.T) {
	requireGPU(t)
	checkSeed000(t, "cuda", func(t *testing.T, script string, rows []stepRow, _ []truthStep) {
		checkDriverTracksReserved(t, script, rows)
		last := rows[len(rows)-1]
		if last.Reserved != 0 || last.DriverUsed == nil || abs(int64(*last.DriverUsed)-int64(*last.Context)) > 2*mib {
			t.Errorf("%s: at the end reserved %d, driver-used %v, context %v", script, last.Reserved, last.DriverUsed, last.Context)
		}
	})
}

// checkDriverTracksReserved checks that on every device, from its first
// CUDA command on, driver-used is reserved plus the context, within 2
// MiB, at every step.
func checkDriverTracksReserved(t *testing.T, script string, rows []stepRow) {
	for _, r := range rows {
		for _, d := range r.Devices {
			if d.DriverUsed == nil || d.Context == nil {
				if d.Reserved != 0 {
					t.Errorf("%s: line %d: %s: driver-used unknown", script, r.Line, d.Device)
				}
				continue
			}
			if off := int64(*d.DriverUsed) - int64(d.Reserved) - int64(*d.Context); off > 2*mib || off < -2*mib {
				t.Errorf("%s: line %d (%s): %s: driver-used %d - reserved %d is %d from the context %d", script, r.Line, r.Source, d.Device, *d.DriverUsed, d.Reserved, off, *d.Context)
			}
		}
	}
}

// TestGPUScriptsMatchSim runs every script on both devices: the same
// allocated and reserved bytes, the same lines fail, and on the GPU
// driver-used is reserved plus the context at every step (with
// expandable segments: the pages mapped so far).
func TestGPUScriptsMatchSim(t *testing.T) {
	gpus := strconv.Itoa(strings.Count("\n"+requireGPU(t), "\ncuda:"))
	scripts, _ := filepath.Glob("../../scripts/*.gpumem")
	for _, s := range scripts {
		simRows := runJSON(t, "sim", "--devices", gpus, "--keep-going", s)
		gpuRows := runJSON(t, "cuda", "--keep-going", s)
		if len(simRows) != len(gpuRows) {
			t.Fatalf("%s: %d steps on sim, %d on the GPU", s, len(simRows), len(gpuRows))
		}
		for i, g := range gpuRows {
			m := simRows[i]
			if (g.Error == nil) != (m.Error == nil) {
				t.Errorf("%s: line %d (%s): GPU error %v; sim %v", s, g.Line, g.Source, g.Error, m.Error)
			}
			for k, d := range g.Devices {
				if d.Allocated != m.Devices[k].Allocated || d.Reserved != m.Devices[k].Reserved {
					t.Errorf("%s: line %d (%s): %s: GPU allocated %d reserved %d; sim %d %d", s, g.Line, g.Source, d.Device, d.Allocated, d.Reserved, m.Devices[k].Allocated, m.Devices[k].Reserved)
				}
			}
		}
		checkDriverTracksReserved(t, s, gpuRows)
	}
}

// TestGPUTraces replays every trace through the real device, each in a
// process of its own as PyTorch recorded it, and holds it to PyTorch's
// allocated and reserved bytes (and OOM errors) at every recorded op.
// Every key and layout is compared too, but only logged: which of two
// equal free blocks serves a request depends on the addresses the driver
// hands out, which differ from process to process (two runs of this test
// disagreed on which traces match in full), so no real process, PyTorch's
// included, reproduces them exactly; the simulated device, which models
// the recording process's addresses, matches every key.
func TestGPUTraces(t *testing.T) {
	requireGPU(t)
	var files []string
	for _, pat := range []string{"../../testdata/truth/traces/*.json", "../../testdata/traces/*.json.gz", "../../testdata/perf_trace.json.gz"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	full := 0
	for _, f := range files {
		out, errOut, code := run(t, "replay", "--device", "cuda", "--check", "--keys", "allocated_bytes,reserved_bytes", f)
		if code != 0 {
			t.Errorf("replay --device cuda --check --keys allocated_bytes,reserved_bytes: exit %d\n%s%s", code, out, errOut)
		}
		out, _, code = run(t, "replay", "--device", "cuda", "--check", f)
		if code == 0 {
			full++
		} else {
			t.Logf("not every key and layout: %s", strings.TrimSpace(out))
		}
	}
	t.Logf("%d of %d traces match every key and layout on this run", full, len(files))
}

// TestGPUMemoryVizReadsExport renders an exported snapshot with
// PyTorch's own torch.cuda._memory_viz (the GPU machine has PyTorch).
func TestGPUMemoryVizReadsExport(t *testing.T) {
	requireGPU(t)
	dir := t.TempDir()
	snap := filepath.Join(dir, "gpt.pickle")
	if out, errOut, code := run(t, "replay", "--export", snap, "../../testdata/truth/workloads/gpt_train.pickle"); code != 0 {
		t.Fatalf("export: exit %d: %s%s", code, out, errOut)
	}
	for _, plot := range []string{"trace_plot", "segment_plot"} {
		html := filepath.Join(dir, plot+".html")
		out, err := exec.Command("python3", "-m", "torch.cuda._memory_viz", plot, snap, "-o", html).CombinedOutput()
		if err != nil {
			t.Errorf("_memory_viz %s: %v\n%s", plot, err, out)
			continue
		}
		if st, err := os.Stat(html); err != nil || st.Size() < 1000 {
			t.Errorf("_memory_viz %s wrote %v %v", plot, st, err)
		}
	}
}

// torchStep is one row of scripts/record_script.py.
type torchStep struct {
	Line    int     `json:"line"`
	Source  string  `json:"source"`
	Error   *string `json:"error"`
	Devices []struct {
		Allocated    uint64  `json:"allocated"`
		Reserved     uint64  `json:"reserved"`
		NVMLProcUsed *uint64 `json:"nvml_proc_used"`
	} `json:"devices"`
}

// TestGPUMatchesTorch runs the scripts that are plain PyTorch code in
// PyTorch itself (scripts/record_script.py) and in gpumemrepl, on the
// same GPUs in the same run, and compares every device's allocated and
// reserved bytes at every step, and which steps fail. two_gpus.gpumem
// on a machine with one GPU fails on the same lines in both.
func TestGPUMatchesTorch(t *testing.T) {
	requireGPU(t)
	for _, name := range []string{"seed000_torch", "seed003_torch", "mlp_adamw", "inference_no_grad", "total_loss_leak", "two_gpus"} {
		script := "../../scripts/" + name + ".gpumem"
		rec := filepath.Join(t.TempDir(), name+".jsonl")
		if out, err := exec.Command("python3", "../../scripts/record_script.py", script, rec).CombinedOutput(); err != nil {
			t.Fatalf("record_script.py %s: %v\n%s", name, err, out)
		}
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		torch := jsonLines[torchStep](t, string(data))
		ours := runJSON(t, "cuda", "--keep-going", script)
		if len(ours) != len(torch) {
			t.Fatalf("%s: %d steps here, %d in PyTorch", name, len(ours), len(torch))
		}
		for i, r := range ours {
			w := torch[i]
			if r.Line != w.Line || (r.Error == nil) != (w.Error == nil) || len(r.Devices) != len(w.Devices) {
				t.Errorf("%s: line %d (%s): error %v, %d devices; PyTorch line %d: error %v, %d devices", name, r.Line, r.Source, r.Error, len(r.Devices), w.Line, w.Error, len(w.Devices))
				continue
			}
			for k, d := range r.Devices {
				if d.Allocated != w.Devices[k].Allocated || d.Reserved != w.Devices[k].Reserved {
					t.Errorf("%s: line %d (%s): %s: allocated %d reserved %d; PyTorch %d %d", name, r.Line, r.Source, d.Device, d.Allocated, d.Reserved, w.Devices[k].Allocated, w.Devices[k].Reserved)
				}
			}
		}
		t.Logf("%s: %d steps compared on %d device(s)", name, len(ours), len(ours[0].Devices))
	}
}
