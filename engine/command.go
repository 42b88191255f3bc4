package engine

// Pos is a position in the input: 1-based line and column (in runes).
type Pos struct {
	Line, Col int
}

// An Expr is an expression that yields a tensor.
type Expr interface{ pos() Pos }

// Create makes a new tensor: zeros, ones, empty, full, rand or randn.
type Create struct {
	At           Pos
	Op           string
	Shape        []int64
	DType        DType
	Device       Device
	RequiresGrad bool      // a leaf that requires grad (requires_grad=True)
	Values       []float64 // full's fill value, or torch.tensor's elements
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

// Op is a tensor operation on Args: matmul (a @ b), add (a + b), mul
// (a * b), relu, gelu, square, sum, mean, detach.
type Op struct {
	At   Pos
	Name string
	Args []Expr
}

// Number is a Python number in an expression (total = 0; total + loss).
type Number struct {
	At Pos
	V  float64
}

// ModuleNew builds a torch.nn module: Linear(In, Out, bias=Bias), ReLU(),
// GELU(), Sequential(Children...).
type ModuleNew struct {
	At       Pos
	Kind     string
	In, Out  int64
	Bias     bool
	Children []*ModuleNew
}

// Call calls a module: Fn(Arg).
type Call struct {
	At  Pos
	Fn  *Name
	Arg Expr
}

// OptimizerNew is torch.optim.SGD / Adam / AdamW(Module.parameters(), ...).
type OptimizerNew struct {
	At       Pos
	Kind     string
	Module   *Name
	Momentum float64
}

func (e *Op) pos() Pos           { return e.At }
func (e *Number) pos() Pos       { return e.At }
func (e *ModuleNew) pos() Pos    { return e.At }
func (e *Call) pos() Pos         { return e.At }
func (e *OptimizerNew) pos() Pos { return e.At }

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

// SetDevice is torch.cuda.set_device(Device): it becomes the current
// device, and its CUDA context is made (cudaSetDevice does that).
type SetDevice struct{ Device int }

// CurrentDevice is torch.cuda.current_device(): the index, printed.
type CurrentDevice struct{}

// MemorySummary is torch.cuda.memory_summary(Device).
type MemorySummary struct{ Device int }

// MemoryStats is torch.cuda.memory_stats(Device), or with a Key the one
// value torch.cuda.memory_allocated(Device) and its kin return.
type MemoryStats struct {
	Device int
	Key    string
}

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

// Backward is X.backward(): X must be a scalar with a grad_fn.
type Backward struct {
	At Pos
	X  Expr
}

// ZeroGrad is model.zero_grad(set_to_none=...) or opt.zero_grad(...).
type ZeroGrad struct {
	Target    *Name
	SetToNone bool
}

// Step is opt.step().
type Step struct{ Opt *Name }

// GradMode sets whether ops record autograd graphs: torch.set_grad_enabled
// (Block false), or the start of a `with torch.no_grad():` block (Block
// true) that EndBlock ends. Body, when set, is the block's one command on
// the same line.
type GradMode struct {
	Enabled bool
	Block   bool
	Body    Command
}

// EndBlock ends a `with` block: grad mode is restored.
type EndBlock struct{}

// RequiresGrad is x.requires_grad_(): x becomes a leaf that requires grad.
type RequiresGrad struct{ X *Name }

// SnapshotSave writes Device's memory snapshot and history as
// torch.cuda.memory._dump_snapshot does.
type SnapshotSave struct {
	At     Pos
	Path   string
	Device int
}

// Load replays a trace or snapshot file's allocations into the session
// (ops up to Until, or all when Until < 0); what is live at the end
// stays allocated, held by Name.
type Load struct {
	At    Pos
	Path  string
	Until int
	Name  string
}

// Print is print(X): the tensor as PyTorch prints it, where its values
// are known.
type Print struct{ X Expr }

func (*Assign) command()        {}
func (*Eval) command()          {}
func (*Del) command()           {}
func (*EmptyCache) command()    {}
func (*SetDevice) command()     {}
func (*CurrentDevice) command() {}
func (*MemorySummary) command() {}
func (*MemoryStats) command()   {}
func (*ResetPeak) command()     {}
func (*SetFraction) command()   {}
func (*AllocConf) command()     {}
func (*Vars) command()          {}
func (*Map) command()           {}
func (*GPUs) command()          {}
func (*Nop) command()           {}
func (*Backward) command()      {}
func (*ZeroGrad) command()      {}
func (*Step) command()          {}
func (*GradMode) command()      {}
func (*EndBlock) command()      {}
func (*RequiresGrad) command()  {}
func (*Print) command()         {}
func (*SnapshotSave) command()  {}
func (*Load) command()          {}
