package eval

import "fmt"

// Generator is a generator: the frame of a generator function or
// generator expression, run a step at a time. Its body runs on a
// goroutine of its own that hands control back and forth with the
// caller, so only one of them ever runs.
type Generator struct {
	Header
	name    string
	fr      *Frame
	body    func(in *Interp) (Value, error)
	started bool
	done    bool
	running bool
	resume  chan genMsg // caller -> generator: a value sent, or an exception thrown
	out     chan genMsg // generator -> caller: a value yielded, or the end
}

type genMsg struct {
	v    Value
	err  error
	done bool
}

// Type is generator.
func (g *Generator) Type() *Class { return GeneratorType }

// Traverse visits the frame.
func (g *Generator) Traverse(visit func(Value)) {
	if g.fr != nil {
		visit(g.fr)
	}
}

// Clear closes a suspended generator (GeneratorExit runs its finally
// blocks, as CPython's generator dealloc does) and lets go of its frame.
func (g *Generator) Clear(in *Interp) {
	if g.started && !g.done && !g.running {
		if err := in.genClose(g); err != nil {
			in.unraisable(err, fmt.Sprintf("Exception ignored in: <generator object %s>", g.name))
		}
	}
	if fr := g.fr; fr != nil {
		g.fr = nil
		in.Decref(fr)
	}
}

// newGenerator makes the generator of a function's frame (which it
// takes over); body runs the frame's code (nil: the function's).
func (in *Interp) newGenerator(fr *Frame, body ...func(in *Interp) (Value, error)) *Generator {
	g := &Generator{name: fr.name, fr: fr}
	if len(body) > 0 {
		g.body = body[0]
	} else {
		g.body = func(in *Interp) (Value, error) { return in.runCode(fr) }
	}
	fr.gen = g
	in.track(g)
	return g
}

// genSend resumes g with v (borrowed; None to start). It returns the
// next yielded value, or done when the generator returned.
func (in *Interp) genSend(g *Generator, msg genMsg) (Value, bool, error) {
	v, done, err := in.genStep(g, msg)
	if done {
		in.Decref(v) // the return value, which nothing takes
		v = nil
	}
	return v, done, err
}

// genStep is genSend that gives the generator's return value (owned)
// when it is done: what yield from evaluates to.
func (in *Interp) genStep(g *Generator, msg genMsg) (Value, bool, error) {
	if g.running {
		return nil, false, in.Raise(ValueErrorType, "generator already executing")
	}
	if g.done {
		if msg.err != nil {
			return nil, false, msg.err
		}
		return None, true, nil
	}
	if !g.started {
		if msg.err != nil {
			g.done = true
			in.releaseGenFrame(g)
			return nil, false, msg.err
		}
		if msg.v != nil && msg.v != None {
			return nil, false, in.typeError("can't send non-None value to a just-started generator")
		}
		g.started = true
		g.resume, g.out = make(chan genMsg), make(chan genMsg)
		go in.genMain(g)
	}
	if in.depth >= recursionLimit {
		return nil, false, in.Raise(RecursionErrorType, "maximum recursion depth exceeded")
	}
	g.running = true
	in.depth++
	prev := in.frame
	g.fr.back = prev
	in.frame = g.fr
	g.resume <- msg
	r := <-g.out
	in.frame = prev
	in.depth--
	g.running = false
	if r.done {
		g.done = true
		in.releaseGenFrame(g)
		if r.err != nil {
			return nil, false, r.err
		}
		return r.v, true, nil
	}
	return r.v, false, nil
}

func (in *Interp) releaseGenFrame(g *Generator) {
	if fr := g.fr; fr != nil {
		g.fr = nil
		in.Decref(fr)
	}
}

// genMain is the generator's goroutine.
func (in *Interp) genMain(g *Generator) {
	var r genMsg
	defer func() {
		if p := recover(); p != nil {
			r = genMsg{err: fmt.Errorf("internal error in generator %s: %v", g.name, p), done: true}
		}
		g.out <- r
	}()
	first := <-g.resume
	if first.err != nil {
		r = genMsg{err: first.err, done: true}
		return
	}
	fr := g.fr
	v, err := g.body(in)
	if err != nil {
		if Matches(err, StopIterationType) {
			in.Drop(err)
			err = in.Raise(RuntimeErrorType, "generator raised StopIteration")
		}
		err = in.addTraceback(err, fr)
	}
	r = genMsg{v: v, err: err, done: true}
}

// yield hands v (owned) to the generator's caller and waits to be
// resumed: the value sent comes back (owned), or the exception thrown
// in is raised here.
func (in *Interp) yield(fr *Frame, v Value) (Value, error) {
	g := fr.gen
	if g == nil {
		in.Decref(v)
		return nil, in.Raise(SyntaxErrorType, "'yield' outside function")
	}
	g.out <- genMsg{v: v}
	m := <-g.resume
	if m.err != nil {
		return nil, m.err
	}
	if m.v == nil {
		return None, nil
	}
	return newRef(m.v), nil
}

// yieldFrom yields every value of an iterable (owned) in turn.
func (in *Interp) yieldFrom(fr *Frame, src Value) (Value, error) {
	it, err := in.Iter(src)
	in.Decref(src)
	if err != nil {
		return nil, err
	}
	defer in.Decref(it)
	if g, ok := it.(*Generator); ok {
		// a generator gets what is sent, and its return value is the
		// expression's
		var sent Value = None
		for {
			v, done, err := in.genStep(g, genMsg{v: sent})
			in.Decref(sent)
			if err != nil || done {
				return v, err
			}
			if sent, err = in.yield(fr, v); err != nil {
				return nil, err
			}
		}
	}
	for {
		v, ok, err := in.Next(it)
		if err != nil {
			return nil, err
		}
		if !ok {
			return None, nil
		}
		sent, err := in.yield(fr, v)
		if err != nil {
			return nil, err
		}
		in.Decref(sent)
	}
}

// genClose is generator.close(): GeneratorExit is thrown in; the
// generator must not yield again.
func (in *Interp) genClose(g *Generator) error {
	if !g.started || g.done {
		g.done = true
		in.releaseGenFrame(g)
		return nil
	}
	v, done, err := in.genSend(g, genMsg{err: in.raiseInst(in.NewException(GeneratorExitType))})
	if err != nil {
		if Matches(err, GeneratorExitType) || Matches(err, StopIterationType) {
			in.Drop(err)
			return nil
		}
		return err
	}
	if !done {
		in.Decref(v)
		return in.Raise(RuntimeErrorType, "generator ignored GeneratorExit")
	}
	return nil
}

func init() {
	GeneratorType.SetMethod(NewBuiltin("send", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var sent Value
		if err := in.UnpackArgs("generator.send", args, kw, "value", &sent, "/"); err != nil {
			return nil, err
		}
		v, done, err := in.genSend(self.(*Generator), genMsg{v: sent})
		if err != nil {
			return nil, err
		}
		if done {
			return nil, in.raiseInst(in.NewException(StopIterationType))
		}
		return v, nil
	}))
	GeneratorType.SetMethod(NewBuiltin("close", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("generator.close", args, kw); err != nil {
			return nil, err
		}
		return None, in.genClose(self.(*Generator))
	}))
}
