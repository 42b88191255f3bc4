package engine

// The in-place random fills (normal_, uniform_, bernoulli_ with a
// probability, exponential_, random_, log_normal_, cauchy_, geometric_):
// PyTorch's CUDA generator writes the tensor where it is, allocating
// nothing (testdata/pyrules/nn_init.py); the values are then unknown.
// On a leaf that requires grad, outside no_grad, each is PyTorch's
// in-place error.

func init() {
	number := func(name, def string) Param { return Param{Name: name, Kind: NumberParam, Default: def} }
	for _, f := range []struct {
		name   string
		params []Param
	}{
		{"normal", []Param{number("mean", "0"), number("std", "1")}},
		{"uniform", []Param{number("from", "0"), number("to", "1")}},
		{"bernoulli", []Param{number("p", "0.5")}},
		{"exponential", []Param{number("lambd", "1")}},
		{"random", []Param{number("from", "0"), number("to", "None")}},
		{"log_normal", []Param{number("mean", "1"), number("std", "2")}},
		{"cauchy", []Param{number("median", "0"), number("sigma", "1")}},
		{"geometric", []Param{number("p", "")}},
	} {
		declare(&OpDef{Name: f.name, InPlace: f.name + "_", Params: append([]Param{input}, f.params...),
			Memory:  "writes random values in place: no memory",
			inPlace: func(s *Session, a Args) error { return s.writeUntracked(f.name+"_", a.Tensor(0)) }})
	}
}
