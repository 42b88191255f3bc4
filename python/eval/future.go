package eval

import "github.com/gpumemrepl/gpumemrepl/python/syntax"

// futureFeature is the class of __future__'s names (the compiler acts
// on the import; the names are only bound).
var futureFeature = NewClass("_Feature", "__future__")

// futureModule is __future__: one name per feature the parser knows.
func futureModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("__future__")
	for name := range syntax.FutureFeatures {
		o := &Instance{cls: futureFeature, Dict: in.NewDict()}
		in.track(o)
		m.Set(in, name, o)
		in.Decref(o)
	}
	return m, nil
}
