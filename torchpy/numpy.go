package torchpy

import (
	_ "embed"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// numpyModule is numpy as model code uses it around torch: its arrays
// live on the host, so they take no GPU memory, and the tool models only
// what the zoo's programs compute with it (numpy.log of a number,
// numpy.newaxis: Whisper's sinusoids); every other name of numpy is
// refused with a note saying so (missingAttr).
func numpyModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("numpy")
	fr := in.ModuleFrame("<numpy>", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<numpy>", numpySource)
}

//go:embed lib/numpy.py
var numpySource string
