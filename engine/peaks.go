package engine

// foldPeaks keeps the allocator's peaks before they are reset, so that
// LifetimePeaks outlives torch.cuda.reset_peak_memory_stats.
func (g *gpu) foldPeaks() {
	st := g.stats()
	g.peakAllocated = max(g.peakAllocated, uint64(st.AllocatedBytes[0].Peak))
	g.peakReserved = max(g.peakReserved, uint64(st.ReservedBytes[0].Peak))
}

// LifetimePeaks are device i's highest allocated and reserved bytes
// since the session began, whatever the program reset: what a GPU must
// hold for the program to run (gpumemrepl fit).
func (s *Session) LifetimePeaks(i int) (allocated, reserved uint64) {
	g := s.gpus[i]
	g.foldPeaks()
	return g.peakAllocated, g.peakReserved
}
