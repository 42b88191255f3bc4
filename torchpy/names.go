package torchpy

import (
	_ "embed"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// pytorchNamesText is the public names of PyTorch 2.11's main
// namespaces, recorded on the GPU machine by scripts/record_names.py.
//
//go:embed pytorch_names.txt
var pytorchNamesText string

// pytorchNames is pytorchNamesText read: by namespace ("torch",
// "torch.Tensor", "torch.nn.Module"...), its names.
var pytorchNames = readNames(pytorchNamesText)

// readNames reads lines of a namespace, a tab and its names separated by
// spaces; # starts a comment line.
func readNames(text string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for line := range strings.Lines(text) {
		ns, names, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok || strings.HasPrefix(ns, "#") {
			continue
		}
		set := map[string]bool{}
		for _, n := range strings.Fields(names) {
			set[n] = true
		}
		out[ns] = set
	}
	return out
}

// missingAttr is the note of an AttributeError for obj.name that PyTorch
// 2.11 has and the tool does not model (eval.Hooks.MissingAttr): the
// program is right, the tool cannot follow it there. hasattr stays False,
// as the attribute is missing still. Every name numpy's module lacks is
// such a name (numpy.go).
func missingAttr(obj eval.Value, name string) string {
	ns := namespaceOf(obj)
	if ns == "numpy" {
		return "gpumemrepl's numpy has only log (of a number) and newaxis, what Whisper's sinusoids use: numpy's arrays live on the host, and the tool does not model them"
	}
	if !pytorchNames[ns][name] {
		return ""
	}
	return "PyTorch 2.11 has " + ns + "." + name + "; gpumemrepl does not model it yet, so it cannot say what memory it uses"
}

// namespaceOf is the PyTorch namespace whose names obj's attributes are:
// a torch module's own, a tensor's or the Tensor class's, an nn.Module's
// or its class's; "" for others.
func namespaceOf(obj eval.Value) string {
	switch o := obj.(type) {
	case *eval.ModuleObj:
		return o.Name
	case *eval.Class:
		return classNamespace(o)
	}
	return classNamespace(eval.TypeOf(obj))
}

// classNamespace is the namespace of the attributes of c's instances.
func classNamespace(c *eval.Class) string {
	switch {
	case c.IsSubclass(TensorType):
		return "torch.Tensor"
	case c.IsSubclass(ModuleType):
		return "torch.nn.Module"
	}
	return ""
}
