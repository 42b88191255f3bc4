package repl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// Constructors that make a new tensor, in both forms.
var constructors = map[string]bool{"zeros": true, "ones": true, "empty": true, "full": true, "rand": true, "randn": true}

type parser struct {
	toks []token
	i    int
	line string
	cuda int // the current device: what cuda, .cuda() and a command without a device mean
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i = min(p.i+1, len(p.toks)-1); return t }

func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.kind == tPunct || t.kind == tWord) && t.text == text
}

func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(text string) error {
	if p.accept(text) {
		return nil
	}
	return p.errAt(p.peek(), "expected %q", text)
}

func (p *parser) errAt(t token, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if t.kind == tEOF {
		msg += ", found end of line"
	} else {
		msg += fmt.Sprintf(", found %q", t.text)
	}
	return &Error{t.pos, msg}
}

func (p *parser) word() (token, error) {
	t := p.next()
	if t.kind != tWord {
		return t, p.errAt(t, "expected a name")
	}
	return t, nil
}

func isIdent(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !isWordRune(r) {
			return false
		}
	}
	return true
}

// Parse turns one line of input into a command: nil for a blank line, a
// comment or a `#%%` cell marker, engine.Nop for `import torch`. current
// is the current device (what torch.cuda.set_device chose): `cuda`,
// `.cuda()` and the memory commands without a device name it.
func Parse(line string, lineNo, current int) (engine.Command, error) {
	if c, ok, err := fileCommand(line, lineNo, current); ok || err != nil {
		return c, err
	}
	toks, err := lex(line, lineNo)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, line: line, cuda: current}
	c, err := p.command()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected text after the command")
	}
	return c, nil
}

func (p *parser) command() (engine.Command, error) {
	t := p.peek()
	if t.kind == tEOF {
		return nil, nil
	}
	if t.kind == tWord && (t.text == "import" || t.text == "from") {
		p.i = len(p.toks) - 1
		return &engine.Nop{}, nil
	}
	if t.kind == tWord && t.text == "print" && p.toks[p.i+1].kind != tPunct || t.text == "print" && p.toks[p.i+1].text == "(" {
		p.next()
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &engine.Print{X: x}, nil
	}
	if t.kind == tWord && t.text == "del" {
		p.next()
		return p.del()
	}
	if c, ok, err := p.memoryCommand(); ok || err != nil {
		return c, err
	}
	if c, ok, err := p.statement(); ok || err != nil {
		return c, err
	}
	if t.kind == tWord && isIdent(t.text) && p.toks[p.i+1].text == "=" && p.toks[p.i+1].kind == tPunct {
		p.i += 2
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &engine.Assign{Name: t.text, X: x}, nil
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &engine.Eval{X: x}, nil
}

func (p *parser) del() (engine.Command, error) {
	var names []*engine.Name
	for {
		t, err := p.word()
		if err != nil || !isIdent(t.text) {
			return nil, p.errAt(t, "expected a name to delete")
		}
		names = append(names, &engine.Name{At: t.pos, Name: t.text})
		p.accept(",")
		if p.peek().kind == tEOF {
			return &engine.Del{Names: names}, nil
		}
	}
}

// memoryCommand parses the memory commands, short (`empty_cache`) or as
// PyTorch calls (`torch.cuda.empty_cache()`).
func (p *parser) memoryCommand() (engine.Command, bool, error) {
	start := p.i
	call := false
	if p.is("torch") {
		p.next()
		if !p.accept(".") || !p.accept("cuda") || !p.accept(".") {
			p.i = start
			return nil, false, nil
		}
		call = true
	}
	t := p.peek()
	if t.kind != tWord {
		p.i = start
		return nil, false, nil
	}
	name := t.text
	switch name {
	case "empty_cache", "memory_summary", "memory_stats", "reset_peak_memory_stats", "set_per_process_memory_fraction", "alloc_conf", "vars", "map", "gpus", "set_device", "current_device":
	default:
		if _, ok := statFunctions[name]; ok {
			break
		}
		p.i = start
		return nil, false, nil
	}
	if !call && p.toks[p.i+1].kind == tPunct && p.toks[p.i+1].text == "=" {
		p.i = start // a variable of that name
		return nil, false, nil
	}
	p.next()
	if name == "alloc_conf" {
		rest := strings.TrimSpace(string([]rune(p.line)[t.pos.Col-1+len("alloc_conf"):]))
		rest = strings.Trim(rest, "'\"")
		p.i = len(p.toks) - 1
		return &engine.AllocConf{Conf: rest}, true, nil
	}
	var args []token
	if call || p.is("(") {
		if err := p.expect("("); err != nil {
			return nil, true, err
		}
		for !p.is(")") {
			a := p.next()
			if a.kind == tEOF {
				return nil, true, p.errAt(a, "expected \")\"")
			}
			if a.kind == tWord && p.is("=") { // keyword argument: device=
				p.next()
				a = p.next()
			}
			args = append(args, a)
			p.accept(",")
		}
		p.next()
	} else {
		for p.peek().kind != tEOF {
			args = append(args, p.next())
		}
	}
	c, err := memoryArgs(name, args, p.cuda)
	return c, true, err
}

// statFunctions are torch.cuda's one-number queries, by the memory_stats
// key each returns.
var statFunctions = map[string]string{
	"memory_allocated":     "allocated_bytes.all.current",
	"memory_reserved":      "reserved_bytes.all.current",
	"max_memory_allocated": "allocated_bytes.all.peak",
	"max_memory_reserved":  "reserved_bytes.all.peak",
}

func deviceIndex(t token) (int, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(t.text, "cuda:"), "cuda")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, &Error{t.pos, fmt.Sprintf("expected a device index, found %q", t.text)}
	}
	return n, nil
}

func memoryArgs(name string, args []token, current int) (engine.Command, error) {
	dev := current
	var err error
	switch name {
	case "set_device":
		if len(args) != 1 {
			return nil, &Error{engine.Pos{}, "set_device takes a device"}
		}
		if dev, err = deviceIndex(args[0]); err != nil {
			return nil, err
		}
		return &engine.SetDevice{Device: dev}, nil
	case "empty_cache", "vars", "gpus", "current_device":
		if len(args) > 0 {
			return nil, &Error{args[0].pos, name + " takes no arguments"}
		}
		switch name {
		case "vars":
			return &engine.Vars{}, nil
		case "gpus":
			return &engine.GPUs{}, nil
		case "current_device":
			return &engine.CurrentDevice{}, nil
		}
		return &engine.EmptyCache{}, nil
	case "set_per_process_memory_fraction":
		if len(args) == 0 || len(args) > 2 {
			return nil, &Error{engine.Pos{}, "set_per_process_memory_fraction takes a fraction and optionally a device"}
		}
		f, perr := strconv.ParseFloat(args[0].text, 64)
		if perr != nil || f < 0 || f > 1 {
			return nil, &Error{args[0].pos, fmt.Sprintf("Invalid fraction value: %s. Allowed range: 0~1", args[0].text)}
		}
		if len(args) == 2 {
			if dev, err = deviceIndex(args[1]); err != nil {
				return nil, err
			}
		}
		return &engine.SetFraction{Fraction: f, Device: dev}, nil
	}
	if len(args) > 1 {
		return nil, &Error{args[1].pos, name + " takes at most a device"}
	}
	if len(args) == 1 {
		if dev, err = deviceIndex(args[0]); err != nil {
			return nil, err
		}
	}
	switch name {
	case "map":
		return &engine.Map{Device: dev}, nil
	case "memory_summary":
		return &engine.MemorySummary{Device: dev}, nil
	case "memory_stats":
		return &engine.MemoryStats{Device: dev}, nil
	}
	if key, ok := statFunctions[name]; ok {
		return &engine.MemoryStats{Device: dev, Key: key}, nil
	}
	return &engine.ResetPeak{Device: dev}, nil
}

// isFileCommand reports whether line is the command word followed by an
// argument (not `word = ...`, which binds a name).
func isFileCommand(line, word string) bool {
	rest, ok := strings.CutPrefix(line, word+" ")
	rest = strings.TrimSpace(rest)
	return ok && rest != "" && !strings.HasPrefix(rest, "=")
}

// fileCommand parses the commands that take a file name (the rest of the
// line, quotes optional), before the line is split into tokens, since
// paths hold any character: snapshot save FILE [DEVICE],
// torch.cuda.memory._dump_snapshot(FILE), load FILE [until N] [as NAME];
// and torch.cuda.memory._record_memory_history(...), which is always on.
func fileCommand(line string, lineNo, current int) (engine.Command, bool, error) {
	trimmed := strings.TrimSpace(line)
	at := engine.Pos{Line: lineNo, Col: len([]rune(line)) - len([]rune(strings.TrimLeft(line, " \t"))) + 1}
	args := func(prefix string) []string {
		return strings.Fields(strings.NewReplacer("'", " ", "\"", " ", "(", " ", ")", " ").Replace(strings.TrimPrefix(trimmed, prefix)))
	}
	switch {
	case strings.HasPrefix(trimmed, "torch.cuda.memory._record_memory_history"):
		return &engine.Nop{}, true, nil
	case strings.HasPrefix(trimmed, "torch.cuda.memory._dump_snapshot"):
		a := args("torch.cuda.memory._dump_snapshot")
		if len(a) != 1 {
			return nil, true, &Error{at, "_dump_snapshot takes a file name"}
		}
		return &engine.SnapshotSave{At: at, Path: a[0], Device: current}, true, nil
	case isFileCommand(trimmed, "snapshot save"):
		a := args("snapshot save")
		if len(a) == 0 || len(a) > 2 {
			return nil, true, &Error{at, "usage: snapshot save FILE.pickle [DEVICE]"}
		}
		c := &engine.SnapshotSave{At: at, Path: a[0], Device: current}
		if len(a) == 2 {
			d, err := deviceIndex(token{tWord, a[1], at})
			if err != nil {
				return nil, true, err
			}
			c.Device = d
		}
		return c, true, nil
	case isFileCommand(trimmed, "load"):
		a := args("load ")
		c := &engine.Load{At: at, Path: a[0], Until: -1, Name: "trace"}
		for k := 1; k < len(a); k += 2 {
			if k+1 >= len(a) {
				return nil, true, &Error{at, "usage: load FILE [until N] [as NAME]"}
			}
			switch a[k] {
			case "until":
				n, err := strconv.Atoi(a[k+1])
				if err != nil || n < 0 {
					return nil, true, &Error{at, fmt.Sprintf("load: until needs an op count, found %q", a[k+1])}
				}
				c.Until = n
			case "as":
				if !isIdent(a[k+1]) {
					return nil, true, &Error{at, fmt.Sprintf("load: %q is not a name", a[k+1])}
				}
				c.Name = a[k+1]
			default:
				return nil, true, &Error{at, "usage: load FILE [until N] [as NAME]"}
			}
		}
		return c, true, nil
	}
	return nil, false, nil
}
