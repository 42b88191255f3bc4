package engine

import (
	_ "embed"
	"maps"
	"slices"
	"strings"
)

// The general rule: an op PyTorch declares and the op table lacks still
// runs, its figures estimated (tiers.go). Its facts come from PyTorch's
// own declarations, written into opfacts.tsv by scripts/gen_opfacts.py
// from native_functions.yaml (the signature, the variants, the in-place
// form, whether the kernel is a TensorIterator) and derivatives.yaml
// (what the backward reads, so saves, and which inputs get a gradient).
// Each op falls in a family whose shape rule is PyTorch's:
//
//   - unary: a TensorIterator op of one tensor (acosh, erfinv, lgamma):
//     an output of the input's shape and dtype, laid out as the input.
//   - binary: a TensorIterator op of two tensors (atan2, hypot,
//     copysign): their broadcast shape, their promoted dtype.
//   - scan: (self, dim) -> Tensor (logcumsumexp): the input's
//     shape (and the dtype asked for).
//   - random: (self, *, generator) -> Tensor (bernoulli): the input's
//     shape and dtype.
//   - fill: an in-place random fill (exponential_): nothing allocated.
//
// What no declaration says is estimated too: a backward makes each
// gradient alone (the recorded one-input ops make 1 to 5 temporaries of
// the input's size first), and the forward no temporaries. The error this
// costs is measured by forcing recorded ops through the general rule
// (Options.ForceGeneral; scripts/honesty.sh, docs/development.md).

//go:embed opfacts.tsv
var opFactsText string

// opFact is one line of opfacts.tsv.
type opFact struct {
	name, overload, family string
	function, method       bool
	inPlace, node          string
	saves, grads           []string
	signature              string // derivatives.yaml's
}

// generalFamilies says, for a step's estimate, how each family sizes its
// output.
var generalFamilies = map[string]string{
	"unary":  "an output of the input's shape and dtype",
	"binary": "an output of the broadcast shape and promoted dtype",
	"scan":   "an output of the input's shape",
	"random": "an output of the input's shape and dtype",
	"fill":   "written in place, nothing allocated",
}

// generalOps are the general rule's entries, by name: one for each op of
// opfacts.tsv (its first overload).
var generalOps = readOpFacts(opFactsText)

func readOpFacts(text string) map[string]*OpDef {
	out := map[string]*OpDef{}
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) != 9 || out[f[0]] != nil {
			continue
		}
		list := func(s string) []string {
			if s == "-" {
				return nil
			}
			return strings.Split(s, ",")
		}
		fact := &opFact{name: f[0], overload: f[1], family: f[2], inPlace: f[4], node: f[5], saves: list(f[6]), grads: list(f[7]), signature: f[8]}
		fact.function = slices.Contains(list(f[3]), "function")
		fact.method = slices.Contains(list(f[3]), "method")
		if d := fact.opDef(); d != nil {
			out[f[0]] = d
		}
	}
	return out
}

// GeneralOps are the general rule's entries for the names the op table
// lacks (torch.NAME, Tensor.NAME, Tensor.NAME_), sorted by name: each is
// an OpDef whose runs are estimates (under Options.Strict, refusals).
func GeneralOps() []*OpDef {
	var out []*OpDef
	for _, name := range slices.Sorted(maps.Keys(generalOps)) {
		g := *generalOps[name]
		if t := Ops[name]; t != nil {
			g.Function = g.Function && !t.Function
			g.Method = g.Method && !t.Method
		}
		if g.InPlace != "" && inPlaceDeclared(g.InPlace) {
			g.InPlace, g.inPlace = "", nil
		}
		if g.Function || g.Method || g.InPlace != "" {
			out = append(out, &g)
		}
	}
	return out
}

// inPlaceDeclared reports whether the table has the in-place method.
func inPlaceDeclared(name string) bool {
	for _, d := range Ops {
		if d.InPlace == name {
			return true
		}
	}
	return false
}

// params are the signature's parameters the engine can bind: a
// Generator is left out (the tool draws no numbers).
func (f *opFact) params() ([]Param, bool) {
	open, close := strings.Index(f.signature, "("), strings.LastIndex(f.signature, ")")
	var ps []Param
	kw := false
	for _, a := range strings.Split(f.signature[open+1:close], ", ") {
		if a == "*" {
			kw = true
			continue
		}
		decl, def, _ := strings.Cut(a, "=")
		typ, name, _ := strings.Cut(decl, " ")
		p := Param{Name: name, Default: def, KeywordOnly: kw}
		switch typ {
		case "Tensor", "Tensor(a!)":
			p.Kind = TensorParam
		case "Scalar", "float":
			p.Kind = NumberParam
		case "int":
			p.Kind = IntParam
			if name == "dim" {
				p.Kind = DimParam
			}
		case "ScalarType?":
			p.Kind = DTypeParam
		case "Generator?":
			continue
		default:
			return nil, false
		}
		ps = append(ps, p)
	}
	return ps, true
}

// generalHeld are the ops whose general rule a rule script recorded on
// the GPU and TestRecordedStatements holds, by the script: not estimated.
var generalHeld = map[string]string{
	"bernoulli": "testdata/pyrules/zoo_paths.py",
}

// opDef is the fact's entry: nil for a signature the engine cannot bind.
func (f *opFact) opDef() *OpDef {
	ps, ok := f.params()
	if !ok || generalFamilies[f.family] == "" {
		return nil
	}
	d := &OpDef{Name: f.name, Function: f.function, Method: f.method, Params: ps,
		Memory: "estimated by the general rule (" + f.family + " ops: " + generalFamilies[f.family] + "; PyTorch's declarations, not recorded on the GPU)"}
	if held := generalHeld[f.name]; held != "" {
		d.Memory = "the general rule (" + f.family + " ops: " + generalFamilies[f.family] + "; PyTorch's declarations), recorded on the GPU by " + held
	}
	if f.family == "fill" {
		d.Name, d.Function, d.Method, d.InPlace = strings.TrimSuffix(f.name, "_"), false, false, f.name
		d.inPlace = func(s *Session, a Args) error {
			if err := s.generalEstimate(f, "Tensor."+f.name, a); err != nil {
				return err
			}
			return s.writeUntracked(f.name, a.Tensor(0))
		}
		return d
	}
	d.run = func(s *Session, a Args) (*Tensor, error) {
		op := "torch." + f.name
		if !f.function {
			op = "Tensor." + f.name
		}
		if generalHeld[f.name] == "" {
			if err := s.generalEstimate(f, op, a); err != nil {
				return nil, err
			}
		}
		return s.runGeneral(f, a)
	}
	if f.inPlace != "" && f.family == "unary" && !slices.Contains(f.saves, "self") {
		d.InPlace = f.inPlace
		saves := saveNothing
		if slices.Contains(f.saves, "result") {
			saves = saveResult
		}
		rule := inPlaceUnary(f.node, saves, 1)
		d.inPlace = func(s *Session, a Args) error {
			if err := s.generalEstimate(f, "Tensor."+f.inPlace, a); err != nil {
				return err
			}
			return rule(s, a)
		}
	}
	return d
}

// generalEstimate records that op ran by the general rule, naming its
// arguments, its family and what the declarations say of its backward.
func (s *Session) generalEstimate(f *opFact, op string, a Args) error {
	saved := "nothing"
	if len(f.saves) > 0 {
		saved = strings.Join(f.saves, " and ")
	}
	return s.estimate(nil, op, "%s: no rule recorded on the GPU; the general rule of %s ops from PyTorch's declarations: %s, its backward (%s) saving %s and making the gradient alone",
		argShapes(a), f.family, generalFamilies[f.family], f.node, saved)
}

// runGeneral runs f's family rule on a (the estimate already made).
func (s *Session) runGeneral(f *opFact, a Args) (*Tensor, error) {
	x := a.Tensor(0)
	inputs := []*Tensor{x}
	shape, dt := x.Shape, x.DType
	switch f.family {
	case "binary":
		y := a.Tensor(1)
		if _, err := sameDevice(x, y); err != nil {
			return nil, err
		}
		var err error
		if shape, err = broadcast(x, y); err != nil {
			return nil, err
		}
		dt, inputs = promoted(x, y), append(inputs, y)
	case "scan":
		if len(a) > 2 {
			dt = a.DType(2, dt)
		}
	}
	out, err := s.alloc(shape, dt, x.Device())
	if err != nil {
		return nil, err
	}
	layOut(out, inputs...)
	var saved []*Tensor
	for _, n := range f.saves {
		t := inputs[len(inputs)-1]
		switch n {
		case "result":
			t = out
		case "self":
			t = x
		}
		// a Python number is saved as PyTorch saves a wrapped number:
		// a 0-dim host tensor, no device memory
		if !t.number {
			saved = append(saved, t)
		}
	}
	bw := likeInput(1)
	if f.family == "binary" {
		ps, _ := f.params()
		order := formulaOrder(ps[0].Name, ps[1].Name)
		bw = func(s *Session, n *node, g *Tensor) ([]*Tensor, error) { return newGrads(s, n, g, 0, order) }
	}
	if len(f.grads) == 0 {
		return out, nil
	}
	s.record(f.node, out, inputs, saved, bw)
	return out, nil
}

// forcedGeneral is the general rule's entry for d when Options.ForceGeneral
// names d (or is "all") and the general rule covers it: the recorded rule
// set aside, to measure the general rule against the recordings.
func (s *Session) forcedGeneral(d *OpDef) *OpDef {
	g := generalOps[d.Name]
	if g == nil || g.run == nil || len(s.opts.ForceGeneral) == 0 {
		return nil
	}
	if slices.Contains(s.opts.ForceGeneral, "all") || slices.Contains(s.opts.ForceGeneral, d.Name) {
		return g
	}
	return nil
}
