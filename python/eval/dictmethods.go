package eval

// dictMethodTable are dict's methods, by name.
var dictMethodTable = []struct {
	name string
	fn   GoFunc
}{
	{"clear", dictClear},
	{"copy", dictCopy},
	{"get", dictGetMethod},
	{"items", dictViewMethod("items", viewItems)},
	{"keys", dictViewMethod("keys", viewKeys)},
	{"pop", dictPop},
	{"popitem", dictPopItem},
	{"setdefault", dictSetDefault},
	{"update", dictUpdateMethod},
	{"values", dictViewMethod("values", viewValues)},
}

func init() {
	for _, m := range dictMethodTable {
		method(DictType, m.name, m.fn)
	}
	for _, c := range []*Class{dictKeysType, dictValuesType, dictItemsType} {
		method(c, "__len__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.slotArgs("__len__", args, kw, 0); err != nil {
				return nil, err
			}
			return int64(self.(*dictView).d.n), nil
		})
	}
	DictType.SetAttr("fromkeys", &wrapper{class: true, fn: NewBuiltin("fromkeys", "dict.fromkeys(iterable, value=None)", dictFromKeys)})
}

func dictGetMethod(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var key Value
	var def Value = None
	if err := in.UnpackArgs("dict.get", args, kw, "key", &key, "default?", &def, "/"); err != nil {
		return nil, err
	}
	v, ok, err := in.dictGet(self.(*Dict), key)
	if err != nil {
		return nil, err
	}
	if ok {
		return newRef(v), nil
	}
	return newRef(def), nil
}

// dictViewMethod is keys, values or items.
func dictViewMethod(name string, kind viewKind) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("dict."+name, args, kw); err != nil {
			return nil, err
		}
		return in.newView(self.(*Dict), kind), nil
	}
}

func dictPop(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var key, def Value
	if err := in.UnpackArgs("dict.pop", args, kw, "key", &key, "default?", &def, "/"); err != nil {
		return nil, err
	}
	s := self.(*Dict)
	v, ok, err := in.dictGet(s, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		if def != nil {
			return newRef(def), nil
		}
		return nil, in.raiseInst(in.NewException(KeyErrorType, key))
	}
	Incref(v)
	if _, err := in.dictDel(s, key); err != nil {
		in.Decref(v)
		return nil, err
	}
	return v, nil
}

func dictPopItem(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.UnpackArgs("dict.popitem", args, kw); err != nil {
		return nil, err
	}
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
}

func dictSetDefault(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var key Value
	var def Value = None
	if err := in.UnpackArgs("dict.setdefault", args, kw, "key", &key, "default?", &def, "/"); err != nil {
		return nil, err
	}
	s := self.(*Dict)
	v, ok, err := in.dictGet(s, key)
	if err != nil {
		return nil, err
	}
	if ok {
		return newRef(v), nil
	}
	if err := in.dictSet(s, key, def); err != nil {
		return nil, err
	}
	return newRef(def), nil
}

// dictUpdateMethod is d.update([other], **kw).
func dictUpdateMethod(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var other Value
	if err := in.UnpackArgs("dict.update", args, nil, "other?", &other, "/"); err != nil {
		return nil, err
	}
	s := self.(*Dict)
	if other != nil {
		if err := in.dictUpdate(s, other); err != nil {
			return nil, err
		}
	}
	for _, k := range kw {
		in.SetStr(s, k.Name, k.Value)
	}
	return None, nil
}

func dictClear(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.UnpackArgs("dict.clear", args, kw); err != nil {
		return nil, err
	}
	self.(*Dict).Clear(in)
	return None, nil
}

func dictCopy(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.UnpackArgs("dict.copy", args, kw); err != nil {
		return nil, err
	}
	c := in.NewDict()
	return c, in.dictUpdate(c, self)
}

// dictFromKeys is dict.fromkeys(iterable, value=None): args[0] is the
// class.
func dictFromKeys(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	var v Value = None
	if err := in.UnpackArgs("dict.fromkeys", args[min(1, len(args)):], kw, "iterable", &iterable, "value?", &v, "/"); err != nil {
		return nil, err
	}
	d := in.NewDict()
	if err := in.forEach(iterable, func(k Value) error { return in.dictSet(d, k, v) }); err != nil {
		in.Decref(d)
		return nil, err
	}
	return d, nil
}
