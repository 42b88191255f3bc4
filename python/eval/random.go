package eval

import "math/big"

// randomModule is random: numbers the tool does not compute, and the
// choices (choice, shuffle, sample) refused, as they decide which
// objects live. CPython's functions are the methods of a hidden
// Random instance, written in Python: their arguments are checked as
// those methods' are (random.seed's count includes self).
func randomModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("random")
	for _, f := range randomFuncs {
		in.fn(m, f.name, f.doc, func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			dest := make([]Value, len(f.params))
			if f.params == nil { // random(), a method in C
				if err := in.UnpackArgs("Random."+f.name, args, kw); err != nil {
					return nil, err
				}
			} else {
				params := make([]any, 0, 2*len(f.params)+1)
				for i, p := range f.params {
					if p == "*" {
						params = append(params, p)
						continue
					}
					params = append(params, p, &dest[i])
				}
				if err := in.unpackMethodDef("Random."+f.name, args, kw, params...); err != nil {
					return nil, err
				}
			}
			switch f.result {
			case randomNone:
				if f.name == "seed" && dest[0] != nil && !seedable(dest[0]) {
					return nil, in.typeError("The only supported seed types are: None,\nint, float, str, bytes, and bytearray.")
				}
				return None, nil
			case randomRefused:
				return nil, in.Refuse(NotImplementedErrType, "this tool does not compute random.%s, whose result decides which objects live", f.name)
			}
			return Unknown{What: "random." + f.name + "()"}, nil
		})
	}
	return m, nil
}

// seedable reports whether random.seed takes a: None, an int, a float,
// a str or bytes, as CPython 3.11's does.
func seedable(a Value) bool {
	switch plain(a).(type) {
	case NoneType, int64, bool, *big.Int, float64, string, Bytes:
		return true
	}
	return false
}

// What a function of random gives back.
const (
	randomUnknown = iota // a number the tool does not compute
	randomNone           // None: seed changes nothing the tool computes
	randomRefused        // a choice among objects, refused
)

// randomFuncs are random's functions with their parameters after self
// (nil for random(), which takes none), as Python 3.11 declares them.
var randomFuncs = []struct {
	name, doc string
	params    []string
	result    int
}{
	{"seed", "seed(a=None): values are not computed, so this changes nothing", []string{"a?", "version?"}, randomNone},
	{"random", "random(...): not computed", nil, randomUnknown},
	{"uniform", "uniform(...): not computed", []string{"a", "b"}, randomUnknown},
	{"randint", "randint(...): not computed", []string{"a", "b"}, randomUnknown},
	{"gauss", "gauss(...): not computed", []string{"mu?", "sigma?"}, randomUnknown},
	{"randrange", "randrange(...): not computed", []string{"start", "stop?", "step?"}, randomUnknown},
	{"normalvariate", "normalvariate(...): not computed", []string{"mu?", "sigma?"}, randomUnknown},
	{"choice", "choice(...): not modelled", []string{"seq"}, randomRefused},
	{"shuffle", "shuffle(...): not modelled", []string{"x"}, randomRefused},
	{"sample", "sample(...): not modelled", []string{"population", "k", "*", "counts?"}, randomRefused},
}
