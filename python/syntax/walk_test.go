package syntax

import "testing"

// A tree parsed at line 1 whose spans are moved to line 42 is the tree parsed at
// line 42: every node, helpers (keywords, arguments, aliases, handlers)
// and f-strings' parts included, moves; columns stay.
func TestSpansMovedIsParsingLater(t *testing.T) {
	for _, src := range []string{
		"x = torch.zeros(4, 256, device='cuda')[1:2, ...].sum(dim=-1)\n",
		"del x, y[0]\n",
		"import a.b as c; from d import e as f\n",
		"y = f'{a!r:>{w}} and {b}' + b'x' * -n if p else not q\n",
		"try:\n    a = {1: [2, (3,)], **k}\nexcept (E, F) as e:\n    raise G from e\nfinally:\n    pass\n",
		"with open(p) as f, g:\n    async_ = lambda *a, k=1, **kw: [i for i in a if i]\n",
		"def h(a, /, b: int = 2, *c, d, **e) -> None:\n    global z\n    return (yield a)\n",
		"@dec\nclass C(B, metaclass=M):\n    x: int = 1\n",
	} {
		for _, col := range []int32{1, 5} {
			at1, err := ParseFile("f", []byte(src), &Options{At: Pos{Line: 1, Col: col}})
			if err != nil {
				t.Fatalf("%q: %v", src, err)
			}
			at42, err := ParseFile("f", []byte(src), &Options{At: Pos{Line: 42, Col: col}})
			if err != nil {
				t.Fatalf("%q: %v", src, err)
			}
			for _, sp := range Spans(at1) {
				sp.Start.Line += 41
				sp.End.Line += 41
			}
			if got, want := dump(at1), dump(at42); got != want {
				t.Errorf("%q at column %d moved:\n%s\nparsed at line 42:\n%s", src, col, got, want)
			}
		}
	}
}
