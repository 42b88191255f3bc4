package eval

// builtinsModule is the builtins module over the builtins namespace.
func (in *Interp) builtinsModule() *ModuleObj {
	if m, ok := in.modules["builtins"]; ok {
		return m
	}
	m := &ModuleObj{Name: "builtins", Dict: newRef(in.builtins).(*Dict)}
	in.track(m)
	in.modules["builtins"] = m
	return m
}

// fn declares a function of a module.
func (in *Interp) fn(m *ModuleObj, name, doc string, f GoFunc) {
	in.SetStr(m.Dict, name, NewBuiltin(name, doc, f))
}

// pythonModule is a standard module written in Python (src), run once
// in a module of its own the first time it is imported.
func (in *Interp) pythonModule(name, src string) (*ModuleObj, error) {
	return in.execModule(in.NewModule(name), src)
}

// execModule runs a module's Python source in its namespace (which
// may hold its Go functions already).
func (in *Interp) execModule(m *ModuleObj, src string) (*ModuleObj, error) {
	name := m.Name
	fr := in.ModuleFrame("<"+name+">", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<"+name+">", src)
}

// stdModules are the standard modules a memory experiment imports, by
// name: import NAME runs its maker once.
var stdModules = map[string]func(in *Interp) (*ModuleObj, error){
	"__future__":  futureModule,
	"argparse":    argparseModule,
	"collections": collectionsModule,
	"contextlib":  contextlibModule,
	"copy":        copyModule,
	"dataclasses": dataclassesModule,
	"functools":   functoolsModule,
	"gc":          gcModule,
	"inspect":     inspectModule,
	"io":          ioModule,
	"itertools":   itertoolsModule,
	"json":        jsonModule,
	"logging":     loggingModule,
	"math":        mathModule,
	"os":          osModule,
	"random":      randomModule,
	"sys":         sysModule,
	"time":        timeModule,
	"traceback":   tracebackModule,
	"typing":      typingModule,
	"warnings":    warningsModule,
	"weakref":     weakrefModule,
}

// installStdlib declares the standard modules. sys is made unmetered:
// CPython makes it before any script runs, so a script's import sys
// takes nothing from the free lists and counts nothing (the leak
// experiments' `import torch, sys` under scripts/gc_free_lists_rounds.sh
// leaves CPython's free lists as `import torch` does).
func (in *Interp) installStdlib() {
	in.builtinsModule()
	for name, make := range stdModules {
		if name == "sys" {
			make = in.Unmetered(make)
		}
		in.RegisterModule(name, make)
	}
	in.installPythonModules()
}
