package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileLines is issue 16 item 7 through the binary: every bad
// value is one line naming FILE:LINE:COL, quoting at most a short excerpt
// of the input; a line of any length is read, and --keep-going runs the
// rest of the script.
func TestHostileLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("9", 3<<20)
	script := "set_device 2147483648\n" +
		"set_per_process_memory_fraction nan\n" +
		"a = zeros 2 cuda\n" +
		"alloc_conf expandable_segments:True\n" +
		"x = 1  # " + strings.Repeat("a", 2<<20) + "\n" +
		"b = zeros " + long + "x2 cuda\n" +
		"c = zeros 3 cuda\n"
	path := filepath.Join(t.TempDir(), "hostile.gpumem")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--no-color", "--keep-going", path)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		path + ":1:12: expected a device index, found \"2147483648\"\n",
		path + ":2:33: Invalid fraction value: nan. Allowed range: 0~1\n",
		path + ":4:1: RuntimeError: alloc_conf: the allocator config is read once",
		path + ":6:11: expected a shape like 256x1024, found \"" + long[:40] + "...\"\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%.2000s", want, errOut)
		}
	}
	if len(errOut) > 2000 {
		t.Errorf("stderr is %d bytes: it repeats the input", len(errOut))
	}
	if !strings.Contains(out, "c: 12 bytes float32 [3] on cuda:0") {
		t.Errorf("the line after the long ones did not run:\n%.2000s", out[max(0, len(out)-2000):])
	}
}
