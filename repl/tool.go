package repl

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/explain"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
	"github.com/gpumemrepl/gpumemrepl/torchpy"
)

// The tool module: the session's own verbs (vars, map, gpus, plot,
// snapshot save, load, alloc_conf, explain, help, memory_stats in the command
// form's text), which command-form lines call (package command reads
// them into Python). It lives in the builtins as command.ToolModule, so
// a script need not import anything to use the command form.

// installTool puts the tool module into p's builtins.
func (r *Runner) installTool(p *pyPrompt) {
	in, b := p.in, p.b
	m := in.NewModule(command.ToolModule)
	if torch, err := b.Module(); err == nil {
		m.Set(in, "torch", torch)
	} else {
		in.Drop(err)
	}
	fn := func(name string, f eval.GoFunc) { m.Set(in, name, eval.NewBuiltin(name, "", f)) }
	gpu := func(args []eval.Value) (int, error) { return b.CUDAIndex(args, nil) }
	fn("vars", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		io.WriteString(in.Stdout, fitLines(r.varsListing(p), r.Out))
		return eval.None, nil
	})
	fn("gpus", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		for i := range r.Session.DeviceCount() {
			io.WriteString(in.Stdout, fitLines(fmt.Sprintf("cuda:%d  %s\n", i, r.Session.DescribeGPU(i)), r.Out))
		}
		return eval.None, nil
	})
	fn("map", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := gpu(args)
		if err != nil {
			return nil, err
		}
		segs, exp, err := r.Session.Segments(i)
		if err != nil {
			return nil, b.Error(err)
		}
		writeMap(fitted{in.Stdout, widthOf(r.Out)}, segs, exp)
		return eval.None, nil
	})
	fn("memory_stats", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := gpu(args)
		if err != nil {
			return nil, err
		}
		st, err := r.Session.MemoryStats(i)
		if err != nil {
			return nil, b.Error(err)
		}
		if len(st) == 0 {
			io.WriteString(in.Stdout, "{}\n") // CUDA not initialised
		}
		for _, k := range allocator.StatKeys {
			if v, ok := st[k]; ok {
				fmt.Fprintf(in.Stdout, "%s: %d\n", k, v)
			}
		}
		return eval.None, nil
	})
	fn("alloc_conf", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		s, _ := args[0].(string)
		return eval.None, b.Error(r.Session.SetAllocConf(s))
	})
	fn("plot", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		path, _ := args[0].(string)
		if err := r.plotTo(path); err != nil {
			return nil, fileError(in, b, err)
		}
		steps := 0
		if n := len(r.history); n > 0 {
			steps = r.history[n-1].First + r.history[n-1].Count - 1
		}
		fmt.Fprintf(in.Stdout, "    wrote %s: %d steps\n", path, steps)
		return eval.None, nil
	})
	fn("snapshot_save", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		path, _ := args[0].(string)
		i, err := gpu(args[1:])
		if err != nil {
			return nil, err
		}
		return eval.None, fileError(in, b, r.Session.SaveSnapshot(path, i))
	})
	fn("load", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		path, _ := args[0].(string)
		until, _ := args[1].(int64)
		name, _ := args[2].(string)
		l, err := r.Session.LoadHistory(path, int(until))
		if err != nil {
			return nil, b.Error(err)
		}
		r.Session.Eventf("%s: %s", name, l)
		in.Bind(p.fr, name, eval.Track(in, &loaded{l: l, s: r.Session}))
		return eval.None, nil
	})
	fn("explain", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := gpu(args[:1])
		if err != nil {
			return nil, err
		}
		asJSON, _ := args[1].(bool)
		text, err := r.explainDevice(p, i, asJSON)
		if errors.Is(err, explain.ErrInterrupted) {
			return nil, in.Raise(eval.KeyboardInterruptType, "")
		}
		if err != nil {
			return nil, b.Error(err)
		}
		io.WriteString(in.Stdout, fitLines(text, r.Out))
		return eval.None, nil
	})
	fn("peak", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := gpu(args[:1])
		if err != nil {
			return nil, err
		}
		now, _ := args[1].(bool)
		asJSON, _ := args[2].(bool)
		r.Session.EndStep()
		bd, ok, err := r.peakBreakdown(i, now)
		if err != nil {
			return nil, b.Error(err)
		}
		switch {
		case !ok:
			fmt.Fprintf(in.Stdout, "cuda:%d has allocated nothing yet\n", i)
		case asJSON:
			writePeakJSON(in.Stdout, bd)
		default:
			writeBreakdown(in.Stdout, bd, widthOf(r.Out))
		}
		return eval.None, nil
	})
	fn("help", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		topic := ""
		if len(args) > 0 {
			topic, _ = args[0].(string)
		}
		io.WriteString(in.Stdout, command.HelpWidth(topic, widthOf(r.Out)))
		return eval.None, nil
	})
	in.SetStr(in.Builtins(), command.ToolModule, m)
}

// varsListing is vars: the module's tensors (with the views and the
// names that share a storage), modules, optimizers and loads, by name.
func (r *Runner) varsListing(p *pyPrompt) string {
	type entry struct {
		name string
		v    eval.Value
	}
	var es []entry
	p.fr.Globals().Items(func(k, v eval.Value) bool {
		if name, ok := k.(string); ok && !strings.HasPrefix(name, "__") {
			es = append(es, entry{name, v})
		}
		return true
	})
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	var b strings.Builder
	for _, e := range es {
		switch v := e.v.(type) {
		case *torchpy.Tensor:
			if v.T == nil {
				continue
			}
			line := fmt.Sprintf("%-8s %s", e.name, v.T.Describe())
			if v.T.StorageBytes() > v.T.Bytes() {
				line += fmt.Sprintf(", a view keeping a %s storage alive", allocator.FormatSize(v.T.StorageBytes()))
			}
			var shared []string
			for _, o := range es {
				if u, ok := o.v.(*torchpy.Tensor); ok && u.T != nil && o.name != e.name && u.T.SameStorage(v.T) {
					shared = append(shared, o.name)
				}
			}
			if len(shared) > 0 {
				line += " (storage shared with " + strings.Join(shared, ", ") + ")"
			}
			b.WriteString(line + "\n")
		case *loaded:
			fmt.Fprintf(&b, "%-8s %s\n", e.name, v.l)
		default:
			if d, ok := p.b.Describe(v); ok {
				fmt.Fprintf(&b, "%-8s %s\n", e.name, d)
			}
		}
	}
	if b.Len() == 0 {
		return "no tensors\n"
	}
	return b.String()
}

// loaded is what load binds: the blocks a replayed history left
// allocated, freed when the object dies (del NAME).
type loaded struct {
	eval.Header
	l *engine.Loaded
	s *engine.Session
}

var loadedType = eval.NewClass("Loaded", command.ToolModule)

func (o *loaded) Type() *eval.Class         { return loadedType }
func (o *loaded) Traverse(func(eval.Value)) {}
func (o *loaded) Clear(*eval.Interp)        {}

// Finalize lets go of the load's blocks.
func (o *loaded) Finalize(*eval.Interp) {
	if o.l != nil {
		o.s.FreeLoaded(o.l)
		o.l = nil
	}
}

func init() {
	loadedType.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if l := s.(*loaded).l; l != nil {
			return "<" + l.String() + ">", nil
		}
		return "<freed load>", nil
	}))
}

// fileError is err of writing a file as Python raises it: a file's
// error as its OSError (FileNotFoundError, IsADirectoryError...), as
// _dump_snapshot raises it; any other as the binding does.
func fileError(in *eval.Interp, b *torchpy.Binding, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return in.RaiseOS(err)
	}
	return b.Error(err)
}
