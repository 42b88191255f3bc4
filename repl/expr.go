package repl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// expr parses a tensor expression: sums of products (`+` below `*` and
// `@`, both left to right, as in Python) of postfix expressions.
func (p *parser) expr() (engine.Expr, error) {
	x, err := p.product()
	for err == nil && p.is("+") {
		op := p.next()
		var y engine.Expr
		if y, err = p.product(); err == nil {
			x = &engine.Op{At: op.pos, Name: "add", Args: []engine.Expr{x, y}}
		}
	}
	return x, err
}

func (p *parser) product() (engine.Expr, error) {
	x, err := p.postfix()
	for err == nil && (p.is("*") || p.is("@")) {
		op := p.next()
		name := "mul"
		if op.text == "@" {
			name = "matmul"
		}
		var y engine.Expr
		if y, err = p.postfix(); err == nil {
			x = &engine.Op{At: op.pos, Name: name, Args: []engine.Expr{x, y}}
		}
	}
	return x, err
}

// postfix parses a primary followed by methods, indexing and calls.
func (p *parser) postfix() (engine.Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.is(".") || p.is("[") || p.is("(") {
		if p.is("(") {
			n, ok := x.(*engine.Name)
			if !ok {
				return nil, p.errAt(p.peek(), "only a module can be called")
			}
			at := p.next().pos
			arg, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			x = &engine.Call{At: at, Fn: n, Arg: arg}
			continue
		}
		if p.accept("[") {
			t := p.next()
			n, err := strconv.ParseInt(t.text, 10, 64)
			if t.kind != tWord || err != nil || n < 0 {
				return nil, p.errAt(t, "expected an index")
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = &engine.View{At: t.pos, X: x, Index: n}
			continue
		}
		p.next()
		m, err := p.word()
		if err != nil {
			return nil, err
		}
		if x, err = p.method(x, m); err != nil {
			return nil, err
		}
	}
	return x, nil
}

func (p *parser) primary() (engine.Expr, error) {
	t := p.peek()
	if p.accept("(") {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		return x, p.expect(")")
	}
	if t.kind != tWord {
		return nil, p.errAt(t, "expected a tensor expression")
	}
	if v, err := strconv.ParseFloat(t.text, 64); err == nil && strings.ContainsAny(t.text[:1], "0123456789.-") {
		p.next()
		return &engine.Number{At: t.pos, V: v}, nil
	}
	if x, ok, err := p.torchNN(); ok || err != nil {
		return x, err
	}
	if t.text == "torch" {
		p.next()
		if err := p.expect("."); err != nil {
			return nil, err
		}
		op, err := p.word()
		if err != nil {
			return nil, err
		}
		if op.text == "tensor" {
			return p.torchTensor(op)
		}
		if functions[op.text] {
			return p.function(op)
		}
		if !constructors[op.text] {
			return nil, &Error{op.pos, fmt.Sprintf("torch.%s is not supported (constructors: zeros ones empty full rand randn tensor; functions: matmul relu gelu square sum mean)", op.text)}
		}
		return p.torchCreate(op)
	}
	if constructors[t.text] && p.toks[p.i+1].kind == tWord {
		p.next()
		return p.shortCreate(t)
	}
	if !isIdent(t.text) {
		return nil, p.errAt(t, "expected a tensor expression")
	}
	p.next()
	return &engine.Name{At: t.pos, Name: t.text}, nil
}

// parseShape reads 256x1024x1024 (short form) or a single dimension.
func parseShape(t token) ([]int64, error) {
	var shape []int64
	for _, f := range strings.Split(t.text, "x") {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return nil, &Error{t.pos, fmt.Sprintf("expected a shape like 256x1024, found %q", t.text)}
		}
		shape = append(shape, n)
	}
	return shape, nil
}

// shortCreate: zeros SHAPE [DTYPE] [DEVICE]; full SHAPE VALUE [DTYPE] [DEVICE].
func (p *parser) shortCreate(op token) (engine.Expr, error) {
	st := p.next()
	shape, err := parseShape(st)
	if err != nil {
		return nil, err
	}
	c := &engine.Create{At: op.pos, Op: op.text, Shape: shape, DType: engine.Float32, Device: engine.CPU}
	if op.text == "full" {
		v := p.next()
		f, err := strconv.ParseFloat(v.text, 64)
		if v.kind != tWord || err != nil {
			return nil, p.errAt(v, "full needs a fill value")
		}
		c.Values = []float64{f}
	}
	for p.peek().kind == tWord || p.peek().kind == tString {
		a := p.next()
		if err := p.deviceOrDType(a, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// deviceOrDType applies a short-form word: a dtype or a device.
func (p *parser) deviceOrDType(a token, c *engine.Create) error {
	if dt, ok := engine.DTypes[strings.TrimPrefix(a.text, "torch.")]; ok {
		c.DType = dt
		return nil
	}
	d, err := p.deviceAfter(a)
	if err != nil {
		return err
	}
	c.Device = d
	return nil
}

// deviceAfter reads a device that starts with token a: cpu, cuda, cuda:N
// (a string, or the words cuda : N), or torch.device('cuda', N).
func (p *parser) deviceAfter(a token) (engine.Device, error) {
	s := a.text
	switch {
	case a.kind == tWord && s == "cuda" && p.is(":"):
		p.next()
		n := p.next()
		s = "cuda:" + n.text
	case a.kind == tWord && s == "torch" && p.accept("."):
		if !p.accept("device") {
			return engine.Device{}, p.errAt(p.peek(), "expected torch.device(...)")
		}
		if err := p.expect("("); err != nil {
			return engine.Device{}, err
		}
		s = p.next().text
		if p.accept(",") {
			s += ":" + p.next().text
		}
		if err := p.expect(")"); err != nil {
			return engine.Device{}, err
		}
	}
	return p.parseDevice(s, a.pos)
}

func (p *parser) parseDevice(s string, pos engine.Pos) (engine.Device, error) {
	switch {
	case s == "cpu":
		return engine.CPU, nil
	case s == "cuda":
		return engine.Device{CUDA: true, Index: p.cuda}, nil
	case strings.HasPrefix(s, "cuda:"):
		n, err := strconv.Atoi(s[5:])
		if err == nil && n >= 0 {
			return engine.Device{CUDA: true, Index: n}, nil
		}
	}
	return engine.Device{}, &Error{pos, fmt.Sprintf("expected a device (cpu, cuda, cuda:N) or a dtype, found %q", s)}
}

// torchCreate: torch.zeros([a, b], dtype=torch.float16, device='cuda'),
// torch.zeros(a, b, ...), torch.full((a, b), v, ...).
func (p *parser) torchCreate(op token) (engine.Expr, error) {
	c := &engine.Create{At: op.pos, Op: op.text, DType: engine.Float32, Device: engine.CPU}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	positional := 0
	for !p.is(")") {
		t := p.peek()
		switch {
		case t.kind == tEOF:
			return nil, p.errAt(t, "expected \")\"")
		case t.kind == tWord && p.toks[p.i+1].text == "=":
			p.i += 2
			if err := p.keyword(t, c); err != nil {
				return nil, err
			}
		case p.is("[") || p.is("("):
			p.next()
			dims, err := p.intList()
			if err != nil {
				return nil, err
			}
			if positional == 0 {
				c.Shape = dims
			}
			positional++
		default:
			v := p.next()
			if op.text == "full" && positional == 1 {
				f, err := strconv.ParseFloat(v.text, 64)
				if err != nil {
					return nil, p.errAt(v, "expected a fill value")
				}
				c.Values = []float64{f}
				positional++
				break
			}
			n, err := strconv.ParseInt(v.text, 10, 64)
			if err != nil || n < 0 {
				return nil, p.errAt(v, "expected a dimension")
			}
			c.Shape = append(c.Shape, n)
			if op.text == "full" && !p.is(",") {
				positional++
			}
		}
		if !p.accept(",") && !p.is(")") {
			return nil, p.errAt(p.peek(), "expected \",\" or \")\"")
		}
	}
	p.next()
	if op.text == "full" && positional < 2 {
		return nil, &Error{op.pos, "torch.full needs a size and a fill value"}
	}
	return c, nil
}

func (p *parser) intList() ([]int64, error) { return p.dims(false) }

// intListSigned is intList allowing -1 (an inferred dimension).
func (p *parser) intListSigned() ([]int64, error) { return p.dims(true) }

func (p *parser) dims(signed bool) ([]int64, error) {
	var dims []int64
	for !p.is("]") && !p.is(")") {
		v := p.next()
		n, err := strconv.ParseInt(v.text, 10, 64)
		if v.kind != tWord || err != nil || n < -1 || (n == -1 && !signed) {
			return nil, p.errAt(v, "expected a dimension")
		}
		dims = append(dims, n)
		if !p.accept(",") && !p.is("]") && !p.is(")") {
			return nil, p.errAt(p.peek(), "expected \",\"")
		}
	}
	p.next()
	return dims, nil
}

// keyName reads `NAME =`, a keyword argument's name.
func (p *parser) keyName() (token, error) {
	k, err := p.word()
	if err == nil {
		err = p.expect("=")
	}
	return k, err
}

func (p *parser) keyword(k token, c *engine.Create) error {
	v := p.next()
	switch k.text {
	case "device":
		d, err := p.deviceAfter(v)
		if err != nil {
			return err
		}
		c.Device = d
	case "dtype":
		name := v.text
		if name == "torch" && p.accept(".") {
			name = p.next().text
		}
		dt, ok := engine.DTypes[name]
		if !ok {
			return &Error{v.pos, fmt.Sprintf("unknown dtype %q", name)}
		}
		c.DType = dt
	case "requires_grad":
		c.RequiresGrad = v.text == "True"
	case "pin_memory":
	default:
		return &Error{k.pos, fmt.Sprintf("unexpected keyword argument %q", k.text)}
	}
	return nil
}

// torchTensor: torch.tensor([1, 2, 3], device=...): int64 for integers,
// float32 otherwise.
func (p *parser) torchTensor(op token) (engine.Expr, error) {
	c := &engine.Create{At: op.pos, Op: "tensor", DType: engine.DTypes["int64"], Device: engine.CPU}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	if err := p.expect("["); err != nil {
		return nil, err
	}
	var n int64
	for !p.is("]") {
		v := p.next()
		if v.kind != tWord {
			return nil, p.errAt(v, "expected a number")
		}
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil {
			return nil, p.errAt(v, "expected a number")
		}
		if _, err := strconv.ParseInt(v.text, 10, 64); err != nil {
			c.DType = engine.Float32
		}
		c.Values = append(c.Values, f)
		n++
		p.accept(",")
	}
	p.next()
	c.Shape = []int64{n}
	for p.accept(",") {
		k, err := p.keyName()
		if err != nil {
			return nil, err
		}
		if err := p.keyword(k, c); err != nil {
			return nil, err
		}
	}
	return c, p.expect(")")
}

// method parses .to(DEV) / .to DEV / .cuda() / .cpu() / .clone().
func (p *parser) method(x engine.Expr, m token) (engine.Expr, error) {
	switch m.text {
	case "to":
		paren := p.accept("(")
		a := p.next()
		if a.kind == tWord && a.text == "device" && p.accept("=") {
			a = p.next()
		}
		d, err := p.deviceAfter(a)
		if err != nil {
			return nil, err
		}
		if paren {
			if err := p.expect(")"); err != nil {
				return nil, err
			}
		}
		return &engine.To{At: m.pos, X: x, Device: d}, nil
	case "view", "reshape":
		if err := p.expect("("); err != nil {
			return nil, err
		}
		var dims []int64
		if p.accept("[") || p.accept("(") {
			d, err := p.intListSigned()
			if err != nil {
				return nil, err
			}
			dims = d
		} else {
			d, err := p.intListSigned()
			if err != nil {
				return nil, err
			}
			dims = d
			p.i-- // intListSigned consumed the closing ")"
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return &engine.View{At: m.pos, X: x, Index: -1, Shape: dims}, nil
	case "cuda", "cpu", "clone":
		d := engine.CPU
		if m.text == "cuda" {
			d.Index = p.cuda
		}
		if p.accept("(") {
			if m.text == "cuda" && !p.is(")") {
				n := p.next()
				idx, err := deviceIndex(n)
				if err != nil {
					return nil, err
				}
				d.Index = idx
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
		}
		switch m.text {
		case "clone":
			return &engine.Clone{At: m.pos, X: x}, nil
		case "cuda":
			d.CUDA = true
		}
		return &engine.To{At: m.pos, X: x, Device: d}, nil
	}
	if tensorMethods[m.text] {
		if err := p.expect("("); err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return &engine.Op{At: m.pos, Name: m.text, Args: []engine.Expr{x}}, nil
	}
	return nil, &Error{m.pos, fmt.Sprintf("unknown method %q (methods: to, cuda, cpu, clone, view, reshape, sum, mean, square, relu, detach, item; statements: backward, zero_grad, step, requires_grad_)", m.text)}
}
