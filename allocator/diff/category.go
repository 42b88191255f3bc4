package diff

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// The categories an allocation's stack puts it in.
const (
	Parameters     = "parameters"                  // made while a module moves or builds its parameters
	OptimizerState = "optimizer state"             // made by an optimizer's _init_group (exp_avg, momentum...)
	OptimizerStep  = "optimizer step temporaries"  // made elsewhere in torch.optim
	Gradients      = "backward (Python stack)"     // made under Tensor.backward on the calling thread (the initial gradient)
	Backward       = "backward (no Python stack)"  // autograd's device thread: gradients and their temporaries
	Activations    = "activations and temporaries" // made under a module's forward
	Other          = "other"                       // anything else: inputs, the program's own tensors
)

// noStack is the frame of an allocation recorded without one.
const noStack = "(no Python stack)"

// Category is what an allocation's frames (innermost first) say it
// was, by the first rule that matches a frame: torch.optim's
// _init_group, then torch.optim, then backward, then moving or building
// a module's parameters, then a forward. In a history recorded with
// stacks only a thread with no Python on it (autograd's, in backward)
// allocates with none.
func Category(frames []snapshot.Frame) string {
	if len(frames) == 0 {
		return Backward
	}
	rules := []struct {
		name  string
		match func(snapshot.Frame) bool
	}{
		{OptimizerState, func(f snapshot.Frame) bool { return torchFile(f, "optim/") && f.Name == "_init_group" }},
		{OptimizerStep, func(f snapshot.Frame) bool { return torchFile(f, "optim/") }},
		{Gradients, func(f snapshot.Frame) bool {
			return torchFile(f, "autograd/") || torchFile(f, "_tensor.py") && f.Name == "backward"
		}},
		{Parameters, func(f snapshot.Frame) bool {
			return torchFile(f, "nn/") && (f.Name == "_apply" || f.Name == "reset_parameters" || f.Name == "__init__")
		}},
		{Activations, func(f snapshot.Frame) bool { return f.Name == "forward" }},
	}
	for _, r := range rules {
		for _, f := range frames {
			if r.match(f) {
				return r.name
			}
		}
	}
	return Other
}

// torchFile reports whether f is in torch's file or folder rel (as
// "optim/" or "_tensor.py"), under the innermost folder named torch.
func torchFile(f snapshot.Frame, rel string) bool {
	i := strings.LastIndex(f.Filename, "/torch/")
	return i >= 0 && strings.HasPrefix(f.Filename[i+len("/torch/"):], rel)
}
