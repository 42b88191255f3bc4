package syntax

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// literal is one string token taken apart.
type literal struct {
	tok                     token
	bytes, raw, fstr, uKind bool
	body                    string // between the quotes, as written
	bodyOff                 int    // offset of body in the scanner's source
}

// splitLiteral takes a string token apart into prefix, quotes and body.
func splitLiteral(t token) literal {
	l := literal{tok: t}
	i := 0
	for t.text[i] != '"' && t.text[i] != '\'' {
		switch t.text[i] | 0x20 {
		case 'b':
			l.bytes = true
		case 'r':
			l.raw = true
		case 'f':
			l.fstr = true
		case 'u':
			l.uKind = true
		}
		i++
	}
	q := 1
	if len(t.text)-i >= 6 && t.text[i+1] == t.text[i] && t.text[i+2] == t.text[i] {
		q = 3
	}
	l.body = t.text[i+q : len(t.text)-q]
	l.bodyOff = t.off + i + q
	return l
}

// strings parses adjacent string literals, which concatenate: a Constant
// (str or Bytes), or a JoinedStr when one is an f-string.
func (p *parser) strings() Expr {
	var lits []literal
	for p.cur().kind == tString {
		lits = append(lits, splitLiteral(p.next()))
	}
	node := Node{lits[0].tok.start, p.lastEnd()}
	p.cur() // CPython reads the next token before it decodes: its errors stand there
	anyF := false
	for _, l := range lits {
		if l.bytes != lits[0].bytes {
			p.failFurthest("cannot mix bytes and nonbytes literals")
		}
		anyF = anyF || l.fstr
	}
	if lits[0].bytes {
		var b []byte
		for _, l := range lits {
			b = p.decodeBytes(l, b)
		}
		if b == nil {
			b = Bytes{}
		}
		return &Constant{Node: node, Value: Bytes(b)}
	}
	kind := ""
	if lits[0].uKind {
		kind = "u"
	}
	if !anyF {
		var sb strings.Builder
		for _, l := range lits {
			sb.WriteString(p.decodeStr(l, l.body))
		}
		return &Constant{Node: node, Value: sb.String(), Kind: kind}
	}
	j := &joined{node: node, tail: node, kind: kind}
	for _, l := range lits {
		if l.fstr {
			p.fstringLit(l, j)
		} else {
			j.lit.WriteString(p.decodeStr(l, l.body))
		}
	}
	return j.finish()
}

// joined builds a JoinedStr: literal text between replacement fields is
// merged into one Constant. As in CPython 3.11 every part gets the span
// of the whole concatenation, node, except that a format spec and the
// text that ends it get tail, the span of the literal holding them.
type joined struct {
	node, tail Node
	kind       string
	values     []Expr
	lit        strings.Builder
}

func (j *joined) flush(n Node) {
	if j.lit.Len() > 0 {
		j.values = append(j.values, &Constant{Node: n, Value: j.lit.String(), Kind: j.kind})
		j.lit.Reset()
	}
}

func (j *joined) add(e Expr) {
	j.flush(j.node)
	j.values = append(j.values, e)
}

func (j *joined) finish() *JoinedStr {
	j.flush(j.tail)
	return &JoinedStr{j.tail, j.values}
}

// decodeStr decodes text, part of l's body, as a str literal.
func (p *parser) decodeStr(l literal, text string) string {
	if l.raw {
		return text
	}
	out, err := unescape(text, false)
	if err != nil {
		p.failFurthest("(unicode error) 'unicodeescape' codec can't decode bytes in position %d-%d: %s", err.start, err.end, err.msg)
	}
	return string(out)
}

// decodeBytes appends the value of bytes literal l to b.
func (p *parser) decodeBytes(l literal, b []byte) []byte {
	for i := 0; i < len(l.body); i++ {
		if l.body[i] >= 0x80 {
			p.fail(l.tok.start, "bytes can only contain ASCII literal characters")
		}
	}
	if l.raw {
		return append(b, l.body...)
	}
	out, err := unescape(l.body, true)
	if err != nil {
		p.failFurthest("(value error) invalid \\x escape at position %d", err.start)
	}
	return append(b, out...)
}

// escapeError is a bad escape sequence at body[start:end+1].
type escapeError struct {
	start, end int
	msg        string
}

// unescape decodes the backslash escapes of a literal's body as CPython
// does: a str's (bytesMode false) with \u, \U and \N, which a bytes
// literal keeps as written. An unknown escape is kept, backslash and all.
// A str's surrogate code points are encoded as UTF-8 would encode them
// were they allowed, so that a Go string holds every Python str.
func unescape(body string, bytesMode bool) ([]byte, *escapeError) {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' || i+1 == len(body) {
			out = append(out, c)
			i++
			continue
		}
		e := body[i+1]
		if v, ok := simpleEscapes[e]; ok {
			if e != '\n' {
				out = append(out, v)
			}
			i += 2
			continue
		}
		switch {
		case '0' <= e && e <= '7':
			v, n := 0, 0
			for n < 3 && i+1+n < len(body) && isOctDigit(body[i+1+n]) {
				v = v*8 + int(body[i+1+n]-'0')
				n++
			}
			out = appendCode(out, v, bytesMode)
			i += 1 + n
		case e == 'x' || !bytesMode && (e == 'u' || e == 'U'):
			want := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			v, n := 0, 0
			for n < want && i+2+n < len(body) && isHexDigit(body[i+2+n]) {
				d, _ := strconv.ParseUint(body[i+2+n:i+3+n], 16, 8)
				v = v*16 + int(d)
				n++
			}
			if n < want {
				return nil, &escapeError{i, i + 1 + n, "truncated \\" + string(e) + strings.Repeat("X", want) + " escape"}
			}
			if v > utf8.MaxRune {
				return nil, &escapeError{i, i + 1 + n, "illegal Unicode character"}
			}
			out = appendCode(out, v, bytesMode)
			i += 2 + n
		case e == 'N' && !bytesMode:
			r, n, err := namedEscape(body, i)
			if err != nil {
				return nil, err
			}
			out = utf8.AppendRune(out, r)
			i += n
		default:
			out = append(out, '\\')
			i++
		}
	}
	return out, nil
}

// simpleEscapes are the one-character escapes; a backslash before a
// newline joins the lines.
var simpleEscapes = map[byte]byte{
	'\n': 0, '\\': '\\', '\'': '\'', '"': '"', 'a': 7, 'b': 8, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11,
}

// appendCode appends code point v: a byte (its low eight bits, as CPython
// keeps of an octal escape above \377) in bytes mode, else UTF-8 (WTF-8
// for a surrogate).
func appendCode(out []byte, v int, bytesMode bool) []byte {
	if bytesMode {
		return append(out, byte(v))
	}
	if 0xD800 <= v && v <= 0xDFFF {
		return append(out, 0xED, byte(0xA0|(v>>6)&0x1F), byte(0x80|v&0x3F))
	}
	return utf8.AppendRune(out, rune(v))
}

// namedEscape decodes \N{name} at body[i:], returning the character and
// the length of the escape.
func namedEscape(body string, i int) (rune, int, *escapeError) {
	s := i + 2
	if s >= len(body) || body[s] != '{' {
		return 0, 0, &escapeError{i, s - 1, "malformed \\N character escape"}
	}
	s++
	close := strings.IndexByte(body[s:], '}')
	if close <= 0 {
		end := len(body)
		if close == 0 {
			end = s
		}
		return 0, 0, &escapeError{i, end - 1, "malformed \\N character escape"}
	}
	r, ok := lookupCharName(body[s : s+close])
	if !ok {
		return 0, 0, &escapeError{i, s + close, "unknown Unicode character name"}
	}
	return r, s + close + 1 - i, nil
}

// fstringLit parses the f-string literal l into j.
func (p *parser) fstringLit(l literal, j *joined) {
	f := &fstringSrc{p: p, l: l}
	f.parse(0, 0, j)
}

// fstringSrc is one f-string literal being parsed.
type fstringSrc struct {
	p *parser
	l literal
}

// parse parses literal text and replacement fields from body[i:] into j,
// to the end, or in a format spec (depth > 0) to its closing '}'. It
// returns where it stopped.
func (f *fstringSrc) parse(i, depth int, j *joined) int {
	body := f.l.body
	for i < len(body) {
		start := i
		i = f.literalEnd(i, depth)
		text := body[start:i]
		doubled := i < len(body) && depth == 0 && i+1 < len(body) && body[i+1] == body[i]
		if doubled {
			text = body[start : i+1]
		}
		j.lit.WriteString(f.p.decodeStr(f.l, text))
		if doubled {
			i += 2
			continue
		}
		if i == len(body) || body[i] == '}' {
			if depth == 0 && i < len(body) {
				f.p.failFurthest("f-string: single '}' is not allowed")
			}
			return i
		}
		i = f.field(i+1, depth, j)
	}
	return i
}

// literalEnd returns where the literal text at body[i:] ends: at a brace
// that is not part of a \N{...} escape.
func (f *fstringSrc) literalEnd(i, depth int) int {
	body := f.l.body
	for i < len(body) {
		c := body[i]
		if !f.l.raw && c == '\\' && i+1 < len(body) {
			i += 2
			switch body[i-1] {
			case 'N':
				if i < len(body) && body[i] == '{' {
					if k := strings.IndexByte(body[i:], '}'); k >= 0 {
						i += k + 1
					} else {
						i = len(body)
					}
				}
				continue
			case '{', '}':
				return i - 1
			}
			continue
		}
		if c == '{' || c == '}' {
			return i
		}
		i++
	}
	return i
}

// field parses a replacement field whose expression starts at body[i],
// just past its '{', and returns where the field ends.
func (f *fstringSrc) field(i, depth int, j *joined) int {
	p, body := f.p, f.l.body
	if depth >= 2 {
		p.failFurthest("f-string: expressions nested too deeply")
	}
	exprStart := i
	i = f.exprEnd(i)
	if strings.Trim(body[exprStart:i], " \t\n\f") == "" {
		p.failFurthest("f-string: empty expression not allowed")
	}
	fv := &FormattedValue{Node: j.node, Value: f.compile(exprStart, i), Conversion: -1}
	debug := ""
	if body[i] == '=' {
		i++
		for i < len(body) && strings.IndexByte(" \t\n\r\f\v", body[i]) >= 0 {
			i++
		}
		debug = body[exprStart:i]
		if i == len(body) {
			p.failFurthest("f-string: expecting '}'")
		}
	}
	if body[i] == '!' {
		if i+1 == len(body) {
			p.failFurthest("f-string: expecting '}'")
		}
		c := body[i+1]
		if c != 's' && c != 'r' && c != 'a' {
			p.failFurthest("f-string: invalid conversion character: expected 's', 'r', or 'a'")
		}
		fv.Conversion = int(c)
		i += 2
	}
	if i < len(body) && body[i] == ':' {
		i++
		if i == len(body) {
			p.failFurthest("f-string: expecting '}'")
		}
		spec := &joined{node: j.node, tail: Node{f.l.tok.start, f.l.tok.end}, kind: j.kind}
		i = f.parse(i, depth+1, spec)
		fv.FormatSpec = spec.finish()
	}
	if i >= len(body) || body[i] != '}' {
		p.failFurthest("f-string: expecting '}'")
	}
	if debug != "" {
		j.lit.WriteString(debug)
		if fv.FormatSpec == nil && fv.Conversion == -1 {
			fv.Conversion = 'r'
		}
	}
	j.add(fv)
	return i + 1
}

// exprEnd finds the end of the expression at body[i:]: the '}', '!', ':'
// or '=' outside brackets and strings that ends it (not one of != == <=
// >=). Backslashes and comments are refused, as in CPython 3.11.
func (f *fstringSrc) exprEnd(i int) int {
	p, body := f.p, f.l.body
	var quote byte
	triple := false
	var stack []byte
	for ; i < len(body); i++ {
		c := body[i]
		if c == '\\' {
			p.failFurthest("f-string expression part cannot include a backslash")
		}
		tripleHere := i+2 < len(body) && body[i+1] == c && body[i+2] == c
		switch {
		case quote != 0:
			if c == quote && (!triple || tripleHere) {
				if triple {
					i += 2
				}
				quote = 0
			}
		case c == '\'' || c == '"':
			quote, triple = c, tripleHere
			if triple {
				i += 2
			}
		case c == '(' || c == '[' || c == '{':
			if len(stack) >= maxLevel {
				p.failFurthest("f-string: too many nested parenthesis")
			}
			stack = append(stack, c)
		case c == '#':
			p.failFurthest("f-string expression part cannot include '#'")
		case len(stack) == 0 && strings.IndexByte("!:}=<>", c) >= 0:
			if i+1 < len(body) && body[i+1] == '=' && c != ':' && c != '}' {
				i++
				continue
			}
			if c != '<' && c != '>' {
				return i
			}
		case c == ')' || c == ']' || c == '}':
			if len(stack) == 0 {
				p.failFurthest("f-string: unmatched '%c'", c)
			}
			open := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if open != openerOf(c) {
				p.failFurthest("f-string: closing parenthesis '%c' does not match opening parenthesis '%c'", c, open)
			}
		}
	}
	switch {
	case quote != 0:
		p.failFurthest("f-string: unterminated string")
	case len(stack) > 0:
		p.failFurthest("f-string: unmatched '%c'", stack[len(stack)-1])
	}
	p.failFurthest("f-string: expecting '}'")
	return i
}

// compile parses the expression body[start:end] of a replacement field,
// as CPython does: as "(" + expression + ")", the brackets standing in
// place of the '{' and of the character that ends the expression, so
// that every node has its true position in the file.
func (f *fstringSrc) compile(start, end int) Expr {
	p, src := f.p, f.p.sc.src
	brace := f.l.bodyOff + start - 1
	lineStart := brace
	for lineStart > 0 && src[lineStart-1] != '\n' {
		lineStart--
	}
	buf := make([]byte, 0, f.l.bodyOff+end-lineStart+2)
	buf = append(buf, src[lineStart:f.l.bodyOff+end]...)
	buf[brace-lineStart] = '('
	buf = append(buf, ')', '\n')
	before := src[f.l.tok.off:brace]
	line := f.l.tok.start.Line + int32(strings.Count(string(before), "\n"))
	sub := &parser{file: p.file, groups: p.groups, fstring: true, inFunc: p.inFunc, sc: &scanner{
		file: p.file, src: buf, off: brace - lineStart, line: line,
		indents: []int{0}, altIndents: []int{0},
	}}
	var e Expr
	if err := sub.runExpr(func() {
		e = sub.starExpressions()
		if sub.cur().kind != tNewline {
			sub.invalidSyntax()
		}
	}); err != nil {
		err.Pos.Col -= f.errorBase(brace, lineStart)
		// CPython 3.11 can place such an error before its line starts
		// (2:-3 for f'''{0\n$!'''); this one stays on its line.
		err.Pos.Col = max(err.Pos.Col, 1)
		p.err = err
		panic(bailout{})
	}
	return e
}

// errorBase is the column CPython 3.11 subtracts from the column of an
// error in a replacement field: the '{' column, or where only white space
// follows the '{' on its line, the literal's column on its first line
// and 0 on a later one.
func (f *fstringSrc) errorBase(brace, lineStart int) int32 {
	src := f.p.sc.src
	k := brace + 1
	for src[k] == ' ' || src[k] == '\t' || src[k] == '\f' {
		k++
	}
	if src[k] != '\n' && src[k] != '}' {
		return int32(utf8.RuneCount(src[lineStart:brace]))
	}
	if lineStart <= f.l.tok.off {
		return f.l.tok.start.Col - 1
	}
	return 0
}

// runExpr runs parse and returns the error it stopped with, if any.
func (p *parser) runExpr(parse func()) (err *Error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			err = p.err
		}
	}()
	parse()
	return nil
}
