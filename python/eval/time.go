package eval

import "math"

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
// seconds, not negative, or one the tool did not compute; it returns
// at once.
func timeSleep(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var secs Value
	if err := in.UnpackArgs("time.sleep", args, kw, "secs", &secs, "/"); err != nil {
		return nil, err
	}
	if _, ok := secs.(Unknown); ok {
		return None, nil // a duration the tool did not compute
	}
	s, ok := plain(secs, "__float__").(float64)
	if !ok {
		n, err := in.Index(secs) // CPython reads any other number as an integer
		if err != nil {
			return nil, err
		}
		s = float64(n)
	}
	switch {
	case math.IsNaN(s):
		return nil, in.Raise(ValueErrorType, "Invalid value NaN (not a number)")
	case s < 0:
		return nil, in.Raise(ValueErrorType, "sleep length must be non-negative")
	}
	return None, nil
}
