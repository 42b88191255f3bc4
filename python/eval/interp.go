package eval

import (
	"io"
	"os"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// Interp is one Python interpreter: its objects, modules and output.
type Interp struct {
	// Stdout and Stderr are what print and tracebacks write to.
	Stdout, Stderr io.Writer
	// Argv is sys.argv: a script's path and its arguments, as python
	// FILE ARG... gives them; nil is the prompt's [''].
	Argv []string
	// Interrupted, when set, is polled in loops and calls: true raises
	// KeyboardInterrupt (Ctrl-C).
	Interrupted func() bool
	// Hooks tell the front end what the program does to its names.
	Hooks Hooks
	// Interactive makes an expression statement at module level print
	// its value's repr, as the prompt of python -i does.
	Interactive bool
	// Embedder is what the program that embeds the interpreter keeps
	// with it (torchpy: its Binding), so that it goes with the
	// interpreter.
	Embedder any

	live     map[Object]struct{}
	codes    map[*syntax.Scope]*code
	builtins *Dict
	modules  map[string]*ModuleObj
	makers   map[string]func(in *Interp) (*ModuleObj, error)
	frame    *Frame // the running frame
	depth    int
	// handling is the stack of exceptions being handled (except blocks
	// running): a new exception raised there gets the top as context.
	handling []*Instance
	sources  map[string][]string
	warnings warnState // the warnings module's filters and registry
	strCache strChars  // the characters of the string last indexed
	// dropping is the object a store or del is letting go of, and what
	// to call it in the step's events.
	dropping      Object
	droppingLabel string
	gcDisabled    bool
	gc            gcGens
	// assuming is the frame whose assert is being tested: there (not in
	// what it calls), a truth value the tool does not compute is taken
	// as true.
	assuming   *Frame
	assumed    int // truth values so taken, ever
	nextID     int64
	seq        uint64
	weakrefs   map[Object][]*weakRef
	ids        map[Object]int64
	reprActive map[Object]bool
	lastExc    *Instance
}

// Hooks are the front end's view of a module's names and objects: what
// was bound at top level, and what a dying object was called.
type Hooks struct {
	// Bound is called when a statement at module level binds name to v
	// (assignment, for target, import...).
	Bound func(name string, v Value)
	// Command runs a line of the tool's short command form (a
	// syntax.Command statement) at pos.
	Command func(text string, pos syntax.Pos) error
	// Executed, when set, is called after each simple statement (not
	// if, for, def...) runs without an error, in any frame: the front
	// end's report of every executed statement.
	Executed func(file string, s syntax.Stmt)
	// Assumed, when set, is told of an assert at pos whose test needed a
	// value the tool does not compute (a tensor's): the assert is taken
	// to hold, as it did in the program's own run, and the program goes
	// on.
	Assumed func(pos syntax.Pos)
	// MissingAttr, when set, is asked about an attribute obj does not
	// have, for a note the AttributeError adds in parentheses (torchpy:
	// that PyTorch has it and the tool does not model it); "" adds none.
	MissingAttr func(obj Value, name string) string
	// AutoCollect, when set, runs each collection CPython's collector
	// would start by itself (run does it and returns how many objects
	// it freed), so the front end sees what it freed (a tensor's
	// storage); an error it returns is raised where the program was.
	AutoCollect func(gen int, run func() int) error
	// Imported, when set, is told the dotted name of each module an
	// import statement has imported (torchpy: the collector's state
	// after a script's own import torch).
	Imported func(name string)
}

// recursionLimit is sys.getrecursionlimit()'s default.
const recursionLimit = 1000

// New makes an interpreter with the builtins and the standard modules
// this package provides.
func New() *Interp {
	in := &Interp{
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		live:       map[Object]struct{}{},
		codes:      map[*syntax.Scope]*code{},
		modules:    map[string]*ModuleObj{},
		makers:     map[string]func(in *Interp) (*ModuleObj, error){},
		sources:    map[string][]string{},
		ids:        map[Object]int64{},
		reprActive: map[Object]bool{},
		weakrefs:   map[Object][]*weakRef{},
	}
	in.gc.init()
	in.builtins = in.NewDict()
	in.installBuiltins()
	in.installStdlib()
	return in
}

// Builtins is the builtins namespace: the front end adds its own names.
func (in *Interp) Builtins() *Dict { return in.builtins }

// RegisterModule makes import NAME call make (once: the module is kept
// in sys.modules).
func (in *Interp) RegisterModule(name string, make func(in *Interp) (*ModuleObj, error)) {
	in.makers[name] = make
}

// NewGlobals makes a module namespace for a script or session: __name__
// is "__main__".
func (in *Interp) NewGlobals(file string) *Dict {
	in.gcStart()
	g := in.NewDict()
	in.SetStr(g, "__name__", "__main__")
	in.SetStr(g, "__file__", file)
	in.SetStr(g, "__builtins__", in.builtinsModule())
	return g
}

// AddSource keeps a file's text for tracebacks.
func (in *Interp) AddSource(file string, lines []string) { in.sources[file] = lines }

// Live is the number of objects alive (for tests).
func (in *Interp) Live() int { return len(in.live) }

// checkInterrupt is the evaluation loop's check (a call, a loop's next
// round): it runs a collection an allocation scheduled, and raises
// KeyboardInterrupt when the user asked to stop.
func (in *Interp) checkInterrupt() error {
	if in.gc.scheduled {
		if err := in.runScheduledGC(); err != nil {
			return err
		}
	}
	if in.Interrupted != nil && in.Interrupted() {
		return in.raiseInst(in.NewException(KeyboardInterruptType))
	}
	return nil
}

// Labeled drops v (a reference its caller owned) calling it label in
// the events its death makes: "old x" when x is rebound, "x" when x is
// deleted.
func (in *Interp) Labeled(v Value, label string) {
	o, ok := v.(Object)
	if !ok {
		return
	}
	prev, prevLabel := in.dropping, in.droppingLabel
	in.dropping, in.droppingLabel = o, label
	in.Decref(v)
	in.dropping, in.droppingLabel = prev, prevLabel
}

// DyingLabel is what the front end calls o as it dies: the label of
// the store or del that drops it directly, else "".
func (in *Interp) DyingLabel(o Object) string {
	if in.dropping == o {
		return in.droppingLabel
	}
	return ""
}

// DroppingLabel is the label of the store or del being carried out
// (its dying object may free others: a list's tensors), else "".
func (in *Interp) DroppingLabel() string { return in.droppingLabel }

// Imported returns a module already imported, if it is.
func (in *Interp) Imported(name string) (*ModuleObj, bool) {
	m, ok := in.modules[name]
	return m, ok
}

// TypeName is type(v).__name__.
func (in *Interp) TypeName(v Value) string { return TypeOf(v).Name }
