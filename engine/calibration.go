package engine

import (
	"fmt"
	"os"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// Calibration files (docs/calibration.md): a user's own recordings of
// the convolutions their program runs, made on their GPU by
// scripts/calibrate.py, in the conv table's compact form (or the
// probe's older ones). Named by Options.Calibration (run's and the
// REPL's --calibration), then by GPUMEMREPL_CALIBRATION and
// GPUMEMREPL_CONV_TABLE (its older name; each ':'-separated, read by
// every command that runs a script: fit and diff too), they are
// read when the session starts, so that a file that does not read stops
// it there, naming the file and line; their configurations then replace
// the built-in tables' recordings of the same ones, and are exact.

// CalibrationFileError is a calibration file that could not be read:
// bad input, where NewSession's other errors are bad usage.
type CalibrationFileError struct{ Err error }

func (e *CalibrationFileError) Error() string { return e.Err.Error() }

func (e *CalibrationFileError) Unwrap() error { return e.Err }

// calibrationEnv names calibration files, ':'-separated.
const calibrationEnv = "GPUMEMREPL_CALIBRATION"

// readCalibration reads the session's calibration files into one table.
func readCalibration(paths []string) (convTable, error) {
	t := convTable{}
	for _, env := range []string{calibrationEnv, convTableEnv} {
		for _, p := range strings.Split(os.Getenv(env), ":") {
			if p != "" {
				paths = append(paths, p)
			}
		}
	}
	for _, path := range paths {
		f, err := fileio.Open(path, fileio.MaxTable, "calibration file")
		if err != nil {
			return nil, &CalibrationFileError{fmt.Errorf("calibration file: %w", err)}
		}
		err = t.read(f, path, false)
		f.Close()
		if err != nil {
			return nil, &CalibrationFileError{fmt.Errorf("calibration file %s: %w", path, err)}
		}
	}
	for _, e := range t {
		e.calibrated = true
	}
	return t, nil
}
