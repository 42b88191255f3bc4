package snapshot

import "github.com/gpumemrepl/gpumemrepl/allocator"

// LeavePending frees the blocks of r.Pending on a, the replay's
// allocator, once its ops have run, and leaves them as PyTorch's
// allocator left them: freed, waiting for another stream's event that
// has not completed (active_pending_free, active but not allocated).
// live gives the address an alloc op's block has in the replay.
func (r *Replay) LeavePending(a *allocator.Allocator, live func(op int) uint64) error {
	if len(r.Pending) == 0 {
		return nil
	}
	a.SetStreamEvents(outstanding{})
	for _, op := range r.Pending {
		p := live(op)
		if p == 0 {
			continue
		}
		if err := a.RecordStream(p, otherStream); err != nil {
			return err
		}
		if err := a.Free(p); err != nil {
			return err
		}
	}
	return nil
}

// otherStream is the stream LeavePending says a pending block was used
// on: none of the history's.
const otherStream = ^uint64(0)

// outstanding are the events of the frees a history left unfinished:
// recorded, never done (until the allocator waits for them).
type outstanding struct{}

func (outstanding) Record(uint64) uint64         { return 1 }
func (outstanding) Done(_, _ uint64) bool        { return false }
func (outstanding) Wait(_, _ uint64)             {}
func (outstanding) FreeCompleted(_, _, _ uint64) {}
