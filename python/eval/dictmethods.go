package eval

// dict's methods, and the len of its views.
func init() {
	d := DictType
	method(d, "get", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("get", args, kw, 1, 2); err != nil {
			return nil, err
		}
		v, ok, err := in.dictGet(self.(*Dict), args[0])
		if err != nil {
			return nil, err
		}
		if ok {
			return newRef(v), nil
		}
		if len(args) == 2 {
			return newRef(args[1]), nil
		}
		return None, nil
	})
	views := map[string]viewKind{"keys": viewKeys, "values": viewValues, "items": viewItems}
	for name, kind := range views {
		method(d, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 0, 0); err != nil {
				return nil, err
			}
			return in.newView(self.(*Dict), kind), nil
		})
	}
	for _, c := range []*Class{dictKeysType, dictValuesType, dictItemsType} {
		method(c, "__len__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			return int64(self.(*dictView).d.n), nil
		})
	}
	method(d, "pop", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("pop", args, kw, 1, 2); err != nil {
			return nil, err
		}
		s := self.(*Dict)
		v, ok, err := in.dictGet(s, args[0])
		if err != nil {
			return nil, err
		}
		if !ok {
			if len(args) == 2 {
				return newRef(args[1]), nil
			}
			return nil, in.raiseInst(in.NewException(KeyErrorType, args[0]))
		}
		Incref(v)
		if _, err := in.dictDel(s, args[0]); err != nil {
			in.Decref(v)
			return nil, err
		}
		return v, nil
	})
	method(d, "popitem", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		s := self.(*Dict)
		for i := len(s.entries) - 1; i >= 0; i-- {
			e := s.entries[i]
			if e.del {
				continue
			}
			t := in.NewTuple([]Value{newRef(e.key), newRef(e.val)})
			s.remove(in, e.k)
			return t, nil
		}
		return nil, in.Raise(KeyErrorType, "popitem(): dictionary is empty")
	})
	method(d, "setdefault", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("setdefault", args, kw, 1, 2); err != nil {
			return nil, err
		}
		s := self.(*Dict)
		v, ok, err := in.dictGet(s, args[0])
		if err != nil {
			return nil, err
		}
		if ok {
			return newRef(v), nil
		}
		var def Value = None
		if len(args) == 2 {
			def = args[1]
		}
		if err := in.dictSet(s, args[0], def); err != nil {
			return nil, err
		}
		return newRef(def), nil
	})
	method(d, "update", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		s := self.(*Dict)
		if len(args) == 1 {
			if err := in.dictUpdate(s, args[0]); err != nil {
				return nil, err
			}
		}
		for _, k := range kw {
			in.SetStr(s, k.Name, k.Value)
		}
		return None, nil
	})
	method(d, "clear", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		self.(*Dict).Clear(in)
		return None, nil
	})
	method(d, "copy", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		c := in.NewDict()
		return c, in.dictUpdate(c, self)
	})
	DictType.SetAttr("fromkeys", &wrapper{class: true, fn: NewBuiltin("fromkeys", "dict.fromkeys(iterable, value=None)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) < 2 || len(args) > 3 {
			return nil, in.typeError("fromkeys expected at least 1 argument, got %d", max(len(args)-1, 0))
		}
		var v Value = None
		if len(args) == 3 {
			v = args[2]
		}
		d := in.NewDict()
		if err := in.forEach(args[1], func(k Value) error { return in.dictSet(d, k, v) }); err != nil {
			in.Decref(d)
			return nil, err
		}
		return d, nil
	})})
}
