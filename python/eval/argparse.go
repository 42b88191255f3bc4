package eval

import _ "embed"

// argparseModule is argparse, run from its Python source.
func argparseModule(in *Interp) (*ModuleObj, error) {
	return in.pythonModule("argparse", argparseSource)
}

// argparseSource is argparse, written in Python: the common
// ArgumentParser surface a training script uses (optional and
// positional arguments; the store, store_true, store_false,
// store_const, append, append_const and count actions; type, default,
// choices, required, nargs None, '?', '*', '+' or N; dest; groups;
// set_defaults; parse_args and parse_known_args over sys.argv[1:]).
// A bad command line prints the usage and "PROG: error: ..." to stderr
// and exits with status 2, -h prints the help and exits 0, as
// argparse does, laid out as its default formatter lays it out at 78
// columns. Subcommands are not modelled.
//
//go:embed lib/argparse.py
var argparseSource string
