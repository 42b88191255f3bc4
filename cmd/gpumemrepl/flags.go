package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// parseInterleaved parses flags that may come before, between or after
// the positional arguments, and returns the positional ones. A flag is
// -name or --name, with its value after '=' or as the next argument (a
// boolean flag takes a value only after '='); "--" ends the flags. Every
// error is one line that names the flag.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(pos, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a) // "-" alone is a file name (standard input)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("unknown flag %s", a)
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 == len(args) {
				return nil, fmt.Errorf("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, fmt.Errorf("--%s %s: %v", name, strconv.Quote(value), wantOf(f.Value, err))
		}
		if err := checkRange(name, f.Value); err != nil {
			return nil, fmt.Errorf("--%s %s: %v", name, value, err)
		}
	}
	return pos, nil
}

// wantOf says what a flag of v's kind takes, in place of the flag
// package's "parse error".
func wantOf(v flag.Value, err error) error {
	if g, ok := v.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			return fmt.Errorf("want true or false")
		case int:
			return fmt.Errorf("want a whole number")
		}
	}
	return err
}

// flagRanges bounds numeric flags by name, so that a flag takes the same
// values in every subcommand. Byte counts are bounded by optUint itself.
var flagRanges = map[string]struct {
	min, max int64
	why      string
}{
	"devices":     {1, 120, " (PyTorch's C10_COMPILE_TIME_MAX_GPUS)"},
	"total-bytes": {1, math.MaxInt64, ""},
}

func checkRange(name string, v flag.Value) error {
	r, ok := flagRanges[name]
	if !ok {
		return nil
	}
	var n int64
	switch x := v.(flag.Getter).Get().(type) {
	case int:
		n = int64(x)
	case uint64:
		n = int64(x) // at most math.MaxInt64: optUint bounds it
	}
	if n < r.min || n > r.max {
		return fmt.Errorf("want %d to %d%s", r.min, r.max, r.why)
	}
	return nil
}

// optString is a string flag that knows whether it was given.
type optString struct{ v *string }

func (o *optString) String() string {
	if o.v == nil {
		return ""
	}
	return *o.v
}

func (o *optString) Set(s string) error { o.v = &s; return nil }

// optUint is a byte-count flag that knows whether it was given. A count
// is at most 2^63-1, as PyTorch keeps byte counts in int64 statistics.
type optUint struct{ v *uint64 }

func (o *optUint) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatUint(*o.v, 10)
}

func (o *optUint) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > math.MaxInt64 {
		return fmt.Errorf("want a byte count (a whole number from 0 to %d)", int64(math.MaxInt64))
	}
	o.v = &n
	return nil
}

// Get returns the count, 0 when the flag was not given.
func (o *optUint) Get() any {
	if o.v == nil {
		return uint64(0)
	}
	return *o.v
}

// optSize is a byte-count flag that takes a unit: 64G, 512M, 2GiB (in
// powers of 1024), or plain bytes.
type optSize struct{ optUint }

func (o *optSize) Set(s string) error {
	num, mult := s, uint64(1)
	for i, u := range []string{"K", "M", "G", "T"} {
		for _, suf := range []string{u + "iB", u} {
			if n, ok := strings.CutSuffix(s, suf); ok && n != "" {
				num, mult = n, 1<<(10*(i+1))
			}
		}
		if mult > 1 {
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return fmt.Errorf("want a size: bytes, or a whole number of K, M, G or T (powers of 1024: 64G) up to 2^63-1 bytes")
	}
	n *= mult
	o.v = &n
	return nil
}

// splitCompare takes --compare out of args: `--compare CONF...` takes the
// words up to the next flag or trace file name, and `--compare=CONF` one.
// A word that names an existing file is refused: it is ambiguous between
// a config and a trace whose name does not say it is one.
func splitCompare(args []string) (rest, confs []string, err error) {
	comparing := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if c, ok := cutFlag(a, "compare"); ok {
			comparing = true
			confs = append(confs, c)
			continue
		}
		if a != "--compare" && a != "-compare" {
			rest = append(rest, a)
			continue
		}
		comparing = true
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !isTraceFile(args[i+1]) {
			i++
			if fi, err := os.Stat(args[i]); err == nil && args[i] != "default" && !fi.IsDir() {
				return nil, nil, fmt.Errorf("--compare %s: a file, not a config (a config is default or KEY:VALUE,...); give the trace files before --compare", strconv.Quote(args[i]))
			}
			confs = append(confs, args[i])
		}
	}
	if comparing && len(confs) == 0 {
		return nil, nil, fmt.Errorf("--compare takes one or more configs (default for PyTorch's)")
	}
	return rest, confs, nil
}

// cutFlag returns the value of a as -name=VALUE or --name=VALUE.
func cutFlag(a, name string) (string, bool) {
	for _, p := range []string{"--" + name + "=", "-" + name + "="} {
		if v, ok := strings.CutPrefix(a, p); ok {
			return v, true
		}
	}
	return "", false
}

func isTraceFile(s string) bool {
	for _, suf := range []string{".json", ".json.gz", ".pickle", ".pkl", ".pickle.gz"} {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}
