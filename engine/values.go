package engine

import (
	"fmt"
)

// Names hold tensors (s.vars) or other values (s.objs): modules,
// optimizers and Python numbers.

// lookup returns what a name holds.
func (s *Session) lookup(name string) (any, bool) {
	if t, ok := s.vars[name]; ok {
		return t, true
	}
	v, ok := s.objs[name]
	return v, ok
}

// evalValue evaluates an expression that may yield a module, an
// optimizer or a number as well as a tensor.
func (s *Session) evalValue(e Expr) (any, error) {
	switch e := e.(type) {
	case *ModuleNew:
		m, err := s.newModule(e)
		if err != nil {
			return nil, &EvalError{Pos: e.At, Err: err}
		}
		return m, nil
	case *OptimizerNew:
		m, ok := s.objs[e.Module.Name].(*Module)
		if !ok {
			return nil, &EvalError{Pos: e.Module.At, Err: fmt.Errorf("TypeError: %s is not a module", e.Module.Name)}
		}
		return &Optimizer{Kind: e.Kind, Params: m.parameters(), Momentum: e.Momentum, state: map[*Tensor][]*Tensor{}}, nil
	case *Number:
		return e.V, nil
	case *Name:
		if v, ok := s.objs[e.Name]; ok {
			return v, nil
		}
	case *To:
		if isModule(s, e.X) {
			v, err := s.evalValue(e.X)
			if err != nil {
				return nil, err
			}
			m := v.(*Module)
			if err := s.moduleTo(m, e.Device, e.At); err != nil {
				return nil, err
			}
			return m, nil
		}
	}
	return s.eval(e)
}

// isModule reports whether e denotes a module.
func isModule(s *Session, e Expr) bool {
	switch e := e.(type) {
	case *ModuleNew:
		return true
	case *Name:
		_, ok := s.objs[e.Name].(*Module)
		return ok
	case *To:
		return isModule(s, e.X)
	}
	return false
}

// bind gives name the value v; what the name held before is let go after.
func (s *Session) bind(name string, v any) {
	if t, ok := v.(*Tensor); ok {
		if t.st.refs > 1 {
			s.event("%s: %s, sharing storage (no new memory)", name, describe(t))
		} else {
			s.event("%s: %s", name, describe(t))
		}
		old, had := s.lookup(name)
		s.vars[name] = t
		if had {
			delete(s.objs, name)
			s.letGo(old, "old "+name)
		}
		return
	}
	switch v := v.(type) {
	case *Module:
		s.event("%s: %s", name, describeObj(v))
	case *Optimizer:
		s.event("%s: %s over %d parameters (its state is made at the first step)", name, v.Kind, len(v.Params))
	case *Loaded:
		s.event("%s: %s", name, v)
	}
	old, had := s.lookup(name)
	delete(s.vars, name)
	s.objs[name] = v
	if had && old != v {
		s.letGo(old, "old "+name)
	}
}

// unbind removes a name.
func (s *Session) unbind(name string) {
	v, _ := s.lookup(name)
	delete(s.vars, name)
	delete(s.objs, name)
	s.letGo(v, name)
}

// letGo drops a value no longer bound to a name: a tensor's reference,
// or a module's parameters or an optimizer's state once no name holds it.
func (s *Session) letGo(v any, who string) {
	switch v := v.(type) {
	case *Tensor:
		s.drop(v, who)
	case *Module:
		if !s.held(v) {
			s.freeModule(v)
		}
	case *Loaded:
		if !s.held(v) {
			s.freeLoaded(v)
		}
	case *Optimizer:
		if !s.held(v) {
			s.freeOptimizer(v)
			if !s.paramsHeld(v.Params) { // its module's names went before it
				s.freeParams(v.Params)
			}
		}
	}
}

// paramsHeld reports whether a bound module holds these parameters.
func (s *Session) paramsHeld(ps []*Tensor) bool {
	for _, o := range s.objs {
		if m, ok := o.(*Module); ok && sameParams(m.parameters(), ps) {
			return true
		}
	}
	return false
}

// sameParams reports whether two parameter lists are one module's.
func sameParams(a, b []*Tensor) bool { return len(a) > 0 && len(b) > 0 && a[0] == b[0] }

// held reports whether a name (or, for a module, an optimizer) still
// holds v.
func (s *Session) held(v any) bool {
	for _, o := range s.objs {
		if o == v {
			return true
		}
		if m, isMod := v.(*Module); isMod {
			if opt, ok := o.(*Optimizer); ok && sameParams(opt.Params, m.parameters()) {
				return true
			}
		}
	}
	return false
}

func paramBytes(ps []*Tensor) uint64 {
	var n uint64
	for _, p := range ps {
		n += p.Bytes()
	}
	return n
}

// evalOp evaluates a tensor operation: its arguments left to right, then
// the op; the arguments' temporaries go after it.
// takesNumbers are the ops that take a Python number for either operand.
var takesNumbers = map[string]bool{"add": true, "mul": true, "sub": true, "div": true, "eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true}

func (s *Session) evalOp(e *Op) (*Tensor, error) {
	var args []*Tensor
	defer func() {
		for _, a := range args {
			s.dropTensor(a)
		}
	}()
	for _, a := range e.Args {
		t, err := s.eval(a)
		if err != nil {
			return nil, err
		}
		args = append(args, t)
	}
	if !takesNumbers[e.Name] {
		for _, a := range args {
			if a.number {
				return nil, &EvalError{Pos: e.At, Err: fmt.Errorf("TypeError: %s needs a tensor, not a number", e.Name)}
			}
		}
	}
	var out *Tensor
	var err error
	switch e.Name {
	case "matmul":
		out, err = s.matmul(args[0], args[1])
	case "add", "mul", "sub", "div":
		if e.Name == "div" && (args[0].number || !args[1].number) {
			return nil, &EvalError{Pos: e.At, Err: fmt.Errorf("TypeError: div here divides a tensor by a number")}
		}
		if args[0].number && args[1].number {
			return nil, &EvalError{Pos: e.At, Err: fmt.Errorf("TypeError: a number %s a number is not a tensor", e.Name)}
		}
		out, err = s.binary(e.Name, args[0], args[1])
	case "eq", "ne", "lt", "le", "gt", "ge":
		if args[0].number && args[1].number {
			return nil, &EvalError{Pos: e.At, Err: fmt.Errorf("TypeError: a number compared with a number is not a tensor")}
		}
		out, err = s.compare(args[0], args[1])
	case "relu", "gelu", "square", "sigmoid", "tanh", "exp":
		out, err = s.elementwise(e.Name, args[0])
	case "sum", "mean":
		out, err = s.reduce(e.Name, args[0])
	case "item":
		out = &Tensor{number: true}
	case "detach":
		out = share(args[0])
		s.unref(out.fn)
		out.fn, out.slot = nil, nil
	default:
		err = fmt.Errorf("unknown operation %q", e.Name)
	}
	if err != nil {
		return nil, &EvalError{Pos: e.At, Err: err}
	}
	return out, nil
}
