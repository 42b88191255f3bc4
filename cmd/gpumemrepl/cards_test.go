package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestCardCheckExplained: the card check made on the H100
// (scripts/card_check.py, testdata/cards/h100) is read as its README
// says: its counts are the file's, and every script whose recording
// differed on the H100 is named there with why.
func TestCardCheckExplained(t *testing.T) {
	b, err := os.ReadFile("../../testdata/cards/h100/card_check.json")
	if err != nil {
		t.Fatal(err)
	}
	var check struct {
		Card    string
		Scripts map[string]struct{ Status string }
		Counts  map[string]int
	}
	if err := json.Unmarshal(b, &check); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../testdata/cards/h100/README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	differs := 0
	for name, s := range check.Scripts {
		if s.Status != "same" {
			differs++
			if !strings.Contains(text, name) {
				t.Errorf("%s differs on the %s and the README does not say why", name, check.Card)
			}
		}
	}
	if check.Card != "NVIDIA H100 80GB HBM3" || differs != check.Counts["differs"] || len(check.Scripts) != 209 ||
		!strings.Contains(text, "209 scripts, 196 the same") || check.Counts["same"] != 196 {
		t.Errorf("card %q, %d scripts, counts %v (%d differ): not what the README says", check.Card, len(check.Scripts), check.Counts, differs)
	}
}

// fitRows runs fit --json on the presets and returns its rows by GPU.
func fitRows(t *testing.T, script string, gpus string, extra ...string) map[string]fitJSON {
	t.Helper()
	out, errOut, code := run(t, append([]string{"fit", "--quiet", "--json", "--gpus", gpus}, append(extra, script)...)...)
	if code != 0 {
		t.Fatalf("fit %s: exit %d\n%s%s", script, code, out, errOut)
	}
	rows := map[string]fitJSON{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r fitJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("fit --json: %v: %s", err, line)
		}
		rows[r.GPU] = r
	}
	return rows
}

// TestFitLabelsRulesThatReadTheCard: a recorded program's fit is exact
// on the H200 and the H100, the cards the rules were recorded on, and on
// the other presets exactly when a rule that reads the card is on its
// path (a recorded program of allocations and frees alone stays exact
// everywhere; the small GPT's cuBLAS workspace, reductions and
// attention make the A100's and the T4's rows estimates naming the card
// and the rule); a large reduction is an estimate off the GH100 where a
// small one is not, as is CUB's scratch; attention takes the backend
// PyTorch picks on the card; --strict refuses the estimate.
func TestFitLabelsRulesThatReadTheCard(t *testing.T) {
	const gpus = "h200,h100,a100-80gb,t4"
	plain := fitRows(t, "../../testdata/experiments/book_allocated_vs_reserved.py", gpus)
	for _, gpu := range strings.Split(gpus, ",") {
		if r := plain[gpu]; !r.Exact || r.EstimatedStatements != 0 || r.PeakReserved != plain["h200"].PeakReserved {
			t.Errorf("book_allocated_vs_reserved on %s: %+v, want exact with the H200's peaks", gpu, r)
		}
	}
	gpt := fitRows(t, "../../testdata/models/train_gpt.py", gpus)
	for gpu, card := range map[string]string{"h200": "", "h100": "", "a100-80gb": "NVIDIA A100-SXM4-80GB (sm80)", "t4": "Tesla T4 (sm75)"} {
		r := gpt[gpu]
		if card == "" {
			if !r.Exact || r.EstimatedStatements != 0 || r.PeakAllocated != gpt["h200"].PeakAllocated {
				t.Errorf("train_gpt on %s: %+v, want exact with the H200's peaks", gpu, r)
			}
			continue
		}
		want := "train_gpt.py:25: cuBLAS on the " + card + ": its workspace of 8.12 MiB is PyTorch's default for the compute capability"
		if r.Exact || r.EstimatedStatements != 9 || r.FirstEstimate == nil || !strings.Contains(*r.FirstEstimate, want) {
			t.Errorf("train_gpt on %s: %+v, want 9 statements estimated, the first %q", gpu, r, want)
		}
	}

	sums := writeProgram(t, "sums.py", "import torch\nsmall = torch.ones(1000, device='cuda').sum()\nbig = torch.ones(1 << 24, device='cuda').sum()\n")
	rows := fitRows(t, sums, gpus)
	for gpu, want := range map[string]string{"h200": "", "h100": "", "a100-80gb": "reduction on the NVIDIA A100-SXM4-80GB (sm80): [16777216] float32: its blocks sized for 108 multiprocessors of 2048 threads", "t4": "reduction on the Tesla T4 (sm75): [16777216] float32: its blocks sized for 40 multiprocessors of 1024 threads"} {
		r := rows[gpu]
		if want == "" && !r.Exact || want != "" && (r.Exact || r.EstimatedStatements != 1 || r.FirstEstimate == nil || !strings.HasPrefix(*r.FirstEstimate, sums+":3: "+want)) {
			t.Errorf("sums on %s: %+v, want estimated %q", gpu, r, want)
		}
	}
	small := writeProgram(t, "small.py", "import torch\nsmall = torch.ones(1000, device='cuda').sum()\n")
	if rows := fitRows(t, small, gpus); !rows["t4"].Exact || !rows["a100-80gb"].Exact {
		t.Errorf("a reduction in one block: %+v, want exact on every card", rows)
	}

	attn := writeProgram(t, "attn.py", "import torch\nimport torch.nn.functional as F\nq = torch.randn(2, 4, 128, 64, device='cuda', dtype=torch.bfloat16)\ny = F.scaled_dot_product_attention(q, q, q)\n")
	rows = fitRows(t, attn, gpus)
	for gpu, want := range map[string]string{"a100-80gb": "bfloat16: flash attention (sdp_utils.cpp prefers cuDNN attention only on sm90 and sm100), not modelled: taken as cuDNN attention's memory", "t4": "bfloat16: the math backend: flash attention needs sm80"} {
		if r := rows[gpu]; r.Exact || r.FirstEstimate == nil || !strings.Contains(*r.FirstEstimate, want) {
			t.Errorf("attention on %s: %+v, want %q", gpu, r, want)
		}
	}
	// the math backend makes the scores: more than cuDNN's kernel
	if !rows["h200"].Exact || rows["a100-80gb"].PeakAllocated != rows["h200"].PeakAllocated || rows["t4"].PeakAllocated <= rows["h200"].PeakAllocated {
		t.Errorf("attention's peaks: %+v", rows)
	}

	sorts := writeProgram(t, "sort.py", "import torch\nx = torch.rand(1 << 20, device='cuda')\nv, i = torch.sort(x)\n")
	rows = fitRows(t, sorts, "h200,t4")
	if want := sorts + ":3: CUB's radix sort on the Tesla T4 (sm75): its scratch of 12792319 bytes was recorded on the GH100 (sm90)"; !rows["h200"].Exact || rows["t4"].Exact || rows["t4"].FirstEstimate == nil || !strings.HasPrefix(*rows["t4"].FirstEstimate, want) {
		t.Errorf("a sort: %+v, want exact on the H200 and %q on the T4", rows, want)
	}

	index := writeProgram(t, "index.py", "import torch\nx = torch.rand(4096, device='cuda', requires_grad=True)\nidx = torch.arange(0, 4096, 2, device='cuda')\ny = x[idx]\ny.backward(torch.ones_like(y))\n")
	rows = fitRows(t, index, "h200,t4")
	if want := index + ":5: CUB's radix sort on the Tesla T4 (sm75): its scratch of 1 bytes"; !rows["h200"].Exact || rows["t4"].Exact || rows["t4"].FirstEstimate == nil || !strings.HasPrefix(*rows["t4"].FirstEstimate, want) {
		t.Errorf("index_put_'s sort in an indexing backward: %+v, want exact on the H200 and %q on the T4", rows, want)
	}

	out, errOut, code := run(t, "fit", "--gpus", "t4", "--strict", sums)
	if code != 1 || out != "" || !strings.Contains(errOut, sums+":3:") || !strings.Contains(errOut, "NotImplementedError: reduction on the Tesla T4 (sm75)") || !strings.Contains(errOut, "--strict refuses estimates") {
		t.Errorf("fit --strict on the T4: exit %d\n%s%s", code, out, errOut)
	}
}
