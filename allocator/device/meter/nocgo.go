//go:build !cgo

package meter

import "errors"

var errNoCgo = errors.New("NVML: unavailable (built without cgo)")

// Device is one GPU as NVML sees it; without cgo there is none.
type Device struct{}

// Open reports that NVML is not in this build.
func Open(string) (*Device, error) { return nil, errNoCgo }

// Read implements the cgo build's method.
func (*Device) Read() (Reading, error) { return Reading{}, errNoCgo }

// Processes implements the cgo build's method.
func (*Device) Processes() ([]Process, error) { return nil, errNoCgo }
