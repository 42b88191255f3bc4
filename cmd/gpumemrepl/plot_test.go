package main

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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

// TestPlotInChromium opens the pages of plot (the REPL) and replay --plot
// in headless Chromium: no console message, and the screenshot shows the
// allocated and reserved lines.
func TestPlotInChromium(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := t.TempDir()
	session := filepath.Join(dir, "session.html")
	if out, errOut, code := runStdin(t, "a = zeros 256x1024x1024 cuda\nb = zeros 100x1024x1024 cuda\ndel a\nc = zeros 50x1024x1024 cuda\nplot "+session+"\n", "--device", "sim", "--fake-host", "--no-color"); code != 0 || !strings.Contains(out, "wrote "+session+": 4 steps") {
		t.Fatalf("plot: exit %d: %s%s", code, out, errOut)
	}
	replay := filepath.Join(dir, "replay.html")
	if out, errOut, code := run(t, "replay", "--plot", replay, "../../testdata/perf_trace.json.gz"); code != 0 {
		t.Fatalf("replay --plot: exit %d: %s%s", code, out, errOut)
	}
	for _, page := range []string{session, replay} {
		shot := page + ".png"
		cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=1",
			"--window-size=1200,1000", "--screenshot="+shot, "file://"+page)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("chromium on %s: %v\n%s", page, err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, ":CONSOLE(") {
				t.Errorf("%s: console message: %s", filepath.Base(page), l)
			}
		}
		f, err := os.Open(shot)
		if err != nil {
			t.Fatalf("no screenshot: %v\n%s", err, out)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		allocated, reserved := 0, 0
		bounds := img.Bounds()
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			for x := bounds.Min.X; x < bounds.Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				r, g, b = r>>8, g>>8, b>>8
				switch {
				case near(r, 0x1f) && near(g, 0x77) && near(b, 0xb4):
					allocated++
				case near(r, 0xff) && near(g, 0x7f) && near(b, 0x0e):
					reserved++
				}
			}
		}
		if allocated < 300 || reserved < 300 {
			t.Errorf("%s: the screenshot has %d allocated-blue and %d reserved-orange pixels", filepath.Base(page), allocated, reserved)
		}
	}
}

func near(v, want uint32) bool { return v+24 >= want && v <= want+24 }
