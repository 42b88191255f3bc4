package repl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// functions are the tensor functions of torch. and torch.nn.functional.
var functions = map[string]bool{"matmul": true, "relu": true, "gelu": true, "square": true, "sum": true, "mean": true}

// tensorMethods are the no-argument tensor methods that make a tensor.
var tensorMethods = map[string]bool{"sum": true, "mean": true, "square": true, "relu": true, "detach": true, "item": true}

// modules are the torch.nn modules.
var modules = map[string]bool{"Linear": true, "ReLU": true, "GELU": true, "Sequential": true}

// optimizers are the torch.optim optimizers.
var optimizers = map[string]bool{"SGD": true, "Adam": true, "AdamW": true}

// torchNN parses torch.nn.X(...), nn.X(...), torch.optim.X(...),
// optim.X(...), torch.nn.functional.f(...) and F.f(...), and the short
// forms X(...) (Linear(10, 20), Sequential(...), AdamW(...)); ok is false
// when the input is none of them.
func (p *parser) torchNN() (engine.Expr, bool, error) {
	start := p.i
	var path []string
	for {
		t := p.peek()
		if t.kind != tWord {
			break
		}
		path = append(path, t.text)
		p.next()
		if !p.accept(".") {
			break
		}
	}
	if len(path) == 0 {
		p.i = start
		return nil, false, nil
	}
	name := path[len(path)-1]
	prefix := strings.Join(path[:len(path)-1], ".")
	at := p.toks[p.i-1].pos
	switch {
	case (prefix == "torch.nn" || prefix == "nn" || prefix == "" && p.is("(")) && modules[name]:
		m, err := p.module(name, at)
		return m, true, err
	case (prefix == "torch.optim" || prefix == "optim" || prefix == "" && p.is("(")) && optimizers[name]:
		o, err := p.optimizer(name, at)
		return o, true, err
	case (prefix == "torch.nn.functional" || prefix == "F") && functions[name]:
		x, err := p.function(p.toks[p.i-1])
		return x, true, err
	case prefix == "torch.nn" || prefix == "torch.optim" || prefix == "torch.nn.functional":
		return nil, true, &Error{at, fmt.Sprintf("%s is not supported (modules: Linear ReLU GELU Sequential; optimizers: SGD Adam AdamW; functions: relu gelu)", strings.Join(path, "."))}
	}
	p.i = start
	return nil, false, nil
}

// module parses the arguments of a module constructor.
func (p *parser) module(kind string, at engine.Pos) (*engine.ModuleNew, error) {
	m := &engine.ModuleNew{At: at, Kind: kind, Bias: true}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var ints []int64
	for !p.is(")") {
		t := p.peek()
		switch {
		case t.kind == tEOF:
			return nil, p.errAt(t, "expected \")\"")
		case kind == "Sequential":
			c, ok, err := p.torchNN()
			if err != nil {
				return nil, err
			}
			cm, isMod := c.(*engine.ModuleNew)
			if !ok || !isMod {
				return nil, p.errAt(t, "expected a module")
			}
			m.Children = append(m.Children, cm)
		case t.kind == tWord && p.toks[p.i+1].text == "=":
			p.i += 2
			v := p.next()
			switch t.text {
			case "bias":
				m.Bias = v.text != "False"
			case "in_features", "out_features":
				n, err := strconv.ParseInt(v.text, 10, 64)
				if err != nil || n <= 0 {
					return nil, p.errAt(v, "expected a size")
				}
				ints = append(ints, n)
			case "approximate", "inplace":
			default:
				return nil, &Error{t.pos, fmt.Sprintf("unexpected keyword argument %q", t.text)}
			}
		default:
			v := p.next()
			n, err := strconv.ParseInt(v.text, 10, 64)
			if err != nil || n <= 0 {
				return nil, p.errAt(v, "expected a size")
			}
			ints = append(ints, n)
		}
		if !p.accept(",") && !p.is(")") {
			return nil, p.errAt(p.peek(), "expected \",\" or \")\"")
		}
	}
	p.next()
	if kind == "Linear" {
		if len(ints) != 2 {
			return nil, &Error{at, "Linear needs in_features and out_features"}
		}
		m.In, m.Out = ints[0], ints[1]
	}
	return m, nil
}

// optimizer parses torch.optim.X(NAME.parameters(), lr=..., momentum=...).
func (p *parser) optimizer(kind string, at engine.Pos) (*engine.OptimizerNew, error) {
	o := &engine.OptimizerNew{At: at, Kind: kind}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	t, err := p.word()
	if err != nil || !isIdent(t.text) {
		return nil, p.errAt(t, "expected MODEL.parameters()")
	}
	o.Module = &engine.Name{At: t.pos, Name: t.text}
	for _, w := range []string{".", "parameters", "(", ")"} {
		if err := p.expect(w); err != nil {
			return nil, err
		}
	}
	for p.accept(",") {
		k, err := p.keyName()
		if err != nil {
			return nil, err
		}
		v := p.next()
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil {
			return nil, p.errAt(v, "expected a number")
		}
		switch k.text {
		case "momentum":
			o.Momentum = f
		case "lr", "weight_decay", "eps", "dampening":
		default:
			return nil, &Error{k.pos, fmt.Sprintf("unexpected keyword argument %q", k.text)}
		}
	}
	return o, p.expect(")")
}

// function parses f(x) or matmul(a, b) after its name.
func (p *parser) function(op token) (engine.Expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var args []engine.Expr
	for !p.is(")") {
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if !p.accept(",") && !p.is(")") {
			return nil, p.errAt(p.peek(), "expected \",\" or \")\"")
		}
	}
	p.next()
	if want := map[bool]int{true: 2, false: 1}[op.text == "matmul"]; len(args) != want {
		return nil, &Error{op.pos, fmt.Sprintf("%s takes %d tensor argument(s)", op.text, want)}
	}
	return &engine.Op{At: op.pos, Name: op.text, Args: args}, nil
}

// statement parses the autograd statements: X.backward(),
// M.zero_grad(set_to_none=B), OPT.step(), X.requires_grad_(),
// torch.set_grad_enabled(B) and `with torch.no_grad():` (a block, or one
// command after the colon); ok is false for anything else.
func (p *parser) statement() (engine.Command, bool, error) {
	n, i := len(p.toks), p.i
	if n-i >= 6 && p.toks[n-2].text == ")" && p.toks[n-3].text == "(" && p.toks[n-4].text == "backward" && p.toks[n-5].text == "." {
		at := p.toks[n-4].pos
		sub := &parser{toks: append(p.toks[i:n-5:n-5], p.toks[n-1]), line: p.line, cuda: p.cuda}
		x, err := sub.expr()
		if err == nil && sub.peek().kind != tEOF {
			err = sub.errAt(sub.peek(), "unexpected text before .backward()")
		}
		p.i = n - 1
		return &engine.Backward{At: at, X: x}, true, err
	}
	t := p.peek()
	if t.kind == tWord && t.text == "with" {
		return p.with()
	}
	if n-i >= 5 && t.kind == tWord && isIdent(t.text) && p.toks[i+1].text == "." {
		target := &engine.Name{At: t.pos, Name: t.text}
		switch m := p.toks[i+2].text; m {
		case "zero_grad", "step", "requires_grad_":
			p.i = i + 3
			args, err := p.kwargs()
			if err != nil {
				return nil, true, err
			}
			switch m {
			case "zero_grad":
				return &engine.ZeroGrad{Target: target, SetToNone: args["set_to_none"] != "False"}, true, nil
			case "step":
				return &engine.Step{Opt: target}, true, nil
			}
			return &engine.RequiresGrad{X: target}, true, nil
		}
	}
	if n-i >= 7 && t.text == "torch" && p.toks[i+2].text == "set_grad_enabled" {
		p.i = i + 3
		if err := p.expect("("); err != nil {
			return nil, true, err
		}
		v := p.next()
		if v.text != "True" && v.text != "False" {
			return nil, true, p.errAt(v, "expected True or False")
		}
		return &engine.GradMode{Enabled: v.text == "True"}, true, p.expect(")")
	}
	return nil, false, nil
}

// kwargs parses (k=v, ...) into words.
func (p *parser) kwargs() (map[string]string, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	args := map[string]string{}
	for !p.is(")") {
		k, err := p.keyName()
		if err != nil {
			return nil, err
		}
		args[k.text] = p.next().text
		if !p.accept(",") && !p.is(")") {
			return nil, p.errAt(p.peek(), "expected \",\" or \")\"")
		}
	}
	p.next()
	return args, nil
}

// with parses `with torch.no_grad():` or `with torch.enable_grad():`,
// with or without a command after the colon.
func (p *parser) with() (engine.Command, bool, error) {
	p.next()
	for _, w := range []string{"torch", "."} {
		if err := p.expect(w); err != nil {
			return nil, true, err
		}
	}
	mode := p.next()
	if mode.text != "no_grad" && mode.text != "enable_grad" && mode.text != "inference_mode" {
		return nil, true, &Error{mode.pos, fmt.Sprintf("with torch.%s is not supported (no_grad, enable_grad, inference_mode)", mode.text)}
	}
	for _, w := range []string{"(", ")", ":"} {
		if err := p.expect(w); err != nil {
			return nil, true, err
		}
	}
	g := &engine.GradMode{Enabled: mode.text == "enable_grad", Block: true}
	if p.peek().kind != tEOF {
		body, err := p.command()
		if err != nil {
			return nil, true, err
		}
		g.Body = body
	}
	return g, true, nil
}
