package engine

import "slices"

// trace and diag (testdata/pyrules/ops_repeat_shape.py and
// ops_census_more.py, held statement by statement). trace of a matrix
// is PyTorch's diagonal().sum(): a 0-d result (int64 for an integral
// input) and the reduction's buffer over the diagonal's elements;
// TraceBackward0 makes zeros of the input's shape and an int64 index of
// the diagonal's positions (freed), the gradient filled in. diag of a
// vector is diag_embed: one square tensor of zeros, the vector copied
// onto its diagonal; of a matrix diagonal_copy: one vector. Each
// backward makes one tensor of the input's shape.

func init() {
	declare(
		&OpDef{Name: "trace", Function: true, Method: true, Params: []Param{input},
			Memory: "a 0-d result and the sum's buffer over the diagonal; backward makes zeros of the input's shape and an int64 index of the diagonal (freed)",
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				if len(x.Shape) != 2 {
					return nil, Errorf(RuntimeError, "trace: expected a matrix, but got tensor with dim %d", len(x.Shape))
				}
				out, err := s.alloc(nil, summed(x.DType), x.Device())
				if err != nil {
					return nil, err
				}
				k := min(x.Shape[0], x.Shape[1])
				if err := s.reductionTemps(&Tensor{Shape: []int64{k}, DType: x.DType, st: x.st}, opmath(x.DType)); err != nil {
					s.dropTensor(out)
					return nil, err
				}
				s.record("TraceBackward0", out, []*Tensor{x}, nil, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
					in := n.inputs[0].shape
					ts, err := s.allocAll(g.Device(), tensorShape{in, g.DType}, tensorShape{[]int64{min(in[0], in[1])}, DTypes["int64"]})
					if err != nil {
						return []*Tensor{nil}, err
					}
					s.dropTensor(ts[1])
					return ts[:1], nil
				})
				return out, nil
			}},
		&OpDef{Name: "diag", Function: true, Method: true, Params: []Param{input, {Name: "diagonal", Kind: IntParam, Default: "0"}},
			Memory: "of a vector a square tensor with it on the diagonal; of a matrix a copy of the diagonal; backward makes one tensor of the input's shape",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, k := a.Tensor(0), a.Int(1)
				var shape []int64
				node := "DiagEmbedBackward0"
				switch len(x.Shape) {
				case 1:
					n := x.Shape[0] + max(k, -k)
					shape = []int64{n, n}
				case 2:
					rows, cols := x.Shape[0], x.Shape[1]
					if k >= 0 {
						cols -= k
					} else {
						rows += k
					}
					shape, node = []int64{max(0, min(rows, cols))}, "DiagonalBackward0_copy" // diagonal_copy's node, as named
				default:
					return nil, Errorf(RuntimeError, "diag(): Supports 1D or 2D tensors. Got %dD", len(x.Shape))
				}
				out, err := s.alloc(slices.Clone(shape), x.DType, x.Device())
				if err != nil {
					return nil, err
				}
				s.record(node, out, []*Tensor{x}, nil, likeInput(1))
				return out, nil
			}},
	)
}
