package eval

import (
	"math"
	"math/big"
)

// timeModule is time: clocks the tool does not compute, and a sleep
// that returns at once.
func timeModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("time")
	for _, name := range []string{"time", "perf_counter", "monotonic", "process_time", "time_ns", "perf_counter_ns"} {
		in.fn(m, name, name+"(): not computed (the tool does not time PyTorch)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.UnpackArgs("time."+name, args, kw); err != nil {
				return nil, err
			}
			return Unknown{What: "time." + name + "()"}, nil
		})
	}
	in.fn(m, "sleep", "sleep(s): returns at once (no time passes in the model)", timeSleep)
	return m, nil
}

// timeSleep is sleep(secs), checked as CPython checks it: a number of
// seconds, not NaN, that fits CPython's clock of int64 nanoseconds, not
// negative, or one the tool did not compute; it returns at once.
func timeSleep(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var secs Value
	if err := in.UnpackArgs("time.sleep", args, kw, "secs", &secs, "/"); err != nil {
		return nil, err
	}
	if _, ok := secs.(Unknown); ok {
		return None, nil // a duration the tool did not compute
	}
	const most = math.MaxInt64 / 1_000_000_000 // whole seconds an int64 of nanoseconds holds
	s, ok := plain(secs, "__float__").(float64)
	switch {
	case ok && math.IsNaN(s):
		return nil, in.Raise(ValueErrorType, "Invalid value NaN (not a number)")
	case ok:
		// pytime_from_double: the nanoseconds in an int64 (its rounding
		// cannot cross the bounds, whole numbers)
		if ns := s * 1e9; !(ns >= math.MinInt64 && ns < -math.MinInt64) {
			return nil, in.Raise(OverflowErrorType, "timestamp out of range for platform time_t")
		}
	default:
		if _, huge := plain(secs).(*big.Int); huge {
			return nil, in.Raise(OverflowErrorType, "timestamp too large to convert to C _PyTime_t")
		}
		n, err := in.Index(secs) // CPython reads any other number as an integer
		if err != nil {
			return nil, err
		}
		if n > most || n < -most {
			return nil, in.Raise(OverflowErrorType, "timestamp too large to convert to C _PyTime_t")
		}
		s = float64(n)
	}
	if s < 0 {
		return nil, in.Raise(ValueErrorType, "sleep length must be non-negative")
	}
	return None, nil
}
