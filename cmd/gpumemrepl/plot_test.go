package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds Debian's headless browser; CI installs it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed (.ci/run installs it)")
	}
	t.Skip("chromium is not installed: apt-get install chromium")
	return ""
}

// browser opens page in a headless Chromium of its own (a fresh
// profile, nothing fetched from the network) and fails the test on any
// error the page's script throws or logs.
func browser(t *testing.T, page string) context.Context {
	t.Helper()
	profile, err := os.MkdirTemp("", "gpumemrepl-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1400, 1100),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	// the profile goes once the browser has exited (it writes there
	// until then)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc(); os.RemoveAll(profile) })
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			t.Errorf("%s: the page threw: %s", filepath.Base(page), e.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				t.Errorf("%s: console %s", filepath.Base(page), e.Type)
			}
		}
	})
	if err := chromedp.Run(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(`body[data-ready="1"]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	return ctx
}

// screenshot saves the page under the test's artifacts (go test
// -artifacts keeps them).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// plotScript's bands, each rounded up to 512 bytes (the allocator's
// rounding: none of its blocks is left unsplit), add up after each step
// to the allocated bytes the step's JSON row says.
const plotScript = `import torch
x = torch.zeros(1024, 1024, device='cuda')
w = torch.randn(1024, 1024, device='cuda', requires_grad=True)
y = x @ w
loss = (y * y).sum()
loss.backward()
del y
b = torch.ones(256, 1024, device='cuda')
`

// TestPagesInChromium opens a script's page (run --plot) in headless
// Chromium: its step list is the run's JSON rows, the bands live after
// each step add up to the row's allocated bytes, a band's hover names it
// with its category, size and line, a click pins it, a step click shows
// the state after it, a drag zooms; then a replay's page. Screenshots
// go to the test's artifacts.
func TestPagesInChromium(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script, page := filepath.Join(dir, "train.py"), filepath.Join(dir, "train.html")
	if err := os.WriteFile(script, []byte(plotScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--json", "--plot", page, "--device", "sim", "--fake-host", script)
	if code != 0 {
		t.Fatalf("run: exit %d: %s%s", code, out, errOut)
	}
	rows := jsonRows(t, out)
	ctx := browser(t, page)
	var steps []string
	var marks []int
	var bands int
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#steps li')).map(li => li.textContent)`, &steps),
		chromedp.Evaluate(`gpumem.marks()`, &marks),
		chromedp.Evaluate(`gpumem.bands`, &bands)); err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(rows) {
		t.Fatalf("%d steps listed, the run has %d rows: %q", len(steps), len(rows), steps)
	}
	for i, r := range rows {
		want := fmt.Sprintf("%d: %s", int(r["line"].(float64)), r["source"])
		if !strings.HasPrefix(steps[i], want) {
			t.Errorf("step %d is %q, want it to start %q", i+1, steps[i], want)
		}
		var live float64
		if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`gpumem.liveBytes(%d, 512)`, marks[i]), &live)); err != nil {
			t.Fatal(err)
		}
		if got, want := uint64(live), uint64(r["allocated_bytes"].(float64)); got != want {
			t.Errorf("after %q the bands hold %d bytes, the run says %d allocated", r["source"], got, want)
		}
	}
	if bands < 6 {
		t.Errorf("%d bands drawn, want every allocation (x, w, the cuBLAS workspaces, y, ...)", bands)
	}
	// x is the first band: hover it, click it
	var p struct{ X, Y float64 }
	var tip, pinned string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`gpumem.bandPoint(0)`, &p)); err != nil {
		t.Fatal(err)
	}
	// (the actions below take p's value as they are made: after the Run above)
	if err := chromedp.Run(ctx, chromedp.MouseEvent("mouseMoved", p.X, p.Y), chromedp.Evaluate(`gpumem.tip()`, &tip),
		chromedp.MouseClickXY(p.X, p.Y), chromedp.Evaluate(`gpumem.detail()`, &pinned)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"x\ninputs, 4.00 MiB (4194304 bytes)", "made at train.py:2, in step 2 (2: x = torch.zeros(1024, 1024, device='cuda'))", "live at the end", "train.py:2 in <module>"} {
		if !strings.Contains(tip, want) {
			t.Errorf("the hover over x's band says %q, want %q in it", tip, want)
		}
	}
	if !strings.HasPrefix(pinned, "pinned") || !strings.Contains(pinned, "4.00 MiB") {
		t.Errorf("a click on x's band shows %q", pinned)
	}
	screenshot(t, ctx, "script.png")
	var detail, sel string
	var view []float64
	if err := chromedp.Run(ctx, chromedp.MouseClickXY(p.X, p.Y), // unpin
		chromedp.Click(`#steps li:nth-child(4)`, chromedp.ByQuery), chromedp.Evaluate(`gpumem.detail()`, &detail),
		chromedp.Evaluate(`document.querySelector('#steps li.sel').textContent`, &sel)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sel, "4: y = x @ w") || !strings.Contains(detail, "after it: allocated "+formatSize(uint64(rows[3]["allocated_bytes"].(float64)))) {
		t.Errorf("the fourth step selected %q shows %q", sel, detail)
	}
	if err := chromedp.Run(ctx, chromedp.MouseEvent("mousePressed", p.X, p.Y, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", p.X+200, p.Y, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseReleased", p.X+200, p.Y, chromedp.ButtonLeft),
		chromedp.Evaluate(`gpumem.view()`, &view)); err != nil {
		t.Fatal(err)
	}
	var events float64
	chromedp.Run(ctx, chromedp.Evaluate(`JSON.parse(document.getElementById('data').textContent).events`, &events)) //nolint:errcheck // checked below
	if len(view) != 2 || view[0] <= 0 || view[1] >= events || view[1]-view[0] < 1 {
		t.Errorf("after a drag the view is %v of %v events", view, events)
	}
	screenshot(t, ctx, "script_zoomed.png")
}

// plotMaxBands is plot.MaxBands.
const plotMaxBands = 2500

// formatSize is PyTorch's format_size, for the test's expectations.
func formatSize(n uint64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.2f KiB", float64(n)/1024)
	case n < 1<<30:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// jsonRows are the step rows of run --json's output.
func jsonRows(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if _, ok := r["line"]; ok {
			rows = append(rows, r)
		}
	}
	return rows
}

// TestReplayPageInChromium opens replay --plot's page of a snapshot in
// PyTorch's format (one the tool dumps, with its stacks): a band per
// allocation of the record, hovered with its line and stack, and the
// snapshot's segments at the end.
func TestReplayPageInChromium(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script, snap, page := filepath.Join(dir, "snap.py"), filepath.Join(dir, "snap.pickle"), filepath.Join(dir, "replay.html")
	src := fmt.Sprintf("import torch\ntorch.cuda.memory._record_memory_history()\nx = torch.zeros(1024, 1024, device='cuda')\ny = x * 2\ndel x\ntorch.cuda.memory._dump_snapshot(%q)\n", snap)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", script); code != 0 {
		t.Fatalf("run: exit %d: %s%s", code, out, errOut)
	}
	if out, errOut, code := run(t, "replay", "--plot", page, snap); code != 0 {
		t.Fatalf("replay --plot: exit %d: %s%s", code, out, errOut)
	}
	ctx := browser(t, page)
	var bands, rows int
	var allocs float64
	var p struct{ X, Y float64 }
	if err := chromedp.Run(ctx, chromedp.Evaluate(`gpumem.bands`, &bands),
		chromedp.Evaluate(`JSON.parse(document.getElementById('data').textContent).allocs`, &allocs),
		chromedp.Evaluate(`+document.getElementById('segmap').dataset.rows`, &rows),
		chromedp.Evaluate(`gpumem.bandPoint(0)`, &p)); err != nil {
		t.Fatal(err)
	}
	if bands == 0 || float64(bands) != allocs {
		t.Errorf("%d bands drawn of %v allocations in the record", bands, allocs)
	}
	if rows == 0 {
		t.Error("no segment drawn at the end")
	}
	var tip string
	if err := chromedp.Run(ctx, chromedp.MouseEvent("mouseMoved", p.X, p.Y), chromedp.Evaluate(`gpumem.tip()`, &tip)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tip, "4.00 MiB (4194304 bytes)") || !strings.Contains(tip, "made at snap.py:3") || !strings.Contains(tip, "stack (innermost first):") {
		t.Errorf("the first band's hover says %q: want its line and stack", tip)
	}
	screenshot(t, ctx, "replay.png")
}

// TestMillionEventPageInChromium plots a snapshot of 1,000,000 events
// in PyTorch's format (a trace of about 500,000 allocations, up to 1,000
// live, exported by replay --export) and opens the page: the page draws
// the largest MaxBands one by one and sums the rest, says so, and its
// script has drawn everything within the budget.
func TestMillionEventPageInChromium(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, page := filepath.Join(dir, "million.json"), filepath.Join(dir, "million.html")
	var b strings.Builder
	b.WriteString(`{"name": "million", "ops": [`)
	var live []int
	next, seed := 0, uint32(1)
	rnd := func() uint32 { seed = seed*1664525 + 1013904223; return seed >> 8 }
	for i := range 1_000_000 {
		if i > 0 {
			b.WriteString(", ")
		}
		if len(live) > 0 && (len(live) >= 1000 || rnd()%2 == 0) {
			k := int(rnd()) % len(live)
			fmt.Fprintf(&b, `{"op": "free", "id": %d}`, live[k])
			live[k] = live[len(live)-1]
			live = live[:len(live)-1]
			continue
		}
		fmt.Fprintf(&b, `{"op": "alloc", "id": %d, "size": %d}`, next, 512*(1+rnd()%4096))
		live = append(live, next)
		next++
	}
	b.WriteString("]}")
	if err := os.WriteFile(tr, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "million.pickle")
	if out, errOut, code := run(t, "replay", "--export", snap, tr); code != 0 {
		t.Fatalf("replay --export: exit %d: %s%s", code, out, errOut)
	}
	if out, errOut, code := run(t, "replay", "--plot", page, snap); code != 0 {
		t.Fatalf("replay --plot: exit %d: %s%s", code, out, errOut)
	}
	start := time.Now()
	ctx := browser(t, page)
	opened := time.Since(start)
	var bands int
	var ms float64
	var summary string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`gpumem.bands`, &bands), chromedp.Evaluate(`gpumem.ms`, &ms),
		chromedp.Text(`#summary`, &summary, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if bands != plotMaxBands {
		t.Errorf("%d bands drawn one by one, want %d", bands, plotMaxBands)
	}
	if !strings.Contains(summary, "1000000 events") || !strings.Contains(summary, "are summed by category") {
		t.Errorf("the summary says %q", summary)
	}
	// memory_viz stops responding past about 600,000 events; this page
	// draws in well under a second on a quiet machine (the budget
	// leaves room for a loaded CI machine's software canvas)
	if ms > 10000 {
		t.Errorf("the page's script took %.0f ms to draw (budget 10,000)", ms)
	}
	t.Logf("drawn in %.0f ms; opened in %v", ms, opened)
	screenshot(t, ctx, "million.png")
}
