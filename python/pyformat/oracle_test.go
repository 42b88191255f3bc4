package pyformat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// oracleCase is one comparison with CPython: what python3 is asked, and
// how pyformat answers the same.
type oracleCase struct {
	ask map[string]any
	got func() (string, error)
}

// answer is an oracle reply, or pyformat's in the same form.
type answer struct {
	Out     *string `json:"out,omitempty"`
	Err     string  `json:"err,omitempty"`
	Rounded *string `json:"rounded,omitempty"` // the correctly rounded power, where C's pow is not
}

func (a answer) String() string {
	if a.Out != nil {
		return "out " + ReprStr(*a.Out)
	}
	return "err " + a.Err
}

func answerOf(out string, err error) answer {
	switch {
	case errors.Is(err, ErrComplex):
		return answer{Err: "complex"}
	case err != nil:
		return answer{Err: err.Error()}
	}
	return answer{Out: &out}
}

// TestCPython compares thousands of generated cases, byte for byte,
// with the python3 on the PATH.
func TestCPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is not on the PATH: this test compares pyformat with CPython and needs it")
	}
	g := &caseGen{r: rand.New(rand.NewPCG(*oracleSeed, 12)), scale: *oracleScale}
	cases := g.all()
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, c := range cases {
		if err := enc.Encode(c.ask); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(python, "testdata/oracle.py")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 testdata/oracle.py: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	mismatches, libm := 0, 0
	for i, c := range cases {
		if !sc.Scan() {
			t.Fatalf("the oracle answered %d cases of %d", i, len(cases))
		}
		var want answer
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatalf("oracle answer %d: %v", i, err)
		}
		got := answerOf(c.got())
		if want.Rounded != nil && got.Out != nil && *got.Out == *want.Rounded {
			// glibc's pow is within a little more than half an ulp, not
			// correctly rounded; FloatPow is.
			libm++
			ask, _ := json.Marshal(c.ask)
			t.Logf("%s: C's pow gives %s; pyformat the correctly rounded %s", ask, *want.Out, *got.Out)
			continue
		}
		if got.String() != want.String() {
			mismatches++
			if mismatches <= 40 {
				ask, _ := json.Marshal(c.ask)
				t.Errorf("%s\n  python: %s\n  go:     %s", ask, want, got)
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d of %d cases differ from CPython", mismatches, len(cases))
	}
	if libm > len(cases)/1000 {
		t.Errorf("%d powers differ from C's pow: more than its rare misroundings explain", libm)
	}
	t.Logf("%d cases compared with %s", len(cases), python)
}

// caseGen makes the cases from one seeded source, so every run asks the
// same questions.
type caseGen struct {
	r     *rand.Rand
	scale int // how many times the usual number of cases
	cases []oracleCase
}

var (
	oracleSeed  = flag.Uint64("oracle.seed", 2026, "TestCPython: the seed of its cases")
	oracleScale = flag.Int("oracle.scale", 1, "TestCPython: how many times the usual number of cases to make")
)

func (g *caseGen) add(ask map[string]any, got func() (string, error)) {
	g.cases = append(g.cases, oracleCase{ask, got})
}

func (g *caseGen) all() []oracleCase {
	for range 2500 * g.scale {
		g.formatCase()
	}
	for range 1500 * g.scale {
		g.percentCase()
	}
	for range 800 * g.scale {
		g.strFormatCase()
	}
	for range 600 * g.scale {
		g.parseCase()
	}
	for range 1500 * g.scale {
		g.arithCase()
	}
	for range 200 * g.scale {
		p := []byte(g.text(4))
		for range g.r.IntN(3) {
			p = append(p, byte(g.r.IntN(256)))
		}
		ints := make([]int, len(p)) // JSON would carry []byte as base64
		for i, c := range p {
			ints[i] = int(c)
		}
		g.add(map[string]any{"op": "reprbytes", "b": ints}, func() (string, error) { return ReprBytes(p), nil })
	}
	for range 400 * g.scale {
		v := g.value()
		g.add(map[string]any{"op": "repr", "v": v}, v.Repr)
		g.add(map[string]any{"op": "ascii", "v": v}, func() (string, error) {
			r, err := v.Repr()
			return ASCII(r), err
		})
	}
	return g.cases
}

func (g *caseGen) pick(choices ...string) string { return choices[g.r.IntN(len(choices))] }

func (g *caseGen) chance(p float64) bool { return g.r.Float64() < p }

// float draws floats of every magnitude: subnormal to huge, round
// decimals, halfway cases, zeros, infinities and NaN.
func (g *caseGen) float() float64 {
	var f float64
	switch g.r.IntN(10) {
	case 0:
		f = []float64{0, math.Inf(1), math.NaN(), 1, 0.1, 0.5, 1e16, 1e-4, 1e-5, 9.5, 2.5, 0.125, 1e22, 123456789.0, math.MaxFloat64, math.SmallestNonzeroFloat64, 9.999999999999999e15, 0.00015, 1e300}[g.r.IntN(19)]
	case 1:
		f = math.Float64frombits(g.r.Uint64() & (1<<52 - 1)) // subnormal
	case 2:
		f = math.Float64frombits(g.r.Uint64() &^ (1 << 63))
	case 3:
		f = float64(g.r.IntN(2000000)) / []float64{1, 2, 4, 8, 10, 100, 1000, 1024}[g.r.IntN(8)]
	case 4:
		f = math.Pow(10, float64(g.r.IntN(40)-20)) * float64(g.r.IntN(100))
	case 5:
		f = float64(g.r.IntN(1000)) + 0.5
	default:
		f = math.Ldexp(g.r.Float64(), g.r.IntN(200)-100)
	}
	if !math.IsNaN(f) && g.chance(0.3) {
		f = -f
	}
	return f
}

// bigInt draws ints small and large, around powers of ten and two.
func (g *caseGen) bigInt() *big.Int {
	var x *big.Int
	switch g.r.IntN(6) {
	case 0:
		x = big.NewInt(int64(g.r.IntN(20)))
	case 1:
		x = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(g.r.IntN(40))), nil)
		x.Add(x, big.NewInt(int64(g.r.IntN(3)-1)))
	case 2:
		x = new(big.Int)
		for range 1 + g.r.IntN(5) {
			x.Lsh(x, 64).Or(x, new(big.Int).SetUint64(g.r.Uint64()))
		}
		x.Rsh(x, uint(g.r.IntN(64)))
	case 3:
		x = big.NewInt(int64(g.r.IntN(0x11000)))
	default:
		x = big.NewInt(g.r.Int64N(1 << 40))
	}
	if g.chance(0.3) {
		x.Neg(x)
	}
	return x
}

// text draws strings of characters whose Unicode properties are the
// same in CPython 3.11 (Unicode 14) and Go (Unicode 15).
func (g *caseGen) text(n int) string {
	const alphabet = "abcXYZ019 _.,:!'\"\\\t\n\r\x00\x07\x7f\u0085\u00a0\u00e9\u00ff\u0100\u0394\u0301\u200b\u2028\u3000\u4e2d\ue000\U0001F600\U0001F3FB\u0378\ufeff\u0663{}[]%()"
	runes := []rune(alphabet)
	var b strings.Builder
	for range g.r.IntN(n + 1) {
		b.WriteRune(runes[g.r.IntN(len(runes))])
	}
	return b.String()
}

func (g *caseGen) value() pyValue {
	switch g.r.IntN(8) {
	case 0, 1:
		return pyFloat(g.float())
	case 2, 3:
		return pyBig(g.bigInt())
	case 4, 5:
		return pyStr(g.text(6))
	case 6:
		return pyBool(g.chance(0.5))
	}
	return pyList(pyInt(1), pyStr(g.text(2)))
}
