package engine

import "fmt"

// The convolutions, as torch.nn.functional forms with PyTorch's
// signatures (conv.go; testdata/pyrules/conv_layers.py).

func init() {
	for dims := 1; dims <= 3; dims++ {
		name := fmt.Sprintf("conv%dd", dims)
		d := functional(&OpDef{Name: name,
			Params: []Param{input, {Name: "weight", Kind: TensorParam}, {Name: "bias", Kind: TensorParam, Default: "None"},
				{Name: "stride", Kind: DimsParam, Default: "1"}, {Name: "padding", Kind: PaddingParam, Default: "0"},
				{Name: "dilation", Kind: DimsParam, Default: "1"}, {Name: "groups", Kind: IntParam, Default: "1"}},
			Memory: "cuDNN's, from the table of recorded configurations (others refused, with the line that records them): the output, then its workspace, freed (the bias added in place; input and weight saved); backward the input's gradient and workspace, the weight's and workspace, then the bias's (a sum); a broadcast gradient made dense first",
			run: func(s *Session, a Args) (*Tensor, error) {
				op := "F." + name
				p, err := convArgs(op, dims, a)
				if err != nil {
					return nil, err
				}
				return s.conv(op, dims, a.Tensor(0), a.Tensor(1), a.Tensor(2), p)
			}})
		d.Function = true // torch.convNd too
		declare(d)
	}
}
