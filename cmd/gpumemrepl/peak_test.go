package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
)

// TestPeakCategoriesSumToPyTorch runs the recorded training programs
// (the four below, and every program of testdata/models that
// python_passing.txt holds exact) with run --peak --json: at the
// whole-run peak, the blocks of the
// categories add up to the allocated bytes, which are PyTorch's peak
// on the H200 to the byte (the most max_memory_allocated any step of
// the recording reported), and the holders are named. Where PyTorch's
// memory profiler was recorded over the program, its blocks at the peak
// and their categories are compared (compareWithProfiler).
func TestPeakCategoriesSumToPyTorch(t *testing.T) {
	manual, err := os.ReadFile("../../docs/manual.md")
	if err != nil {
		t.Fatal(err)
	}
	profiled := map[string]bool{"train_mlp": true, "train_cnn": true, "train_gpt": true, "train_nanogpt": true,
		"zoo/resnet50_train": true, "zoo/lora_finetune": true, "zoo/amp_cnn_train": true}
	trained := []string{"train_mlp", "train_cnn", "train_gpt", "train_nanogpt"} // each has parameters and a workspace at its peak
	programs := slices.Clone(trained)
	passing, err := os.ReadFile("../../testdata/python_passing.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Fields(string(passing)) {
		if p, ok := strings.CutPrefix(l, "models/"); ok && !slices.Contains(programs, p) {
			programs = append(programs, p)
		}
	}
	if len(programs) < 8 {
		t.Fatalf("programs %v: python_passing.txt lost its models/ lines?", programs)
	}
	for _, name := range programs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := recordedPeak(t, "../../testdata/models/"+name+".jsonl")
			script := "../../testdata/models/" + name + ".py"
			out, errOut, code := run(t, "run", "--peak", "--json", "--device", "sim", "--preset", recordedOn(script), "--fake-host", script)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var got struct {
				B struct {
					Allocated  uint64 `json:"allocated_bytes"`
					Where      string `json:"where"`
					Categories []struct {
						Category string `json:"category"`
						Bytes    uint64 `json:"bytes"`
					} `json:"categories"`
					Names   []struct{ Name string } `json:"names"`
					Holders []struct {
						Name, Category, Line, FreedBy string
					} `json:"holders"`
					Blocks []peakBlock `json:"blocks"`
				} `json:"breakdown"`
			}
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
				t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
			}
			var sum uint64
			cats := map[string]bool{}
			for _, c := range got.B.Categories {
				sum += c.Bytes
				cats[c.Category] = true
			}
			if got.B.Allocated != want || sum != want {
				t.Errorf("peak allocated %d, categories add up to %d; PyTorch's peak is %d", got.B.Allocated, sum, want)
			}
			for _, c := range []string{"parameters", "kernel workspaces"} {
				if slices.Contains(trained, name) && !cats[c] {
					t.Errorf("no %s at the peak: %v", c, got.B.Categories)
				}
			}
			if len(got.B.Names) == 0 || !strings.HasPrefix(got.B.Where, path.Base(name)+".py:") {
				t.Errorf("names %v, where %q", got.B.Names, got.B.Where)
			}
			if profiled[name] {
				compareWithProfiler(t, name, got.B.Allocated, got.B.Blocks, string(manual))
			}
		})
	}
}

// recordedPeak is the most max_allocated cuda:0 reported after any step
// of a record_script.py recording: the run's peak (each reset comes
// after a step that reported the peak before it).
func recordedPeak(t *testing.T, path string) uint64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var peak uint64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var row struct {
			Devices []struct {
				MaxAllocated uint64 `json:"max_allocated"`
			} `json:"devices"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		if len(row.Devices) > 0 {
			peak = max(peak, row.Devices[0].MaxAllocated)
		}
	}
	return peak
}

// Blocks that load replayed at the prompt are the loaded file's, never
// the prompt line's (issue 37): each step's peak inside, peak's lines and
// holders, explain's holders and the page say where the recorded run
// made them (its frame, with the file) or "from snapshot FILE" where the
// file has no stack, and put them in their own category, which adds up
// with the others to the allocated bytes.
func TestPeakOfLoadedSnapshotIsTheSnapshots(t *testing.T) {
	t.Parallel()
	page := t.TempDir() + "/page.html"
	script := "import torch\nx = torch.zeros(1000000, device='cuda')\n" +
		"load ../../testdata/explain/fix.pickle.gz\n" + // stacks on some events
		"load ../../testdata/models/mlp_adamw.pickle as m\n" + // no stacks
		"load ../../testdata/traces/limit2g_s0.json.gz as tr\n" + // an ops trace
		"explain\nplot " + page + "\npeak now json\npeak\n"
	out, errOut, code := runStdin(t, script, "--device", "sim", "--fake-host", "--no-color")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"peak 4.32 GiB inside, from snapshot fix.pickle.gz;",
		"peak 174.30 MiB inside, from snapshot mlp_adamw.pickle;",
		"inside, from trace limit2g_s0.json.gz;",
		"in 2 blocks  record_explain.py:48 in workload (snapshot fix.pickle.gz)\n",
		"in 16 blocks  from snapshot mlp_adamw.pickle\n",
		"32.00 MiB  from snapshot fix.pickle.gz\n",
		"cuda:0 at its peak: 16.07 GiB allocated", // the trace's, the last load
		", from trace limit2g_s0.json.gz, during line 5: load ../../testdata/traces/limit2g_s0.json.gz as tr\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, line := range []string{"<stdin>:3", "<stdin>:4", "<stdin>:5"} {
		if strings.Contains(out, line) {
			t.Errorf("a loaded block put on the prompt's %s:\n%s", line, out)
		}
	}
	var got struct {
		B struct {
			Allocated  uint64 `json:"allocated_bytes"`
			Categories []struct {
				Category string `json:"category"`
				Bytes    uint64 `json:"bytes"`
				Blocks   int    `json:"blocks"`
			} `json:"categories"`
			Lines []struct {
				Name   string `json:"name"`
				Blocks int    `json:"blocks"`
			} `json:"lines"`
			Holders []struct {
				Category, Line string
				FreedBy        string `json:"freed_by"`
			} `json:"holders"`
		} `json:"breakdown"`
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, `{"breakdown"`) {
			if err := json.Unmarshal([]byte(l), &got); err != nil {
				t.Fatal(err)
			}
		}
	}
	var sum uint64
	blocks := map[string]int{}
	for _, c := range got.B.Categories {
		sum += c.Bytes
		blocks[c.Category] = c.Blocks
	}
	// fix.pickle.gz leaves 3 blocks, mlp_adamw.pickle 16, the trace 81.
	if sum != got.B.Allocated || blocks["loaded from a snapshot or trace"] != 3+16+81 || blocks["inputs"] != 1 || len(blocks) != 2 {
		t.Errorf("now: %d bytes allocated, categories %+v", got.B.Allocated, got.B.Categories)
	}
	lines := map[string]int{}
	for _, l := range got.B.Lines {
		lines[l.Name] = l.Blocks
	}
	if lines["from trace limit2g_s0.json.gz"] != 81 || lines["from snapshot mlp_adamw.pickle"] != 16 || lines["<stdin>:2"] != 1 ||
		lines["record_explain.py:48 in workload (snapshot fix.pickle.gz)"]+lines["from snapshot fix.pickle.gz"] != 3 {
		t.Errorf("by source line %+v", got.B.Lines)
	}
	for _, h := range got.B.Holders {
		if h.Category == "loaded from a snapshot or trace" && !strings.Contains(h.FreedBy, "del of the load's name") {
			t.Errorf("holder %+v", h)
		}
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"from snapshot mlp_adamw.pickle"`, `"record_explain.py:50 in workload (snapshot fix.pickle.gz)"`, `"loaded from a snapshot or trace"`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the page has no %s", want)
		}
	}
}

// TestPeakNamesFollowTheModel: the walk of names that each rise of the
// peak takes keeps a model's parameters between two walks; a module
// added to the model and a parameter replaced after the first peak are
// named at the later one, as the model is then.
func TestPeakNamesFollowTheModel(t *testing.T) {
	t.Parallel()
	path := writeScript(t, "grow.py", `import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(256, 256))
x = torch.ones(64, 256, device='cuda')
model.cuda()
y = model(x) * 2
del y
model.append(nn.Linear(256, 1024).cuda())
model[0].bias = nn.Parameter(torch.zeros(256, device='cuda'))
y = model(x) * 2
del y
`)
	out, errOut, code := run(t, "run", "--peak", "--device", "sim", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"model.1.weight (grow.py:8)", "model.1.bias (grow.py:8)", "model.0.bias (grow.py:9)", "model.0.weight (grow.py:5)"} {
		found := false
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, want) && strings.HasSuffix(l, " parameters") {
				found = true
			}
		}
		if !found {
			t.Errorf("no holder %s among the parameters at the peak:\n%s", want, out)
		}
	}
}
