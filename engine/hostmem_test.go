package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// memAvailable leaves max(1 GiB, 5% of MemTotal) of MemAvailable free,
// and reads nothing from a meminfo without both lines.
func TestMemAvailableKeepsTheMargin(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name    string
		meminfo string
		want    uint64
		ok      bool
	}{
		{"5% of 32 GiB", "MemTotal: 33554432 kB\nMemAvailable: 22020096 kB\n", 21*gib - 32*gib/20, true},
		{"at least 1 GiB", "MemTotal: 4194304 kB\nMemFree: 1 kB\nMemAvailable: 3145728 kB\n", 2 * gib, true},
		{"less than the margin", "MemTotal: 4194304 kB\nMemAvailable: 524288 kB\n", 0, true},
		{"no MemAvailable", "MemTotal: 4194304 kB\n", 0, false},
		{"a bad number", "MemTotal: 4194304 kB\nMemAvailable: lots kB\n", 0, false},
		{"a number past 2^64 bytes", "MemTotal: 4194304 kB\nMemAvailable: 18014398509481984 kB\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "meminfo")
			if err := os.WriteFile(path, []byte(tc.meminfo), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv(memInfoEnv, path)
			got, ok := memAvailable()
			if got != tc.want || ok != tc.ok {
				t.Errorf("memAvailable() = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
