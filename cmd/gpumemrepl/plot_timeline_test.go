package main

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotTimelineInChromium draws a session's per-tensor timeline in
// headless Chromium: a band for each of its four tensors, in the page
// and in the screenshot (the first band's color, below the chart).
func TestPlotTimelineInChromium(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "timeline.html")
	script := "a = zeros 256x1024x1024 cuda\nb = zeros 100x1024x1024 cuda\ndel a\nc = zeros 50x1024x1024 cuda\nd = zeros 10x1024x1024 cuda\nplot " + page + "\n"
	if out, errOut, code := runStdin(t, script, "--device", "sim", "--fake-host", "--no-color"); code != 0 {
		t.Fatalf("plot: exit %d: %s%s", code, out, errOut)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"&lt;stdin&gt;:1 in &lt;module&gt;\n1024.00 MiB\nmade in step 1 (1: a = zeros 256x1024x1024 cuda), freed in step 3", "2: b = zeros", "4: c = zeros", "5: d = zeros"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("no band %q in the page", want)
		}
	}
	shot := page + ".png"
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,1100", "--screenshot="+shot, "file://"+page)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// a's band (#4e79a7) fills about a quarter of the timeline, which
	// starts below the line chart (y 500 on).
	band := 0
	bounds := img.Bounds()
	for y := 500; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if near(r>>8, 0x4e) && near(g>>8, 0x79) && near(b>>8, 0xa7) {
				band++
			}
		}
	}
	if band < 20000 {
		t.Errorf("the screenshot has %d pixels of the first band's color below the chart", band)
	}
}
