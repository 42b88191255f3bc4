package eval

// timeModule is time: clocks the tool does not compute, and a sleep
// that returns at once.
func timeModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("time")
	for _, name := range []string{"time", "perf_counter", "monotonic", "process_time", "time_ns", "perf_counter_ns"} {
		in.fn(m, name, name+"(): not computed (the tool does not time PyTorch)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			return Unknown{What: "time." + name + "()"}, nil
		})
	}
	in.fn(m, "sleep", "sleep(s): returns at once (no time passes in the model)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		return None, nil
	})
	return m, nil
}
