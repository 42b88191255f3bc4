package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestPeakCategoriesSumToPyTorch runs the recorded training programs
// with run --peak --json: at the whole-run peak, the blocks of the
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
	profiled := map[string]bool{"train_mlp": true, "train_cnn": true, "train_gpt": true}
	for _, name := range []string{"train_mlp", "train_cnn", "train_gpt", "train_nanogpt"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := recordedPeak(t, "../../testdata/models/"+name+".jsonl")
			out, errOut, code := run(t, "run", "--peak", "--json", "--device", "sim", "--fake-host", "../../testdata/models/"+name+".py")
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
				if !cats[c] {
					t.Errorf("no %s at the peak: %v", c, got.B.Categories)
				}
			}
			if len(got.B.Names) == 0 || !strings.HasPrefix(got.B.Where, name+".py:") {
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
