package engine

// Group normalization on the GPU, batch norm's per-sample sibling
// (testdata/pyrules/cnn_act.py; cnn_probe.txt: 7 shapes, float32 and
// bfloat16, with and without weights). Forward makes the output, then
// mean and rstd of (N, groups) in the input's dtype (saved with the
// input and weight) and, with weights, two float32 (N, C) factors,
// freed after. Backward makes a dense copy of a gradient that is not
// contiguous, the input's gradient, the weight's and bias's, float32
// sums ds and db of (N, C), two float32 factors of (N, groups) and, with
// weights, a third of (N, C); it frees the (N, groups) pair, the third
// factor, the sums, then the copy.

// F.group_norm as a table entry.
func init() {
	declare(
		functional(&OpDef{Name: "group_norm",
			Params: []Param{input, {Name: "num_groups", Kind: IntParam}, optTensor("weight"), optTensor("bias"), numberParam("eps", "1e-05")},
			Memory: "the output, then mean and rstd of (N, groups) (saved with the input) and, with weights, two float32 (N, C) factors freed after; backward makes a dense copy of the incoming gradient, the gradients, float32 sums and factors, freed after",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.groupNorm(a.Tensor(0), a.Int(1), a.Tensor(2), a.Tensor(3))
			}}),
	)
}

// groupNorm is F.group_norm(x, groups, w, b).
func (s *Session) groupNorm(x *Tensor, groups int64, w, b *Tensor) (*Tensor, error) {
	if len(x.Shape) < 2 {
		return nil, Errorf(RuntimeError, "Expected at least 2 dimensions for input tensor but received %d", len(x.Shape))
	}
	n, c := x.Shape[0], x.Shape[1]
	if groups <= 0 || c%groups != 0 {
		return nil, Errorf(RuntimeError, "Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%d", dimList(x.Shape), groups)
	}
	if x.Numel()/uint64(n*groups) == 1 {
		return nil, Errorf(ValueError, "Expected more than 1 value per channel when training, got input size %s", dimList(x.Shape))
	}
	dev, err := sameDevice(x, w, b)
	if err != nil {
		return nil, err
	}
	if err := groupNormModelled(s, x, w, b, dev); err != nil {
		return nil, err
	}
	stat := tensorShape{[]int64{n, groups}, x.DType}
	outs, err := s.allocAll(dev, tensorShape{x.Shape, x.DType}, stat, stat)
	if err != nil {
		return nil, err
	}
	if w != nil || b != nil {
		factor := tensorShape{[]int64{n, c}, batchNormFloat}
		fs, err := s.allocAll(dev, factor, factor)
		if err != nil {
			for _, t := range outs {
				s.dropTensor(t)
			}
			return nil, err
		}
		s.dropTensor(fs[1])
		s.dropTensor(fs[0])
	}
	save := []*Tensor{x}
	if w != nil {
		save = append(save, w)
	}
	s.record("NativeGroupNormBackward0", outs[0], []*Tensor{x, w, b}, append(save, outs[1:]...), groupNormBackward(groups))
	s.dropTensor(outs[1])
	s.dropTensor(outs[2])
	return outs[0], nil
}

// groupNormModelled refuses what the tool has not recorded: the host,
// float64, an input that is not contiguous, weights of another dtype
// than the input's, a plane of 1x1,
// and a backward without the input's gradient.
func groupNormModelled(s *Session, x, w, b *Tensor, dev Device) error {
	switch {
	case !dev.CUDA:
		return NotModelledError("F.group_norm on the host")
	case !isFloat(x.DType) || x.DType.Name == "float64":
		return NotModelledError("F.group_norm of a " + x.DType.Name + " input")
	case w != nil && w.DType != x.DType || b != nil && b.DType != x.DType:
		return NotModelledError("F.group_norm with weights of another dtype than the input's")
	case !x.IsContiguous():
		return NotModelledError("F.group_norm of a tensor that is not contiguous (its copy)")
	case numel(x.Shape[2:]) == 1:
		return NotModelledError("F.group_norm of a plane of 1x1")
	case s.gradEnabled && !x.requiresGrad() && (w != nil && w.requiresGrad() || b != nil && b.requiresGrad()):
		return NotModelledError("F.group_norm's backward without the input's gradient")
	}
	return nil
}

// groupNormBackward is NativeGroupNormBackward0 of groups groups.
func groupNormBackward(groups int64) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		x := n.inputs[0].shape
		affine := n.inputs[1].shape != nil || n.inputs[2].shape != nil
		perChannel := tensorShape{[]int64{x[0], x[1]}, batchNormFloat}
		perGroup := tensorShape{[]int64{x[0], groups}, batchNormFloat}
		var want []tensorShape
		copied := !g.IsContiguous()
		if copied {
			want = append(want, tensorShape{g.Shape, g.DType})
		}
		want = append(want, tensorShape{x, g.DType})
		first := len(want) - 1 // the input's gradient, then the weights'
		if affine {
			w := tensorShape{[]int64{x[1]}, g.DType}
			want = append(want, w, w)
		}
		temps := len(want)
		want = append(want, perChannel, perChannel, perGroup, perGroup)
		if affine {
			want = append(want, perChannel)
		}
		grads := make([]*Tensor, len(n.inputs))
		ts, err := s.allocAll(g.Device(), want...)
		if err != nil {
			return grads, err
		}
		// the (N, groups) pair, the third factor, the sums, then the copy
		order := []int{temps + 2, temps + 3}
		if affine {
			order = append(order, temps+4)
		}
		order = append(order, temps, temps+1)
		if copied {
			order = append(order, 0)
		}
		for _, i := range order {
			s.dropTensor(ts[i])
		}
		for i := range grads {
			if i == 0 || affine {
				grads[i] = ts[first+i]
			}
		}
		for i, t := range grads {
			if t != nil && n.inputs[i].to == nil {
				s.dropTensor(t)
				grads[i] = nil
			}
		}
		return grads, nil
	}
}
