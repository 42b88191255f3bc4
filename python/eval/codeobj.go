package eval

// codeObj is a function's __code__: the names CPython's code object
// lists.
type codeObj struct {
	Header
	c    *code
	argc int64
}

var codeType = NewClass("code", "builtins")

func (c *codeObj) Type() *Class { return codeType }

func (c *codeObj) Traverse(visit func(Value)) {}

func (c *codeObj) Clear(in *Interp) {}

func strItems(in *Interp, names []string) *Tuple {
	items := make([]Value, len(names))
	for i, n := range names {
		items[i] = n
	}
	return in.NewTuple(items)
}

// A code object's attributes: co_name, co_freevars, co_cellvars,
// co_varnames, co_argcount.
func init() {
	codeProp := func(name string, get func(in *Interp, c *codeObj) Value) {
		codeType.SetAttr(name, NewProperty(NewBuiltin(name, "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			return get(in, self.(*codeObj)), nil
		}), nil))
	}
	codeProp("co_name", func(in *Interp, c *codeObj) Value { return c.c.name })
	codeProp("co_freevars", func(in *Interp, c *codeObj) Value { return strItems(in, c.c.scope.Free) })
	codeProp("co_cellvars", func(in *Interp, c *codeObj) Value { return strItems(in, c.c.scope.Cells) })
	codeProp("co_varnames", func(in *Interp, c *codeObj) Value {
		var names []string
		for _, n := range c.c.scope.Locals {
			if !c.c.cells[n] || int64(len(names)) < c.argc {
				names = append(names, n)
			}
		}
		return strItems(in, names)
	})
	codeProp("co_argcount", func(in *Interp, c *codeObj) Value { return c.argc })
}

// functionCode is f.__code__.
func (in *Interp) functionCode(f *Function) Value {
	argc := int64(len(f.params.Posonlyargs) + len(f.params.Args))
	c := &codeObj{c: f.code, argc: argc}
	in.track(c)
	return c
}
