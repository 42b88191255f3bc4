package eval

import (
	_ "embed"
	"sort"
	"strings"
)

// Small standard modules written in Python: abc (ABC and abstractmethod;
// the instantiation check is construct's), types.SimpleNamespace,
// operator, heapq, bisect and string's constants.
func (in *Interp) installPythonModules() {
	for name, src := range map[string]string{"abc": abcSource, "types": typesSource, "operator": operatorSource,
		"heapq": heapqSource, "bisect": bisectSource, "string": stringSource} {
		in.RegisterModule(name, func(in *Interp) (*ModuleObj, error) { return in.pythonModule(name, src) })
	}
}

//go:embed lib/abc.py
var abcSource string

//go:embed lib/types.py
var typesSource string

//go:embed lib/operator.py
var operatorSource string

//go:embed lib/heapq.py
var heapqSource string

//go:embed lib/bisect.py
var bisectSource string

//go:embed lib/string.py
var stringSource string

// checkAbstract is the TypeError for making an instance of a class
// whose __abstractmethods__ (abc.ABC's) are not all overridden.
func (in *Interp) checkAbstract(cls *Class) error {
	s, ok := cls.lookup("__abstractmethods__").(*Set)
	if !ok || s.d.n == 0 {
		return nil
	}
	var names []string
	for _, e := range s.d.entries {
		if n, isStr := e.key.(string); isStr && !e.del {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	plural := ""
	if len(names) > 1 {
		plural = "s"
	}
	return in.typeError("Can't instantiate abstract class %s with abstract method%s %s", cls.Name, plural, strings.Join(names, ", "))
}
