package eval

import _ "embed"

// ioModule is io: StringIO (Python, ioSource) and TextIOWrapper, the
// class of sys.stdout.
func ioModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("io")
	m.Set(in, "TextIOWrapper", stdoutType)
	return in.execModule(m, ioSource)
}

// ioSource is io, in Python: StringIO, text in memory (write at the
// position, read, readline, seek, getvalue, lines by iteration), the
// stream print(file=...) and logging write to. Files are not modelled.
//
//go:embed lib/io.py
var ioSource string
