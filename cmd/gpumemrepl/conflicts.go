package main

import (
	"errors"
	"flag"
	"fmt"
)

// conflicts are the replay flags that do not go together: each rule's
// flag decides what the replay prints, so the others would be dropped.
var conflicts = []struct {
	flag   string
	others []string
	why    string
}{
	{"check", []string{"json", "summary", "time", "export", "plot", "compare"}, "--check prints one ok or FAIL line a file"},
	{"check", []string{"no-empty-cache"}, "--no-empty-cache changes the ops, so --check has nothing recorded to compare with"},
	{"time", []string{"json", "summary", "export", "plot", "compare"}, "--time prints only the speed"},
	{"compare", []string{"summary", "export", "plot"}, "--compare prints a table of its own"},
	{"compare", []string{"alloc-conf"}, "--compare names the configs itself"},
	{"json", []string{"summary", "export", "plot"}, "--json prints only one row an op"},
	{"keys", []string{"stats-only"}, "--stats-only compares every key"},
	{"preset", []string{"total-bytes"}, "both size the simulated device"},
}

// modifiers are the flags that only change what another flag does.
var modifiers = []struct{ flag, of string }{{"keys", "check"}, {"stats-only", "check"}}

// outputFlags write one replay each.
var outputFlags = []string{"export", "plot"}

// refuseConflicts returns a usage error naming the first pair of replay
// flags given that do not go together, or a flag given without the one
// it modifies.
func refuseConflicts(fs *flag.FlagSet, comparing bool, files int) error {
	if files == 0 {
		return errors.New("no trace file given")
	}
	given := givenFlags(fs)
	given["compare"] = comparing
	for _, c := range conflicts {
		for _, o := range c.others {
			if given[c.flag] && given[o] {
				return fmt.Errorf("--%s and --%s do not go together: %s", c.flag, o, c.why)
			}
		}
	}
	for _, m := range modifiers {
		if given[m.flag] && !given[m.of] {
			return fmt.Errorf("--%s works with --%s: give --%s too", m.flag, m.of, m.of)
		}
	}
	for _, o := range outputFlags {
		if given[o] && files > 1 {
			return fmt.Errorf("--%s writes one trace's replay: give one file, not %d", o, files)
		}
	}
	toStdout := 0
	for _, o := range outputFlags {
		if given[o] && fs.Lookup(o).Value.String() == "-" {
			toStdout++
			if given["summary"] {
				return fmt.Errorf("--%s - writes standard output, where --summary prints its table", o)
			}
		}
	}
	if toStdout > 1 {
		return errors.New("--export - and --plot - would both write standard output: give one a file")
	}
	return nil
}

// refuseForFormat returns a usage error for a flag that means nothing
// for a file of this kind (a snapshot, or a trace of ops).
func refuseForFormat(fs *flag.FlagSet, isSnapshot bool) error {
	given := givenFlags(fs)
	for _, f := range []string{"keys", "stats-only"} {
		if given[f] && isSnapshot {
			return usageError{fmt.Errorf("--%s narrows the check of a trace's recorded stats; a snapshot records none (its check compares segments)", f)}
		}
	}
	if given["recorded-limit-bytes"] && !isSnapshot {
		return usageError{errors.New("--recorded-limit-bytes is for a snapshot, which records no limit; a trace gives its own (limit_bytes)")}
	}
	return nil
}

// givenFlags are the flags set on the command line, less those set to
// false or to nothing.
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		given[f.Name] = v != "false" && v != ""
	})
	return given
}

// usageError is an error in how the tool was called, found only once a
// file was read: exit status 2, as for any other usage error.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// exitStatus is 2 for a usage error and 1 for any other.
func exitStatus(err error) int {
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}
