package eval

import _ "embed"

// jsonModule is json, run from its Python source.
func jsonModule(in *Interp) (*ModuleObj, error) { return in.pythonModule("json", jsonSource) }

// jsonSource is json, written in Python: dumps and dump with CPython's
// output byte for byte (separators, indent, sort_keys, ensure_ascii,
// allow_nan, default, skipkeys; float reprs, Infinity and NaN), and
// loads and load of JSON text (objects as dicts in order, numbers as int
// or float; str, bytes or bytearray; the hooks object_hook,
// object_pairs_hook, parse_float, parse_int and parse_constant;
// JSONDecoder's decode and raw_decode, cls=). A value of another type is CPython's TypeError ("Object of
// type Tensor is not JSON serializable") unless default= turns it into
// one.
//
//go:embed lib/json.py
var jsonSource string
