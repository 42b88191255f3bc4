package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// MemoryFormatType is torch.memory_format; its objects are
// torch.preserve_format, torch.contiguous_format and torch.channels_last.
var MemoryFormatType = eval.NewClass("memory_format", "torch")

// memoryFormatObj is one torch.memory_format, never freed.
type memoryFormatObj struct {
	eval.Header
	F    engine.MemoryFormat
	name string
}

// Type is torch.memory_format.
func (m *memoryFormatObj) Type() *eval.Class { return MemoryFormatType }

// Traverse visits nothing.
func (m *memoryFormatObj) Traverse(func(eval.Value)) {}

// Clear drops nothing.
func (m *memoryFormatObj) Clear(*eval.Interp) {}

// memoryFormats are the torch.memory_format objects, in torch's names.
var memoryFormats = map[string]*memoryFormatObj{}

func init() {
	for name, f := range map[string]engine.MemoryFormat{"preserve_format": engine.PreserveFormat, "contiguous_format": engine.ContiguousFormat, "channels_last": engine.ChannelsLast} {
		o := &memoryFormatObj{F: f, name: name}
		eval.Immortal(o)
		memoryFormats[name] = o
	}
	MemoryFormatType.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return "torch." + s.(*memoryFormatObj).name, nil
	}))
}

// declareMemoryFormats sets torch.memory_format and its objects in m.
func (b *Binding) declareMemoryFormats(m *eval.ModuleObj) {
	m.Set(b.in, "memory_format", MemoryFormatType)
	for name, o := range memoryFormats {
		m.Set(b.in, name, o)
	}
}
