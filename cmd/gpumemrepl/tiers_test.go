package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// estimatedProgram is a program with one estimate (sinh, by the general
// rule: no rule of its own recorded) at line 3, and the estimate as the
// reports name it.
const (
	estimatedProgram = "import torch\nx = torch.rand(1 << 20, device='cuda', requires_grad=True)\ny = x.sinh()\nz = x.exp()\n"
	sinhEstimate     = "torch.sinh [1048576] float32: no rule recorded on the GPU; the general rule of unary ops from PyTorch's declarations: an output of the input's shape and dtype, its backward (SinhBackward0) saving self and making the gradient alone"
)

func writeProgram(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitSaysWhetherExact: fit's table has an exact column, yes for a
// program of recorded rules and no ≈ for one that estimated, with a
// paragraph naming how many statements estimated and the first; --json
// says exact, estimated_statements and first_estimate; --strict makes
// the estimate the script's error.
func TestFitSaysWhetherExact(t *testing.T) {
	path := writeProgram(t, "est.py", estimatedProgram)
	out, errOut, code := run(t, "fit", "--gpus", "h200,t4", path)
	for _, want := range []string{
		"GPU   memory      allocated  reserved   + context     exact  fits\n",
		"h200  139.80 GiB  12.00 MiB  20.00 MiB  630.00 MiB    no ≈   yes\n",
		"t4    14.57 GiB   12.00 MiB  20.00 MiB  630.00 MiB ≈  no ≈   yes\n",
		"\n≈ h200, t4: 1 statement estimated, an op following a general rule where none is recorded on the GPU; every figure from the first estimate on rests on it: " + path + ":3: " + sinhEstimate + "\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	out, _, _ = run(t, "fit", "--gpus", "h200", "--json", path)
	var got fitJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Exact || got.EstimatedStatements != 1 || got.FirstEstimate == nil || *got.FirstEstimate != path+":3: "+sinhEstimate || got.ContextEstimated {
		t.Errorf("fit --json: %v %s", err, out)
	}
	// the T4's context is the H200's, not measured on it
	out, _, _ = run(t, "fit", "--gpus", "t4", "--json", path)
	if err := json.Unmarshal([]byte(out), &got); err != nil || !got.ContextEstimated {
		t.Errorf("fit --json on the t4: %v %s", err, out)
	}
	out, errOut, code = run(t, "fit", "--gpus", "h200", "--strict", path)
	if code != 1 || out != "" || errOut != path+":3:5: NotImplementedError: "+sinhEstimate+": its figures would be estimated, and --strict refuses estimates\n(gpumemrepl fit: the script failed on h200)\n" {
		t.Errorf("fit --strict: exit %d\n%s%s", code, out, errOut)
	}
}

// TestDiffAndExplainSayEstimated: a script's side of diff says how its
// figures rest on estimates (text and --json), and --strict refuses it;
// explain at the prompt says so of the session's history first.
func TestDiffAndExplainSayEstimated(t *testing.T) {
	a := writeProgram(t, "a.py", estimatedProgram)
	b := writeProgram(t, "b.py", strings.Replace(estimatedProgram, "sinh()", "exp()", 1))
	note := "≈ 1 statement estimated, an op following a general rule where none is recorded on the GPU; every figure from the first estimate on rests on it: " + a + ":3: " + sinhEstimate
	out, errOut, code := run(t, "diff", a, b)
	if code != 0 || !strings.Contains(out, "A  "+a+" (default): ") || !strings.Contains(out, "\n   "+note+"\nB  "+b+" (default): ") || strings.Count(out, "≈") != 1 {
		t.Errorf("diff: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = run(t, "diff", "--json", a, b)
	var rep struct {
		A, B struct {
			Estimated string `json:"estimated"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.A.Estimated != note || rep.B.Estimated != "" {
		t.Errorf("diff --json: %v %s", err, out)
	}
	if out, errOut, code = run(t, "diff", "--strict", a, b); code != 1 || !strings.Contains(errOut, "--strict refuses estimates") {
		t.Errorf("diff --strict: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, _ = runStdin(t, estimatedProgram+"explain\n", "--device", "sim", "--fake-host", "--no-color")
	if !strings.Contains(out, "  5 > explain\n≈ 1 statement estimated, an op following a general rule where none is recorded on the GPU; every figure from the first estimate on rests on it: <stdin>:3: "+sinhEstimate+"\nNo out-of-memory error") {
		t.Errorf("explain:\n%s%s", out, errOut)
	}
}

// TestEachStatementEstimates: with --each-statement, each statement's
// row carries its own estimates, and the top-level step's row only those
// not reported by a statement of it yet.
func TestEachStatementEstimates(t *testing.T) {
	path := writeProgram(t, "loop.py", "import torch\nx = torch.rand(1024, device='cuda')\nfor i in range(2):\n    y = x.sinh()\n    z = x.exp()\n")
	out, errOut, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--each-statement", path)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Line      int      `json:"line"`
			Exact     *bool    `json:"exact"`
			Estimates []string `json:"estimates"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, strings.TrimSpace(strings.Join([]string{
			map[bool]string{true: "exact", false: "≈"}[r.Exact == nil],
			strings.Join(r.Estimates, "; ")}, " ")))
	}
	sinh := "≈ torch.sinh [1024] float32: no rule recorded on the GPU; the general rule of unary ops from PyTorch's declarations: an output of the input's shape and dtype, its backward (SinhBackward0) saving self and making the gradient alone"
	// import, x, then the loop's statements y, z, y, z, then its step
	want := []string{"exact", "exact", sinh, "≈", sinh, "≈", "≈"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), errOut)
	}
}

// TestRefusalMakesLaterFiguresEstimates: under --keep-going, the figures
// after a statement gpumemrepl refused (PyTorch ran it) rest on its
// being left out, so that row and every later one are estimates naming
// the refusal; an error Python raises too (an attribute no tensor has)
// is no refusal, and the figures before stay exact.
func TestRefusalMakesLaterFiguresEstimates(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"import torch\nx = torch.zeros(1024, device='cuda')\nb = torch.cdist(x[None], x[None])\ny = torch.ones(1024, device='cuda')\n",
			[]string{"exact", "exact", "≈ refused PATH:3:5: NotImplementedError: torch.cdist is not modelled by gpumemrepl", "≈"}},
		{"import torch\nx = torch.zeros(1024, device='cuda')\nb = x.no_such_attribute\ny = torch.ones(1024, device='cuda')\n",
			[]string{"exact", "exact", "exact", "exact"}},
		// a user's exception is the program's, whatever its words
		{"import torch\nx = torch.zeros(1024, device='cuda')\nraise RuntimeError('gpumemrepl')\nraise NotImplementedError('x is not modelled by gpumemrepl (internal error)')\ny = torch.ones(1024, device='cuda')\n",
			[]string{"exact", "exact", "exact", "exact", "exact"}},
		// the refusals of the interpreter, of the Python the tool embeds
		// (also caught and raised again by the program) and of a name
		// PyTorch has
		{"import torch\nx = torch.zeros(1024, device='cuda')\nv = vars()\ny = torch.ones(1024, device='cuda')\n",
			[]string{"exact", "exact", "≈ refused PATH:3:5: NotImplementedError: vars() without an argument is not modelled by gpumemrepl", "≈"}},
		{"import torch\nw = torch.zeros(4, 4, device='cuda')\ntry:\n    torch.nn.init.orthogonal_(w)\nexcept NotImplementedError as e:\n    raise e\ny = torch.ones(1024, device='cuda')\n",
			[]string{"exact", "exact", "≈ refused PATH:4:5: NotImplementedError: torch.nn.init.orthogonal_ is not modelled by gpumemrepl", "≈"}},
	} {
		path := writeProgram(t, "refused.py", tc.src)
		out, errOut, _ := run(t, "run", "--json", "--keep-going", "--fake-host", "--device", "sim", path)
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct {
				Exact     *bool    `json:"exact"`
				Estimates []string `json:"estimates"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			row := map[bool]string{true: "exact", false: "≈"}[r.Exact == nil]
			if len(r.Estimates) > 0 {
				row += " " + r.Estimates[0]
			}
			got = append(got, row)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("rows:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), errOut)
		}
		for i, w := range tc.want {
			if w = strings.ReplaceAll(w, "PATH", path); !strings.HasPrefix(got[i], w) {
				t.Errorf("row %d: %q, want it to begin %q", i+1, got[i], w)
			}
		}
	}
}
