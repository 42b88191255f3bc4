package eval

import (
	_ "embed"
	"fmt"
	"strings"
)

// loggingModule is logging: its Python source (loggingSource) over two
// Go functions that read the running frames, _caller (findCaller's
// answer) and _call_stack (the program's part of the stack).
func loggingModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("logging")
	in.fn(m, "_caller", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var level int64
		if err := in.UnpackArgs("_caller", args, kw, "level", &level, "/"); err != nil {
			return nil, err
		}
		// out of logging's frames, then level-1 more of the program's;
		// the outermost frame when the stack ends first
		f := in.frame
		for level > 0 && f != nil && f.back != nil {
			f = f.back
			if f.file != "<logging>" {
				level--
			}
		}
		if f == nil {
			return in.NewTuple([]Value{"(unknown file)", int64(0), "(unknown function)"}), nil
		}
		return in.NewTuple([]Value{f.file, int64(f.start.Line), f.name}), nil
	})
	in.fn(m, "_call_stack", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var entries []string
		for f := in.frame; f != nil; f = f.back {
			if f.file == "<logging>" && entries == nil {
				continue
			}
			e := fmt.Sprintf("  File \"%s\", line %d, in %s\n", f.file, f.start.Line, f.name)
			if src := in.sourceLine(f.file, int(f.start.Line)); src != "" {
				e += "    " + src + "\n"
			}
			entries = append(entries, e)
			if len(entries) > recursionLimit {
				break
			}
		}
		var b strings.Builder
		for i := len(entries) - 1; i >= 0; i-- {
			b.WriteString(entries[i])
		}
		return b.String(), nil
	})
	return in.execModule(m, loggingSource)
}

// loggingSource is logging, written in Python: loggers named in a
// hierarchy with levels and propagation, basicConfig, StreamHandler and
// NullHandler, Formatter with %-, {- and $-style formats, and the
// last-resort handler that prints a warning's bare message on stderr
// when nothing is configured, Filter, a record's caller (its file, line
// and function), a lone mapping as the arguments, and a message that does
// not format printed as the "--- Logging error ---" block -- CPython's
// output for each (the block's traceback shows this module's frames,
// not CPython's logging/__init__.py). %(asctime)s
// and the other clock fields are times the tool does not compute: they
// print as "<time not computed>". Files (filename=, FileHandler) are
// refused, as open is.
//
//go:embed lib/logging.py
var loggingSource string
