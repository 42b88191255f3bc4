// Tests of the NVML readings. The oracle is NVML on the GPU machine;
// without one, only the errors are checked here.
package meter

import (
	"os"
	"testing"
)

// Without NVML (this machine has no driver) Open must fail with an error,
// never kill the process; with it, an unknown bus id is an error too.
func TestOpenUnknownDeviceIsAnError(t *testing.T) {
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Log("an NVIDIA driver is here: checking a bus id that does not exist")
	}
	d, err := Open("0000:ff:1f.7")
	if err == nil {
		t.Fatalf("Open of a device that does not exist gave %v", d)
	}
	t.Log(err)
}
