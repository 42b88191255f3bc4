package eval

import (
	_ "embed"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// warnFilter is one entry of warnings.filters: an action for the
// warnings of a category (and its subclasses) whose message matches.
type warnFilter struct {
	action   string // "default", "ignore", "always", "error", "once", "module"
	message  *regexp.Regexp
	category *Class
}

// warnState is the warnings module's state: its filters, newest first,
// and which warnings it has shown (the "default", "once" and "module"
// registries).
type warnState struct {
	filters []warnFilter
	shown   map[string]bool
	saved   [][]warnFilter // catch_warnings blocks' filters to put back
}

// defaultWarnFilters are Python 3.11's (a release build): deprecations
// are shown only when __main__ triggers them (checked in Warn), and
// pending deprecations, import and resource warnings not at all.
func defaultWarnFilters() []warnFilter {
	var out []warnFilter
	for _, c := range []*Class{DeprecationWarnType, PendingDeprecationType, ResourceWarningType} {
		out = append(out, warnFilter{action: "ignore", category: c})
	}
	return out
}

// warns is the warnings state, made with the default filters on first
// use.
func (in *Interp) warns() *warnState {
	if in.warnings.shown == nil {
		in.warnings = warnState{filters: defaultWarnFilters(), shown: map[string]bool{}}
	}
	return &in.warnings
}

// Warn is warnings.warn(msg, category, stacklevel): under the filters
// in force, the warning is shown on stderr as Python shows it --
// "FILE:LINE: Category: message" and the line's source, indented, once
// per place with the default action -- or ignored, or raised (the
// "error" action). FILE is a script's absolute path, as CPython names
// its main script.
func (in *Interp) Warn(category *Class, msg string, stacklevel int) error {
	in.warns()
	file, line, fromMain := in.warnPlace(stacklevel)
	action := "default"
	for _, f := range in.warnings.filters {
		if category.IsSubclass(f.category) && (f.message == nil || f.message.MatchString(msg)) {
			action = f.action
			if category.IsSubclass(DeprecationWarnType) && f.category == DeprecationWarnType && f.action == "ignore" && fromMain {
				action = "default" // default::DeprecationWarning:__main__ comes first
			}
			break
		}
	}
	var key string
	switch action {
	case "ignore":
		return nil
	case "error":
		return in.Raise(category, "%s", msg)
	case "once":
		key = category.Name + ":" + msg
	case "module":
		key = file + ":" + category.Name + ":" + msg
	case "default":
		key = fmt.Sprintf("%s:%d:%s:%s", file, line, category.Name, msg)
	}
	if key != "" {
		if in.warnings.shown[key] {
			return nil
		}
		in.warnings.shown[key] = true
	}
	where := file
	if abs, err := filepath.Abs(file); err == nil && !strings.HasPrefix(file, "<") && file != "sys" {
		where = abs
	}
	text := fmt.Sprintf("%s:%d: %s: %s\n", where, line, category.Name, msg)
	if src := in.sourceLine(file, line); src != "" && file != "sys" {
		text += "  " + src + "\n"
	}
	return in.writeStream(in.sysStream("stderr"), text, in.Stderr)
}

// warnPlace is where a warning of stacklevel points: the file and line
// of that frame, and whether its module is __main__ (the default
// filters show a DeprecationWarning from there); past the outermost
// frame, CPython's "sys", line 1.
func (in *Interp) warnPlace(stacklevel int) (file string, line int, fromMain bool) {
	fr := in.frame
	in.warnFrameObject(fr)
	for i := 1; i < stacklevel && fr != nil; i++ {
		fr = fr.back
		in.warnFrameObject(fr)
	}
	if fr == nil {
		return "sys", 1, false
	}
	name, _ := fr.globals.getStr("__name__")
	return fr.file, int(fr.start.Line), name == "__main__"
}

// warnFrameObject is what CPython 3.12's warn makes of a frame it
// walks to find the warning's place (setup_context: the frame that
// warns, then each caller stacklevel goes up): its frame object, made
// the first time something asks for it, a container counted as made,
// which lives until the frame returns. A module's frame is left out:
// under scripts/record_gc.py each statement's frame goes as the
// statement ends, before the counts are read.
func (in *Interp) warnFrameObject(fr *Frame) {
	for fr != nil && fr.inlinedComp() {
		fr = fr.back
	}
	if fr == nil || fr.toplevel || fr.cost != costNone || in.gc.quiet > 0 {
		return
	}
	fr.cost = costPlain
	in.gcCount()
}

// sysStream is sys.stdout or sys.stderr as the program has it now (it
// may have put another object there), or nil before sys is imported.
func (in *Interp) sysStream(name string) Value {
	if m, ok := in.Imported("sys"); ok {
		if v, ok := m.Dict.getStr(name); ok {
			return v
		}
	}
	return nil
}

// writeStream writes s to f: the process's stdout or stderr for sys's
// own streams, std for nil (sys not imported), else f.write(s).
func (in *Interp) writeStream(f Value, s string, std io.Writer) error {
	o, ok := f.(*Instance)
	switch {
	case f == nil:
		_, _ = std.Write([]byte(s))
		return nil
	case ok && o.cls == stderrType:
		_, _ = in.Stderr.Write([]byte(s))
		return nil
	case ok && o.cls == stdoutType:
		_, _ = in.Stdout.Write([]byte(s))
		return nil
	}
	r, err := in.CallMethod(f, "write", s)
	if err == nil {
		in.Decref(r)
	}
	return err
}

// sourceLine is line n of file, stripped: from the sources the front end
// gave, else read from disk, as linecache does ("" when neither has it).
func (in *Interp) sourceLine(file string, n int) string {
	lines, ok := in.sources[file]
	if !ok {
		if data, err := fileio.Read(file, fileio.MaxScript, "script"); err == nil {
			lines = SourceLines(data)
			in.sources[file] = lines
		}
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}

// addWarnFilter is filterwarnings(action, message, category) (message a
// regular expression matched at the start, ignoring case).
func (in *Interp) addWarnFilter(action, message string, category *Class, appendLast bool) error {
	switch action {
	case "default", "ignore", "always", "error", "once", "module":
	default:
		return in.Raise(ValueErrorType, "invalid action: %s", in.ReprOf(action))
	}
	in.warns()
	f := warnFilter{action: action, category: category}
	if message != "" {
		re, err := regexp.Compile("(?i)^(?:" + message + ")")
		if err != nil {
			return in.Refuse(ValueErrorType, "filterwarnings: message %s is not a regular expression the tool reads", in.ReprOf(message))
		}
		f.message = re
	}
	if appendLast {
		in.warnings.filters = append(in.warnings.filters, f)
	} else {
		in.warnings.filters = append([]warnFilter{f}, in.warnings.filters...)
	}
	return nil
}

// warningsModule is warnings: warn, filterwarnings, simplefilter,
// resetwarnings and catch_warnings (without record=True) over Warn's
// filters.
func warningsModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("warnings")
	in.fn(m, "warn", "warn(message, category=UserWarning, stacklevel=1)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var message, cat, source Value
		level := int64(1)
		if err := in.UnpackArgs("warn", args, kw, "message", &message, "category?", &cat, "stacklevel?", &level, "source?", &source); err != nil {
			return nil, err
		}
		category, msg := UserWarningType, ""
		var err error
		if o, ok := message.(*Instance); ok && o.cls.IsSubclass(WarningType) {
			category, msg = o.cls, in.excStr(o)
		} else if msg, err = in.Str(message); err != nil {
			return nil, err
		}
		if c, ok := cat.(*Class); ok {
			if !c.IsSubclass(WarningType) {
				return nil, in.typeError("category must be a Warning subclass, not '%s'", c.Name)
			}
			category = c
		} else if cat != nil && cat != None {
			return nil, in.typeError("category must be a Warning subclass, not '%s'", TypeOf(cat).Name)
		}
		return None, in.Warn(category, msg, int(level))
	})
	filter := func(name string, withMessage bool) {
		in.fn(m, name, "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			var actionArg, messageArg, cat, module, lineno, appendArg Value
			var err error
			if withMessage {
				err = in.UnpackDefArgs(name, args, kw, "action", &actionArg, "message?", &messageArg, "category?", &cat, "module?", &module, "lineno?", &lineno, "append?", &appendArg)
			} else {
				err = in.UnpackDefArgs(name, args, kw, "action", &actionArg, "category?", &cat, "lineno?", &lineno, "append?", &appendArg)
			}
			if err != nil {
				return nil, err
			}
			action, err := in.Str(actionArg)
			if err != nil {
				return nil, err
			}
			message := ""
			if messageArg != nil {
				if message, err = in.Str(messageArg); err != nil {
					return nil, err
				}
			}
			if module != nil && module != "" {
				return nil, in.Refuse(NotImplementedErrType, "%s(module=...) is not modelled by gpumemrepl", name)
			}
			category := WarningType
			if c, ok := cat.(*Class); ok {
				category = c
			}
			last := false
			if appendArg != nil {
				if last, err = in.Truth(appendArg); err != nil {
					return nil, err
				}
			}
			return None, in.addWarnFilter(action, message, category, last)
		})
	}
	filter("filterwarnings", true)
	filter("simplefilter", false)
	in.fn(m, "resetwarnings", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackDefArgs("resetwarnings", args, kw); err != nil {
			return nil, err
		}
		in.warns().filters = nil
		return None, nil
	})
	in.fn(m, "_save_filters", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		in.warns()
		in.warnings.saved = append(in.warnings.saved, append([]warnFilter(nil), in.warnings.filters...))
		return None, nil
	})
	in.fn(m, "_restore_filters", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if n := len(in.warnings.saved); n > 0 {
			in.warnings.filters, in.warnings.saved = in.warnings.saved[n-1], in.warnings.saved[:n-1]
		}
		return None, nil
	})
	for _, c := range []*Class{WarningType, UserWarningType, DeprecationWarnType, FutureWarningType, RuntimeWarningType, PendingDeprecationType, ResourceWarningType} {
		m.Set(in, c.Name, c)
	}
	fr := in.ModuleFrame("<warnings>", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<warnings>", catchWarningsSource)
}

// catchWarningsSource is warnings.catch_warnings: the filters are put
// back as they were when the block ends.
//
//go:embed lib/warnings.py
var catchWarningsSource string
