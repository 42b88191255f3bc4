package engine

// families is what the op families keep in a session, each in a type
// its family declares: the session's core (session.go) holds it whole
// and reads none of it. A family that needs state adds its field here.
type families struct {
	// amp is torch.autocast's setting and cast cache (autocast.go).
	amp autocast
	// ckpt is activation checkpointing's state (checkpoint.go).
	ckpt checkpoints
	// convTable is the recorded convolutions, read at the first
	// (convtable.go); cudnn reads torch.backends.cudnn's flags (conv.go).
	convTable convTable
	cudnn     func() CudnnFlags
	// calibration is the calibration files' convolutions (calibration.go);
	// convEstimated the estimated configurations met so far, and
	// convSearch the table as the estimate searches it (conv.go).
	calibration   convTable
	convEstimated map[string]*convEntry
	convSearch    *convIndex
	// einsumPath reads torch.backends.opt_einsum's settings (einsum_path.go).
	einsumPath func() EinsumPathFlags
	// workspaces are the cuBLAS and cuBLASLt workspaces made so far
	// (ops.go), kept for the rest of the session.
	workspaces map[workspaceKey]*storage
	// hooks are the saved-tensor hooks installed, innermost last;
	// hookErr is the error a pack hook raised in the running op, and
	// hooksNoted is set once this step's estimate of them is made
	// (savedhooks.go).
	hooks      []SavedHooks
	hookErr    error
	hooksNoted bool
	// prepacked are the inputs an op packed before making its output,
	// which its node takes when it saves them (savedhooks.go).
	prepacked []prepacked
	// rnn is cuDNN's RNN state (rnn.go).
	rnn rnnStates
	// kernelDue is the device of the op output last allocated, whose
	// kernel the device is told of before the next output is allocated
	// (driverevents.go); nil when none is due.
	kernelDue *Device
}

// familiesStart is called when the session starts: the families that
// read files read them, so that one that does not read stops the session
// there (the calibration files, calibration.go).
func (s *Session) familiesStart() (err error) {
	s.calibration, err = readCalibration(s.opts.Calibration)
	return err
}

// storageMade is called for each new storage before it is taken: the
// families that watch allocations see it. Activation checkpointing
// notes what a region's forward makes and stops a recomputation where
// it has made what backward needs (checkpoint.go).
func (s *Session) storageMade(st *storage) error { return s.checkpointAlloc(st) }
