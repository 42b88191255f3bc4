package main

import "testing"

// TestDirBuiltin: dir() lists, sorted, the names bound where it is
// called (a function's locals and free variables, a module's
// namespace), and dir(obj) an instance's attributes with its class's, a
// module's, a tensor's methods, or what the class's own __dir__ returns,
// as CPython 3.12 prints them (its output of the same lines).
func TestDirBuiltin(t *testing.T) {
	_, printed, errOut := runPython(t, `import torch
import math
class A:
    x = 1
    def f(self):
        y = 2
        def g():
            return y
        print(dir())
a = A()
a.z = 3
print([n for n in dir(a) if not n.startswith('__')])
a.f()
class B:
    def __dir__(self):
        return ['b', 'a']
print(dir(B()), 'sqrt' in dir(math), 'append' in dir([]))
print('norm' in dir(torch.ones(1)), 'torch' in dir(), 'nope' in dir())
`)
	for line, want := range map[int]string{
		12: "['f', 'x', 'z']\n",
		13: "['g', 'self', 'y']\n",
		17: "['a', 'b'] True True\n",
		18: "True True False\n",
	} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q\n%s", line, printed[line], want, errOut)
		}
	}
}
