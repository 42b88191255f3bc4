package engine

import "fmt"

// The CNN ops beside convolution, as torch.nn.functional forms with
// PyTorch's signatures: batch_norm (batchnorm.go), group_norm,
// max_pool2d, avg_pool2d and adaptive_avg_pool2d (pool.go) and
// leaky_relu (testdata/pyrules/cnn_*.py).

func init() {
	optional := func(name string) Param { return Param{Name: name, Kind: TensorParam, Default: "None"} }
	ints := func(name, def string) Param { return Param{Name: name, Kind: DimsParam, Default: def} }
	flag := func(name, def string) Param { return Param{Name: name, Kind: BoolParam, Default: def} }
	number := func(name, def string) Param { return Param{Name: name, Kind: NumberParam, Default: def} }
	kernel := Param{Name: "kernel_size", Kind: DimsParam}
	// leaky_relu is a one-input op that saves its input; in place, its result
	leaky, leakyInPlace := unary("leaky_relu", "LeakyReluBackward0", saveInput, 1), inPlaceUnary("LeakyReluBackward1", saveResult, 1)
	declare(
		functional(&OpDef{Name: "batch_norm",
			Params: []Param{input, optional("running_mean"), optional("running_var"), optional("weight"), optional("bias"),
				flag("training", "False"), number("momentum", "0.1"), number("eps", "1e-05")},
			Usage:  "F.batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05)",
			Memory: "cuDNN's (float32 or float16, 3-d and up, weight and bias): training the output and a float32 mean and inverse std per channel (saved), eval the output alone; PyTorch's (bfloat16, affine=False, 2-d) the three in training and eval (a 2-d input's statistics through a buffer across blocks); the running stats updated in place; backward makes the gradients (cuDNN's after a dense copy of the incoming one, a 2-d input's after two float32 sums per channel)",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.batchNorm(a.Tensor(0), a.Tensor(1), a.Tensor(2), a.Tensor(3), a.Tensor(4), a.Bool(5))
			}}),
		functional(&OpDef{Name: "group_norm",
			Params: []Param{input, {Name: "num_groups", Kind: IntParam}, optional("weight"), optional("bias"), number("eps", "1e-05")},
			Memory: "the output, then mean and rstd of (N, groups) (saved with the input) and, with weights, two float32 (N, C) factors freed after; backward makes a dense copy of the incoming gradient, the gradients, float32 sums and factors, freed after",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.groupNorm(a.Tensor(0), a.Int(1), a.Tensor(2), a.Tensor(3))
			}}),
		functional(&OpDef{Name: "max_pool2d",
			Params: []Param{input, kernel, ints("stride", "None"), ints("padding", "0"), ints("dilation", "1"),
				flag("ceil_mode", "False"), flag("return_indices", "False")},
			Memory: "the output, then int64 indices of its shape (saved with the input; without grad freed at once); backward makes the input's gradient, then a dense copy of a broadcast gradient, freed after",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				w, err := windows("max_pool2d", a, 4)
				if err != nil {
					return nil, false, err
				}
				outs, err := s.maxPool2d(a.Tensor(0), w, a.Bool(5), a.Bool(6))
				return outs, a.Bool(6), err
			}}),
		functional(&OpDef{Name: "avg_pool2d",
			Params: []Param{input, kernel, ints("stride", "None"), ints("padding", "0"),
				flag("ceil_mode", "False"), flag("count_include_pad", "True"), {Name: "divisor_override", Kind: IntParam, Default: "None"}},
			Memory: "the output (the input saved); backward makes the input's gradient, then a dense copy of a broadcast gradient, freed after",
			run: func(s *Session, a Args) (*Tensor, error) {
				w, err := windows("avg_pool2d", a, -1)
				if err != nil {
					return nil, err
				}
				return s.avgPool2d(a.Tensor(0), w, a.Bool(4))
			}}),
		functional(&OpDef{Name: "adaptive_avg_pool2d", Params: []Param{input, {Name: "output_size", Kind: DimsParam}},
			Memory: "to 1: a mean over the last two dimensions (backward makes one tensor of the input's shape); else the output (the input saved), backward as avg_pool2d's",
			run: func(s *Session, a Args) (*Tensor, error) {
				size, err := twoInts("adaptive_avg_pool2d", "output_size", a, 1, [2]int64{})
				if err != nil {
					return nil, err
				}
				if size[0] <= 0 || size[1] <= 0 {
					return nil, fmt.Errorf("RuntimeError: adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {%d, %d}", size[0], size[1])
				}
				return s.adaptiveAvgPool2d(a.Tensor(0), size)
			}}),
		functional(&OpDef{Name: "leaky_relu", Params: []Param{input, number("negative_slope", "0.01"), flag("inplace", "False")},
			Memory: "a new tensor, its input saved (inplace=True: none, its result saved); backward makes the gradient",
			run: func(s *Session, a Args) (*Tensor, error) {
				if !a.Bool(2) {
					return leaky.run(s, a)
				}
				if err := leakyInPlace(s, a); err != nil {
					return nil, err
				}
				return share(a.Tensor(0)), nil
			}}),
	)
}
