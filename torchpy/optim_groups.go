package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// optDefault is one constructor option: its name and default, in the
// order PyTorch's __init__ takes them (the first ones also by position).
type optDefault struct {
	name string
	def  func(in *eval.Interp) eval.Value
}

func value(v eval.Value) func(*eval.Interp) eval.Value {
	return func(*eval.Interp) eval.Value { return v }
}

// optDefaults are each class's options (PyTorch 2.11's signatures) and
// how many of them come by position after params. Adam's betas default
// is one tuple, its function's default (adamBetas), as PyTorch's.
func (b *Binding) optDefaults(cls *eval.Class) ([]optDefault, int) {
	switch cls {
	case SGDType:
		return []optDefault{{"lr", value(1e-3)}, {"momentum", value(int64(0))}, {"dampening", value(int64(0))},
			{"weight_decay", value(int64(0))}, {"nesterov", value(false)}, {"maximize", value(false)},
			{"foreach", value(eval.None)}, {"differentiable", value(false)}, {"fused", value(eval.None)}}, 5
	case RMSpropType:
		return []optDefault{{"lr", value(1e-2)}, {"alpha", value(0.99)}, {"eps", value(1e-8)},
			{"weight_decay", value(int64(0))}, {"momentum", value(int64(0))}, {"centered", value(false)},
			{"capturable", value(false)}, {"foreach", value(eval.None)}, {"maximize", value(false)},
			{"differentiable", value(false)}}, 10
	}
	wd, decoupled := eval.Value(1e-2), true
	if cls == AdamType {
		wd, decoupled = int64(0), false
	}
	betas := func(*eval.Interp) eval.Value {
		eval.Incref(b.adamBetas)
		return b.adamBetas
	}
	return []optDefault{{"lr", value(1e-3)}, {"betas", betas}, {"eps", value(1e-8)}, {"weight_decay", value(wd)},
		{"amsgrad", value(false)}, {"maximize", value(false)}, {"foreach", value(eval.None)}, {"capturable", value(false)},
		{"differentiable", value(false)}, {"fused", value(eval.None)}, {"decoupled_weight_decay", value(decoupled)}}, 5
}

// newOptimizer is SGD(params, ...), Adam(params, ...) or AdamW(params,
// ...): params is an iterable of tensors or of dicts (param groups, each
// with its own options); the defaults fill each group's missing options.
// It makes the Python objects PyTorch's construction makes, in its order
// (optim_python.go): the type call's arguments, the optimizer, its
// defaults (a dict display), its hooks and state, its groups' list,
// list(params), and a group's dict and list where params are tensors.
func (b *Binding) newOptimizer(cls *eval.Class, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	in := b.in
	opts, positional := b.optDefaults(cls)
	names := []string{"params"}
	for _, o := range opts {
		names = append(names, o.name)
	}
	if len(args) > 1+positional {
		return nil, in.Raise(eval.TypeErrorType, "%s.__init__() takes from 2 to %d positional arguments but %d were given", cls.Name, 2+positional, len(args)+1)
	}
	a, err := in.ArgSpec(cls.Name, args, kw, 1, names...)
	if err != nil {
		return nil, err
	}
	if t, ok := a[0].(*Tensor); ok {
		return nil, in.Raise(eval.TypeErrorType, "params argument given to the optimizer should be an iterable of Tensors or dicts, but got %s", typename(t.T))
	}
	first := !b.dynamoImported
	o, err := b.constructOptimizer(cls, opts, a, in.HeapTypeCall(cls, args, kw))
	if err == nil && first {
		s := dynamoImport
		s.Count = dynamoImportEnd
		in.SettleImport(s, dynamoImportLeft)
	}
	return o, err
}

// constructOptimizer is the optimizer's construction, from its
// arguments a (params and opts by position); release frees the type
// call's arguments once it is done.
func (b *Binding) constructOptimizer(cls *eval.Class, opts []optDefault, a []eval.Value, release func()) (eval.Value, error) {
	in := b.in
	defer release()
	o := &Optimizer{cls: cls, b: b}
	eval.Track(in, o)
	values := make([]eval.Value, len(opts))
	for i, d := range opts {
		v := a[i+1]
		if v == nil {
			v = d.def(in)
		} else {
			eval.Incref(v)
		}
		if d.name == "betas" {
			betas, err := b.scalarBetas(v)
			in.Decref(v)
			if err != nil {
				for _, v := range values[:i] {
					in.Decref(v)
				}
				in.Decref(o)
				return nil, err
			}
			v = betas
		}
		values[i] = v
	}
	o.defaults = in.NewDict()
	for i, d := range opts {
		in.PutStr(o.defaults, d.name, values[i], "")
	}
	if err := b.checkDefaults(o.defaults); err != nil {
		in.Decref(o)
		return nil, err
	}
	kind := "Adam"
	if cls == SGDType || cls == RMSpropType {
		kind = cls.Name
	}
	o.o = b.S.NewOptimizer(kind)
	if err := b.optimizerHooks(o); err != nil {
		in.Decref(o)
		return nil, err
	}
	o.groups = in.NewList(nil)
	if err := b.addParamGroups(o, a[0]); err != nil {
		in.Decref(o)
		return nil, err
	}
	return o, nil
}

// addParamGroups is __init__'s param_groups = list(params) and its
// add_param_group of each (the first of a process imports
// torch._dynamo: dynamoImport).
func (b *Binding) addParamGroups(o *Optimizer, params eval.Value) error {
	in := b.in
	lv, err := in.Call(eval.ListType, []eval.Value{params}, nil)
	if err != nil {
		return err
	}
	groups := lv.(*eval.List)
	defer func() { in.Decref(groups) }()
	if len(groups.Items()) == 0 {
		return in.Raise(eval.ValueErrorType, "optimizer got an empty parameter list")
	}
	if _, isDict := groups.Items()[0].(*eval.Dict); !isDict {
		d := in.NewDict()
		in.PutStr(d, "params", groups, "")
		groups = in.NewList([]eval.Value{d})
	}
	for _, g := range groups.Items() {
		if err := b.disableDynamo(2, b.importDynamo, func() error { return b.addParamGroup(o, g) }); err != nil {
			return err
		}
	}
	return nil
}

// importDynamo is the first add_param_group's import of torch._dynamo.
func (b *Binding) importDynamo() {
	if !b.dynamoImported {
		b.dynamoImported = true
		b.in.ImportCollected(dynamoImport, dynamoImportRan, dynamoImportMade)
	}
}

// checkDefaults is __init__'s checks of the options that matter here.
func (b *Binding) checkDefaults(d *eval.Dict) error {
	in := b.in
	if truthy(in, d, "fused") && truthy(in, d, "foreach") {
		return in.Raise(eval.RuntimeErrorType, "`fused` and `foreach` cannot be `True` together.")
	}
	if truthy(in, d, "nesterov") {
		m, _ := d.GetStr("momentum")
		damp, _ := d.GetStr("dampening")
		mf, _ := number(m)
		df, _ := number(damp)
		if mf <= 0 || df != 0 {
			return in.Raise(eval.ValueErrorType, "Nesterov momentum requires a momentum and zero dampening")
		}
	}
	return nil
}

// truthy reports whether d[name] is there and true.
func truthy(in *eval.Interp, d *eval.Dict, name string) bool {
	v, ok := d.GetStr(name)
	if !ok || v == eval.None {
		return false
	}
	t, err := in.Truth(v)
	if err != nil {
		in.Drop(err)
	}
	return t
}

// addParamGroup is add_param_group(group): group, a dict, is kept as
// the optimizer's (PyTorch's keeps the dict it is given), its params
// made a list of the tensors (list(params), then the list of those not
// named), the defaults filling what it lacks. The sets its checks make
// are made and freed in their order.
func (b *Binding) addParamGroup(o *Optimizer, v eval.Value) error {
	in := b.in
	g, ok := v.(*eval.Dict)
	if !ok {
		return in.Raise(eval.TypeErrorType, "param_group must be a dict, but got %s", in.TypeName(v))
	}
	pv, ok := g.GetStr("params")
	if !ok {
		return in.Raise(eval.KeyErrorType, "'params'")
	}
	var listed eval.Value
	switch {
	case eval.TypeOf(pv) == eval.SetType:
		return in.Raise(eval.TypeErrorType, "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will change between runs. Please use a list instead.")
	case isTensor(pv):
		eval.Incref(pv)
		listed = in.NewList([]eval.Value{pv})
	default:
		l, err := in.Call(eval.ListType, []eval.Value{pv}, nil)
		if err != nil {
			return err
		}
		listed = l
	}
	in.PutStr(g, "params", listed, "")
	var ps, names []eval.Value
	tensors, named := in.NewList(nil), in.NewList(nil)
	defer in.Decref(named)
	for _, t := range listed.(*eval.List).Items() {
		if tup, ok := t.(*eval.Tuple); ok {
			// named_parameters(): (name, tensor), the names kept as param_names
			items := tup.Items()
			if len(items) > 0 {
				names = append(names, items[0])
				named.Append(items[0])
			}
			if len(items) > 1 {
				t = items[1]
			}
		}
		ps = append(ps, t)
		tensors.Append(t)
	}
	in.PutStr(g, "params", tensors, "")
	if len(names) > 0 {
		if len(names) != len(ps) {
			return in.Raise(eval.ValueErrorType, "all optimizer params should be with/without names. Some param names are missing")
		}
		eval.Incref(named)
		in.PutStr(g, "param_names", named, "")
	}
	for _, t := range ps {
		if !isTensor(t) {
			return in.Raise(eval.TypeErrorType, "optimizer can only optimize Tensors, but one of the params is %s", in.TypeName(t))
		}
	}
	var err error
	f := &pyFrame{in: in}
	defer f.done()
	f.objects(1) // self.defaults.items()'s iterator, with the pair it reuses
	f.tuple(2)
	o.defaults.Items(func(k, v eval.Value) bool {
		if name, _ := k.(string); err == nil && !hasKey(g, name) {
			err = in.SetItem(g, k, v)
		}
		return true
	})
	f.free(2)
	if err != nil {
		return err
	}
	f.objects(1) // len(set(params))
	f.free(1)
	f.objects(1) // param_set
	for _, other := range o.groupDicts() {
		f.objects(1) // set(group["params"])
		f.free(1)
		for _, q := range groupParams(other) {
			for _, p := range ps {
				if err == nil && p == eval.Value(q) {
					err = in.Raise(eval.ValueErrorType, "some parameters appear in more than one parameter group")
				}
			}
		}
	}
	f.objects(1) // set(param_group["params"])
	if err != nil {
		return err
	}
	o.groups.Append(g)
	return nil
}

// isTensor reports whether v is a tensor.
func isTensor(v eval.Value) bool {
	_, ok := v.(*Tensor)
	return ok
}

// groupDicts are the optimizer's param groups.
func (o *Optimizer) groupDicts() []*eval.Dict {
	var out []*eval.Dict
	for _, v := range o.groups.Items() {
		if d, ok := v.(*eval.Dict); ok {
			out = append(out, d)
		}
	}
	return out
}

// groupParams are a group's tensors.
func groupParams(g *eval.Dict) []*Tensor {
	pv, _ := g.GetStr("params")
	l, _ := pv.(*eval.List)
	var out []*Tensor
	if l != nil {
		for _, v := range l.Items() {
			if t, ok := v.(*Tensor); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// engineGroups reads each group's parameters and options as a step does.
func (o *Optimizer) engineGroups() ([]engine.ParamGroup, error) {
	b, in := o.b, o.b.in
	var out []engine.ParamGroup
	for _, g := range o.groupDicts() {
		for _, name := range []string{"capturable", "differentiable"} {
			if truthy(in, g, name) {
				return nil, b.notModelled(o.cls.Name + "(" + name + "=True)")
			}
		}
		pg := engine.ParamGroup{Params: engineTensors(groupParams(g))}
		m, _ := g.GetStr("momentum")
		wd, _ := g.GetStr("weight_decay")
		pg.Momentum, _ = number(m)
		pg.WeightDecay, _ = number(wd)
		pg.Nesterov = truthy(in, g, "nesterov")
		pg.AMSGrad = truthy(in, g, "amsgrad")
		pg.Decoupled = truthy(in, g, "decoupled_weight_decay")
		pg.Maximize = truthy(in, g, "maximize")
		pg.Centered = truthy(in, g, "centered")
		fe, _ := g.GetStr("foreach")
		switch {
		case truthy(in, g, "fused"):
			pg.Impl = engine.Fused
		case fe == eval.None && !onCUDA(pg.Params), fe != eval.None && !truthy(in, g, "foreach"):
			pg.Impl = engine.ForLoop
		}
		out = append(out, pg)
	}
	return out, nil
}

// onCUDA reports whether every parameter with a gradient is on a GPU
// (where foreach is the default).
func onCUDA(ps []*engine.Tensor) bool {
	for _, p := range ps {
		if p.HasGrad() && !p.Device().CUDA {
			return false
		}
	}
	return true
}

// optState is optimizer.state: each parameter that has state, keyed by
// key(param), to a dict of its tensors (new references).
func (b *Binding) optState(o *Optimizer, key func(p *Tensor) eval.Value) (eval.Value, error) {
	in := b.in
	byEngine := map[*engine.Tensor]*Tensor{}
	for _, g := range o.groupDicts() {
		for _, p := range groupParams(g) {
			byEngine[p.T] = p
		}
	}
	out := in.NewDict()
	ps, sts := o.o.State()
	for i, p := range ps {
		py, ok := byEngine[p]
		if !ok {
			continue
		}
		d := in.NewDict()
		for j, name := range sts[i].Names {
			in.PutStr(d, name, b.wrap(b.S.Detach(sts[i].Tensors[j])), "")
		}
		k := key(py)
		err := in.SetItem(out, k, d)
		in.Decref(k)
		in.Decref(d)
		if err != nil {
			in.Decref(out)
			return nil, err
		}
	}
	return out, nil
}

// optStateDict is optimizer.state_dict(): the state keyed by each
// parameter's index across the groups, and the groups with their params
// as those indices.
func (b *Binding) optStateDict(o *Optimizer) (eval.Value, error) {
	in := b.in
	index := map[*Tensor]int64{}
	groups := in.NewList(nil)
	for _, g := range o.groupDicts() {
		c := in.NewDict()
		var idx []eval.Value
		g.Items(func(k, v eval.Value) bool {
			if k == "params" {
				for _, p := range groupParams(g) {
					if _, ok := index[p]; !ok {
						index[p] = int64(len(index))
					}
					idx = append(idx, index[p])
				}
				in.PutStr(c, "params", in.NewList(idx), "")
			} else if err := in.SetItem(c, k, v); err != nil {
				in.Drop(err)
			}
			return true
		})
		groups.Append(c)
		in.Decref(c)
	}
	state, err := b.optState(o, func(p *Tensor) eval.Value { return index[p] })
	if err != nil {
		in.Decref(groups)
		return nil, err
	}
	sd := in.NewDict()
	in.PutStr(sd, "state", state, "")
	in.PutStr(sd, "param_groups", groups, "")
	return sd, nil
}

// optLoadStateDict is optimizer.load_state_dict(sd) where neither the
// optimizer nor sd holds state (SGD without momentum, or an optimizer
// not stepped yet): each group takes the saved group's options, keeping
// its parameters, as PyTorch's load_state_dict does, and nothing is
// allocated (testdata/experiments/tutorial_amp_recipe). A state with
// tensors (each cast to its parameter's device and dtype, the
// optimizer's own released) and a tensor among a group's options (deep
// copied) are not modelled.
func (b *Binding) optLoadStateDict(o *Optimizer, sd eval.Value) error {
	in := b.in
	state, err := in.GetItem(sd, "state")
	if err != nil {
		return err
	}
	n, err := in.Len(state)
	in.Decref(state)
	if err != nil {
		return err
	}
	if ps, _ := o.o.State(); n > 0 || len(ps) > 0 {
		return b.notModelled("optimizer.load_state_dict of a state that holds tensors (each is cast to its parameter's device and dtype)")
	}
	gv, err := in.GetItem(sd, "param_groups")
	if err != nil {
		return err
	}
	defer in.Decref(gv)
	saved, ok := gv.(*eval.List)
	groups := o.groupDicts()
	if !ok || len(saved.Items()) != len(groups) {
		return in.Raise(eval.ValueErrorType, "loaded state dict has a different number of parameter groups")
	}
	for i, g := range groups {
		sg, ok := saved.Items()[i].(*eval.Dict)
		if !ok {
			return in.Raise(eval.TypeErrorType, "a saved parameter group must be a dict, not %s", eval.TypeOf(saved.Items()[i]).Name)
		}
		pv, _ := sg.GetStr("params")
		if m, err := in.Len(pv); err != nil || int(m) != len(groupParams(g)) {
			in.Drop(err)
			return in.Raise(eval.ValueErrorType, "loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
		}
		tensor := false
		sg.Items(func(_, v eval.Value) bool {
			_, tensor = v.(*Tensor)
			return !tensor
		})
		if tensor {
			return b.notModelled("optimizer.load_state_dict of a group option that is a tensor (it is deep copied)")
		}
	}
	for i, g := range groups {
		var opts [][2]eval.Value
		saved.Items()[i].(*eval.Dict).Items(func(k, v eval.Value) bool {
			if k != "params" {
				opts = append(opts, [2]eval.Value{k, v})
			}
			return true
		})
		for _, kv := range opts {
			if err := in.SetItem(g, kv[0], kv[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// numParams is how many parameters the groups hold.
func (o *Optimizer) numParams() int {
	n := 0
	for _, g := range o.groupDicts() {
		n += len(groupParams(g))
	}
	return n
}

// legacyNames are the legacy tensor type names by dtype.
var legacyNames = map[string]string{"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
	"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}

// typename is torch.typename(t): torch.cuda.FloatTensor and the like.
func typename(t *engine.Tensor) string {
	dev := ""
	if t.Device().CUDA {
		dev = "cuda."
	}
	return "torch." + dev + legacyNames[t.DType.Name] + "Tensor"
}
