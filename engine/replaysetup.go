package engine

import (
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// ReplaySetup is how device i's history replays as it ran: the session's
// PYTORCH_CUDA_ALLOC_CONF and the device's total memory and per-process
// limit (the one in force at its first out-of-memory error, when it had
// one; else the one in force now), as trace.Options, and what its CUDA context took (driver-used
// when it was made), for a simulated device like it. A device not used
// yet has no history to replay: an error.
func (s *Session) ReplaySetup(i int) (trace.Options, uint64, error) {
	g, err := s.gpu(i)
	if err != nil {
		return trace.Options{}, 0, err
	}
	if g.alloc == nil {
		return trace.Options{}, 0, fmt.Errorf("cuda:%d has not been used: no history", i)
	}
	conf := s.opts.AllocConf
	o := trace.Options{AllocConf: &conf, TotalBytes: g.alloc.TotalMemory()}
	if g.oomSeen {
		o.LimitBytes = g.oomLimit
	} else if l, ok := g.alloc.Limit(); ok {
		o.LimitBytes = &l
	}
	return o, g.ctx, nil
}
