package cuda

import (
	"bytes"
	"os"
	"testing"
)

// openGPU opens device i, or skips where there is no GPU (and fails
// instead under GPUMEMREPL_REQUIRE_GPU=1, the GPU machine's run).
func openGPU(t *testing.T, i int) *Device {
	t.Helper()
	d, err := Load()
	if err == nil {
		var n int
		if n, err = d.Count(); err == nil && n <= i {
			t.Skipf("needs %d GPUs, the driver reports %d", i+1, n)
		}
	}
	if err != nil {
		if os.Getenv("GPUMEMREPL_REQUIRE_GPU") == "1" {
			t.Fatalf("no GPU, and GPUMEMREPL_REQUIRE_GPU=1: %v", err)
		}
		t.Skipf("needs a GPU: %v", err)
	}
	g, err := d.Open(i)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// copyThrough writes a pattern to a buffer on from, copies it to a
// buffer on to with move, and reads it back from to.
func copyThrough(t *testing.T, from, to *Device, move func(dst, src, n uint64) error) {
	t.Helper()
	const n = 3<<20 + 5
	want := make([]byte, n)
	for i := range want {
		want[i] = byte(i * 7)
	}
	src, err := from.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer from.Free(src)
	dst, err := to.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer to.Free(dst)
	if err := from.CopyIn(src, want); err != nil {
		t.Fatal(err)
	}
	if err := move(dst, src, n); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := to.CopyOut(got, dst); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the bytes read back are not the bytes written")
	}
}

// A device is not its own peer, and cuMemcpyPeer between two buffers of
// one device moves the bytes.
func TestPeerCopyOnOneDevice(t *testing.T) {
	g := openGPU(t, 0)
	if ok, err := g.EnablePeerAccess(g); ok || err != nil {
		t.Errorf("EnablePeerAccess(itself) = %v, %v; want false, nil", ok, err)
	}
	copyThrough(t, g, g, func(dst, src, n uint64) error { return g.CopyPeer(dst, g, src, n) })
}

// Between two GPUs: peer access where the hardware allows it (either way
// the copy moves the bytes), both directions.
func TestPeerCopyBetweenDevices(t *testing.T) {
	a, b := openGPU(t, 0), openGPU(t, 1)
	for _, p := range [][2]*Device{{a, b}, {b, a}} {
		from, to := p[0], p[1]
		ok, err := from.EnablePeerAccess(to)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("peer access from device %d to %d: %v", from.dev, to.dev, ok)
		copyThrough(t, from, to, func(dst, src, n uint64) error { return to.CopyPeer(dst, from, src, n) })
	}
}
