package engine

// Pos is a position in the input: 1-based line and column (in runes).
type Pos struct {
	Line, Col int
}

// An Expr is an expression that yields a tensor.
type Expr interface{ pos() Pos }

// Create makes a new tensor: zeros, ones, empty, full, rand or randn.
type Create struct {
	At     Pos
	Op     string
	Shape  []int64
	DType  DType
	Device Device
}

// Name refers to a bound tensor.
type Name struct {
	At   Pos
	Name string
}

// To copies X to Device (X itself when it is there already), as .to(),
// .cuda() and .cpu() do.
type To struct {
	At     Pos
	X      Expr
	Device Device
}

// Clone copies X into a new storage on its device.
type Clone struct {
	At Pos
	X  Expr
}

// View is a tensor over X's storage with another shape: x[i] (Index >= 0)
// drops the first dimension, x.view(...) reshapes.
type View struct {
	At    Pos
	X     Expr
	Index int64   // x[Index], or -1
	Shape []int64 // x.view(Shape) when Index is -1; one dimension may be -1
}

func (e *View) pos() Pos { return e.At }

func (e *Create) pos() Pos { return e.At }
func (e *Name) pos() Pos   { return e.At }
func (e *To) pos() Pos     { return e.At }
func (e *Clone) pos() Pos  { return e.At }

// A Command is one step of a session.
type Command interface{ command() }

// Assign binds Name to the value of X, after X is made (Python's order:
// the old value is dropped only once the new one exists).
type Assign struct {
	Name string
	X    Expr
}

// Eval evaluates X and drops the result.
type Eval struct{ X Expr }

// Del unbinds names; all of them must be bound.
type Del struct{ Names []*Name }

// EmptyCache is torch.cuda.empty_cache(): every device's cached,
// fully free segments go back to the driver.
type EmptyCache struct{}

// MemorySummary is torch.cuda.memory_summary(Device).
type MemorySummary struct{ Device int }

// MemoryStats is torch.cuda.memory_stats(Device).
type MemoryStats struct{ Device int }

// ResetPeak is torch.cuda.reset_peak_memory_stats(Device).
type ResetPeak struct{ Device int }

// SetFraction is torch.cuda.set_per_process_memory_fraction.
type SetFraction struct {
	Fraction float64
	Device   int
}

// AllocConf sets PYTORCH_CUDA_ALLOC_CONF for devices not yet used.
type AllocConf struct{ Conf string }

// Vars lists the live tensors.
type Vars struct{}

// Map shows Device's segments and blocks.
type Map struct{ Device int }

// GPUs lists the session's devices with what the driver says of them.
type GPUs struct{}

// Nop changes nothing (import torch, a cell marker, a comment).
type Nop struct{}

func (*Assign) command()        {}
func (*Eval) command()          {}
func (*Del) command()           {}
func (*EmptyCache) command()    {}
func (*MemorySummary) command() {}
func (*MemoryStats) command()   {}
func (*ResetPeak) command()     {}
func (*SetFraction) command()   {}
func (*AllocConf) command()     {}
func (*Vars) command()          {}
func (*Map) command()           {}
func (*GPUs) command()          {}
func (*Nop) command()           {}
