package pyformat

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// The generators of TestCPython's cases, one for each part of pyformat.

// spec draws a format spec, mostly well formed, with a type from types.
func (g *caseGen) spec(types string) string {
	var b strings.Builder
	if g.chance(0.35) {
		if g.chance(0.5) {
			b.WriteString(g.pick(" ", "*", "0", "x", "\u00e9", "<", "\x00", "_"))
		}
		b.WriteString(g.pick("<", ">", "^", "="))
	}
	if g.chance(0.3) {
		b.WriteString(g.pick("+", "-", " "))
	}
	if g.chance(0.1) {
		b.WriteByte('z')
	}
	if g.chance(0.2) {
		b.WriteByte('#')
	}
	if g.chance(0.2) {
		b.WriteByte('0')
	}
	if g.chance(0.5) {
		b.WriteString(strconv.Itoa(g.r.IntN(30)))
	} else if g.chance(0.05) {
		b.WriteString("\u0663") // an Arabic-Indic 3
	}
	if g.chance(0.2) {
		b.WriteString(g.pick(",", "_"))
	}
	if g.chance(0.5) {
		b.WriteByte('.')
		if g.chance(0.1) {
			b.WriteString(strconv.Itoa(30 + g.r.IntN(40)))
		} else if g.chance(0.95) {
			b.WriteString(strconv.Itoa(g.r.IntN(20)))
		}
	}
	if g.chance(0.85) {
		b.WriteRune([]rune(types)[g.r.IntN(len([]rune(types)))])
	}
	if g.chance(0.04) {
		b.WriteString(g.text(2))
	}
	return b.String()
}

func (g *caseGen) formatCase() {
	var v pyValue
	var types string
	switch g.r.IntN(10) {
	case 0, 1, 2, 3:
		v, types = pyFloat(g.float()), "eEfFgGn%%eEfFgGsdx"
	case 4, 5, 6:
		v, types = pyBig(g.bigInt()), "bcdoxXnbdxXeEfFgG%s"
	case 7:
		v, types = pyBool(g.chance(0.5)), "dxfcs"
	default:
		v, types = pyStr(g.text(8)), "ssssd"
	}
	spec := g.spec(types)
	if g.chance(0.05) {
		spec = ""
	}
	g.add(map[string]any{"op": "format", "v": v, "spec": spec}, func() (string, error) { return v.format(spec) })
}

// percentCase draws a % format of one to three directives and the
// arguments for it (sometimes too many, too few or of the wrong kind).
func (g *caseGen) percentCase() {
	var b strings.Builder
	var args []pyValue
	useKeys := g.chance(0.15)
	keys := []string{"a", "b(c)"}
	for range 1 + g.r.IntN(3) {
		b.WriteString(g.text(2))
		b.WriteByte('%')
		if useKeys {
			b.WriteString("(" + keys[g.r.IntN(len(keys))] + ")")
		}
		for range g.r.IntN(3) {
			b.WriteString(g.pick("-", "+", " ", "#", "0"))
		}
		if g.chance(0.1) && !useKeys {
			b.WriteByte('*')
			args = append(args, pyInt(int64(g.r.IntN(30)-10)))
		} else if g.chance(0.4) {
			b.WriteString(strconv.Itoa(g.r.IntN(25)))
		}
		if g.chance(0.4) {
			b.WriteByte('.')
			if g.chance(0.1) && !useKeys {
				b.WriteByte('*')
				args = append(args, pyInt(int64(g.r.IntN(20)-5)))
			} else {
				b.WriteString(strconv.Itoa(g.r.IntN(20)))
			}
		}
		typ := g.pick("s", "r", "a", "d", "i", "u", "o", "x", "X", "e", "E", "f", "F", "g", "G", "c", "%", "d", "f", "y", "\x1f", "\x7f", "")
		b.WriteString(typ)
		var arg pyValue
		switch typ {
		case "s", "r", "a":
			arg = g.value()
		case "c":
			arg = []pyValue{pyStr(g.text(1)), pyBig(g.bigInt()), pyStr("x")}[g.r.IntN(3)]
		default:
			arg = g.value()
			if g.chance(0.6) {
				arg = []pyValue{pyFloat(g.float()), pyBig(g.bigInt())}[g.r.IntN(2)]
			}
		}
		args = append(args, arg)
	}
	switch {
	case g.chance(0.05) && len(args) > 1:
		args = args[:len(args)-1]
	case g.chance(0.05):
		args = append(args, pyInt(1))
	}
	format := b.String()
	if strings.Contains(format, "*") {
		// Arguments shift when a directive takes none or two: keep every
		// int small enough to be a width, as CPython builds any width.
		for i, a := range args {
			if a.kind == "int" && a.i.CmpAbs(big.NewInt(1000)) > 0 {
				args[i] = pyInt(a.i.Int64() % 1000)
			}
		}
	}
	var v pyValue
	switch {
	case useKeys:
		v = pyDict(keys, []pyValue{args[0], args[len(args)-1]})
		if g.chance(0.1) {
			v = pyList(args...)
		}
	case len(args) == 1 && g.chance(0.5):
		v = args[0]
		if v.kind == "list" {
			v = pyTuple(v)
		}
	default:
		v = pyTuple(args...)
	}
	g.add(map[string]any{"op": "percent", "fmt": format, "v": v}, func() (string, error) { return percent(format, v) })
}

// strFormatCase draws a str.format template: literal text with braces,
// fields numbered or named, with paths, conversions and nested specs.
func (g *caseGen) strFormatCase() {
	// Small numbers only: a nested field may take one as a width or a
	// precision, and CPython builds a field of any size it is given.
	small := math.Round(math.Mod(g.float(), 1000)*1000) / 1000
	if math.IsNaN(small) {
		small = 0.25
	}
	args := []pyValue{pyInt(int64(g.r.IntN(20))), pyFloat(small), pyInt(int64(g.r.IntN(2000) - 1000)), pyStr(g.text(4)), pyList(pyInt(7), pyStr("x"))}
	kwargs := pyDict([]string{"w", "name", "d"}, []pyValue{pyInt(int64(g.r.IntN(15))), pyStr(g.text(3)), pyDict([]string{"k"}, []pyValue{pyFloat(1.5)})})
	var b strings.Builder
	numbering := g.pick("auto", "manual", "mixed")
	for range 1 + g.r.IntN(3) {
		b.WriteString(g.pick("", "ab", "{{", "}}", "x y", "é"))
		if g.chance(0.1) {
			b.WriteString(g.pick("{", "}", "{0", "{!", "{:", "{0!r", "{[", "{0[}"))
			continue
		}
		b.WriteByte('{')
		name := g.fieldName(numbering)
		b.WriteString(name)
		if g.chance(0.2) {
			b.WriteString("!" + g.pick("r", "s", "a", "x", "", "rr", "\u00e9", "\x01", " ", "\x7f"))
		}
		if g.chance(0.6) {
			b.WriteByte(':')
			if g.chance(0.3) {
				b.WriteString(g.pick("{w}", "{}", "{0}", ">{w}", "{w}.{w}", "{:{}}", "{name}", "{w!r}", "{{}}"))
				if g.chance(0.5) {
					b.WriteString(g.pick("f", "s", "d", "e"))
				}
			} else {
				b.WriteString(g.spec("sfdexg"))
			}
		}
		b.WriteByte('}')
	}
	template := b.String()
	if strings.ContainsAny(template, "\x00") {
		template = strings.ReplaceAll(template, "\x00", "")
	}
	g.add(map[string]any{"op": "strformat", "fmt": template, "args": args, "kwargs": kwargs}, func() (string, error) {
		return strFormat(template, args, kwargs)
	})
}

// fieldName draws a field's name and path.
func (g *caseGen) fieldName(numbering string) string {
	var name string
	switch {
	case numbering == "auto" || (numbering == "mixed" && g.chance(0.5)):
		name = ""
	case g.chance(0.7):
		name = strconv.Itoa(g.r.IntN(5))
	default:
		name = g.pick("w", "name", "d", "missing", "99999999999999999999")
	}
	for g.chance(0.25) {
		name += g.pick("[0]", "[1]", "[k]", "[]", ".real", ".", "[5]", "x", "[0", "[9999999999999999999999]")
	}
	return name
}

// parseCase draws texts for float() and int(): numbers in Python's
// syntaxes, mangled now and then.
func (g *caseGen) parseCase() {
	pieces := []string{"1", "0", "7", "_", ".", "e", "E", "+", "-", " ", "\t", "x", "0x", "0o", "0b", "inf", "nan", "Infinity", "i", "f", "a", "F", "\u0663", "\u3000", "\u00a0", "\x1c", "9", "5", "00", "1e400", "1e-400"}
	var b strings.Builder
	for range 1 + g.r.IntN(6) {
		b.WriteString(pieces[g.r.IntN(len(pieces))])
	}
	s := b.String()
	if g.chance(0.2) {
		s = strconv.FormatFloat(g.float(), 'g', -1, 64)
	}
	g.add(map[string]any{"op": "float", "s": s}, func() (string, error) {
		f, err := ParseFloat(s)
		return ReprFloat(f), err
	})
	base := []int{0, 10, 16, 2, 8, 36, 7, 1, 37}[g.r.IntN(9)]
	g.add(map[string]any{"op": "int", "s": s, "base": base}, func() (string, error) {
		x, err := ParseInt(s, base)
		if err != nil {
			return "", err
		}
		return FormatInt(x, "x")
	})
}

// arithCase draws float // % divmod / **, int / and **, round(), and
// the int-float conversions.
func (g *caseGen) arithCase() {
	a, b := g.float(), g.float()
	if g.chance(0.1) {
		b = 0
	}
	fn := g.pick("div", "floordiv", "mod", "divmod", "pow", "pow")
	if fn == "pow" {
		a, b = g.powOperands()
	}
	g.add(map[string]any{"op": "arith", "fn": fn, "a": pyFloat(a), "b": pyFloat(b)}, func() (string, error) {
		return floatArith(fn, a, b)
	})
	x, y := g.bigInt(), g.bigInt()
	if g.chance(0.3) {
		x.Lsh(x, uint(g.r.IntN(1100)))
	}
	g.add(map[string]any{"op": "arith", "fn": "div", "a": pyBig(x), "b": pyBig(y)}, func() (string, error) {
		f, err := TrueDiv(x, y)
		return ReprFloat(f), err
	})
	intFn := g.pick("floordiv", "mod", "divmod")
	g.add(map[string]any{"op": "arith", "fn": intFn, "a": pyBig(x), "b": pyBig(y)}, func() (string, error) {
		return intArith(intFn, x, y)
	})
	px, py := big.NewInt(int64(g.r.IntN(21)-10)), big.NewInt(int64(g.r.IntN(41)-20))
	g.add(map[string]any{"op": "arith", "fn": "pow", "a": pyBig(px), "b": pyBig(py)}, func() (string, error) {
		i, f, err := IntPow(px, py)
		if i != nil {
			return IntString(i)
		}
		return ReprFloat(f), err
	})
	r := g.float()
	n := []int{0, 1, 2, 3, -1, -2, 5, 10, 15, 17, 20, -10, 300, 323, 324, -308, -309}[g.r.IntN(17)]
	g.add(map[string]any{"op": "round", "v": pyFloat(r), "n": n}, func() (string, error) {
		f, err := Round(r, n)
		return ReprFloat(f), err
	})
	g.add(map[string]any{"op": "round", "v": pyFloat(r), "n": nil}, func() (string, error) {
		i, err := RoundInt(r)
		if err != nil {
			return "", err
		}
		return IntString(i)
	})
	g.add(map[string]any{"op": "toint", "v": pyFloat(r)}, func() (string, error) {
		i, err := FloatToInt(r)
		if err != nil {
			return "", err
		}
		return IntString(i)
	})
	g.add(map[string]any{"op": "tofloat", "v": pyBig(x)}, func() (string, error) {
		f, err := IntToFloat(x)
		return ReprFloat(f), err
	})
}

// powOperands draws bases and exponents for float **: integer and
// half-integer exponents, negative bases, and the special values.
func (g *caseGen) powOperands() (float64, float64) {
	x := g.float()
	switch g.r.IntN(4) {
	case 0:
		x = math.Abs(g.r.Float64() * 10)
	case 1:
		x = []float64{2, 3, 10, 1.1, 0.5, -2, -1, 1, 7, 1.0000001}[g.r.IntN(10)]
	}
	var y float64
	switch g.r.IntN(5) {
	case 0:
		y = float64(g.r.IntN(141) - 70)
	case 1:
		y = float64(g.r.IntN(41)-20) / 2
	case 2:
		y = g.float()
	default:
		y = g.r.Float64()*60 - 30
	}
	return x, y
}

func floatArith(fn string, a, b float64) (string, error) {
	var f float64
	var err error
	switch fn {
	case "div":
		f, err = Div(a, b)
	case "floordiv":
		f, err = FloorDiv(a, b)
	case "mod":
		f, err = Mod(a, b)
	case "pow":
		f, err = FloatPow(a, b)
	default:
		q, m, err := Divmod(a, b)
		return "(" + ReprFloat(q) + ", " + ReprFloat(m) + ")", err
	}
	return ReprFloat(f), err
}

func intArith(fn string, a, b *big.Int) (string, error) {
	var x *big.Int
	var err error
	switch fn {
	case "floordiv":
		x, err = IntFloorDiv(a, b)
	case "mod":
		x, err = IntMod(a, b)
	default:
		q, m, err := IntDivmod(a, b)
		if err != nil {
			return "", err
		}
		return "(" + q.String() + ", " + m.String() + ")", nil
	}
	if err != nil {
		return "", err
	}
	return x.String(), nil
}
