package main

import (
	"slices"
	"strings"
	"testing"
)

const gib = 1 << 30

// rowAt returns the row of script line n.
func rowAt(t *testing.T, rows []stepRow, n int) stepRow {
	t.Helper()
	i := slices.IndexFunc(rows, func(r stepRow) bool { return r.Line == n })
	if i < 0 {
		t.Fatalf("no row for line %d", n)
	}
	return rows[i]
}

// TestTwoDevices runs scripts/two_gpus.gpumem on two simulated H200s:
// each device has its own allocator, a copy allocates on its destination
// only, empty_cache empties both, a memory fraction limits one.
func TestTwoDevices(t *testing.T) {
	t.Parallel()
	rows := runJSON(t, "sim", "--devices", "2", "--keep-going", "../../scripts/two_gpus.gpumem")
	type want struct{ alloc0, res0, alloc1, res1 uint64 }
	for _, tc := range []struct {
		line int
		want want
	}{
		{5, want{gib, gib, 0, 0}},                         // a on cuda:0
		{6, want{gib, gib, gib, gib}},                     // b = a.to('cuda:1')
		{9, want{gib, gib, gib + 4096, gib + 2*mib}},      // c, a small segment
		{10, want{gib, 2 * gib, gib + 4096, gib + 2*mib}}, // a = b.to('cuda:0'): the old a went after
		{12, want{gib, 2 * gib, 4096, gib + 2*mib}},       // del b
		{14, want{gib, gib, 4096, 2 * mib}},               // empty_cache: both devices
		{18, want{gib, gib, 4096, 2 * mib}},               // out of memory on cuda:1: nothing changed
		{20, want{3 * gib, 3 * gib, 4096, 2 * mib}},       // the same tensor fits on cuda:0
		{24, want{0, 0, 0, 0}},                            // all gone
	} {
		r := rowAt(t, rows, tc.line)
		if len(r.Devices) != 2 {
			t.Fatalf("line %d: %d devices in the row", tc.line, len(r.Devices))
		}
		got := want{r.Devices[0].Allocated, r.Devices[0].Reserved, r.Devices[1].Allocated, r.Devices[1].Reserved}
		if got != tc.want {
			t.Errorf("line %d (%s): allocated/reserved cuda:0 %d %d, cuda:1 %d %d; want %v", tc.line, r.Source, got.alloc0, got.res0, got.alloc1, got.res1, tc.want)
		}
		if r.Allocated != got.alloc0 || r.Reserved != got.res0 {
			t.Errorf("line %d: the row's own figures are not cuda:0's", tc.line)
		}
	}
	if r := rowAt(t, rows, 6); !slices.Contains(r.Events, "peer access from cuda:0 to cuda:1 enabled: copies go device to device") {
		t.Errorf("first copy cuda:0 → cuda:1: events %q", r.Events)
	}
	if r := rowAt(t, rows, 18); r.Error == nil || !strings.HasPrefix(*r.Error, "18:5: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has") {
		t.Errorf("line 18: error %v, want cuda:1's out of memory", r.Error)
	}
	if r := rowAt(t, rows, 13); r.Output != "1075838976\n" {
		t.Errorf("torch.cuda.memory_reserved(1) printed %q", r.Output)
	}
	if r := rowAt(t, rows, 21); r.Output != "3221225472\n" {
		t.Errorf("torch.cuda.max_memory_allocated(0) printed %q", r.Output)
	}
	// After set_device(1), 'cuda' and a memory function without a
	// device are cuda:1.
	if r := rowAt(t, rows, 26); r.Error != nil || r.Devices[1].Allocated != 4096 || r.Devices[0].Allocated != 0 {
		t.Errorf("e on the current device: %+v, error %v", r.Devices, r.Error)
	}
	if r, s := rowAt(t, rows, 29), rowAt(t, rows, 30); r.Output != "1\n" || s.Output != "4096\n" {
		t.Errorf("current_device printed %q, memory_allocated() %q", r.Output, s.Output)
	}
}

// TestDeviceCount: --devices N gives N columns, an index past them is
// PyTorch's invalid device ordinal, and a preset without peer access says
// that copies are staged.
func TestDeviceCount(t *testing.T) {
	t.Parallel()
	rows := runJSON(t, "sim", "--devices", "3", "--keep-going", "../../scripts/two_gpus.gpumem")
	if r := rowAt(t, rows, 6); len(r.Devices) != 3 || r.Devices[2].Reserved != 0 || r.Devices[2].DriverUsed != nil {
		t.Errorf("--devices 3: devices %+v", r.Devices)
	}
	rows = runJSON(t, "sim", "--keep-going", "../../scripts/two_gpus.gpumem")
	if r := rowAt(t, rows, 6); r.Error == nil || !strings.Contains(*r.Error, "CUDA error: invalid device ordinal") {
		t.Errorf("cuda:1 with one device: error %v", r.Error)
	}
	if r, e := rowAt(t, rows, 25), rowAt(t, rows, 26); r.Error == nil || !strings.Contains(*r.Error, "invalid device ordinal") || e.Devices[0].Allocated != 4096 {
		t.Errorf("set_device(1) with one device: error %v; then e: %+v", r.Error, e.Devices)
	}
	rows = runJSON(t, "sim", "--devices", "2", "--preset", "rtx4090", "--keep-going", "../../scripts/two_gpus.gpumem")
	if r := rowAt(t, rows, 10); !slices.Contains(r.Events, "no peer access from cuda:1 to cuda:0: the driver stages copies through host memory") {
		t.Errorf("rtx4090, first copy cuda:1 → cuda:0: events %q", r.Events)
	}
}
