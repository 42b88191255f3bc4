package main

import (
	"strings"
	"testing"
)

// zooLayerCase is a small program of one op or layer a zoo program
// needed, run through the binary (--strict where it claims exact
// figures): what it must print, on stdout and stderr together.
type zooLayerCase struct {
	name, src string
	strict    bool
	code      int
	want      []string
}

func runZooLayerCases(t *testing.T, cases []zooLayerCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := writeProgram(t, c.name+".py", c.src)
			args := []string{"run", "--device", "sim", "--fake-host", "--no-color", path}
			if c.strict {
				args = append(args, "--strict")
			}
			out, errOut, code := run(t, args...)
			all := strings.ReplaceAll(out+errOut, path, "PROG")
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, all)
			}
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
		})
	}
}

// TestGELUApproximate: nn.GELU(approximate="tanh") and F.gelu's
// approximate= (lora_finetune.py's MLP) take what plain GELU takes, a
// new tensor saving its input, exact (the zoo program's recording
// matches every allocator event); a mode PyTorch lacks is its error.
func TestGELUApproximate(t *testing.T) {
	runZooLayerCases(t, []zooLayerCase{{
		name: "gelu_tanh", strict: true,
		src: "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n" +
			"m = nn.GELU(approximate='tanh')\nprint(m, nn.GELU())\n" +
			"x = torch.randn(1000, 1000, device='cuda', requires_grad=True)\n" +
			"y = m(x)\nz = F.gelu(x, approximate='none')\n" +
			"print(y.grad_fn.name(), torch.cuda.memory_allocated())\n" +
			"y.sum().backward()\nprint(torch.cuda.max_memory_allocated())\n",
		want: []string{"GELU(approximate='tanh') GELU(approximate='none')\n", "GeluBackward0 12000768\n", "16002048\n"},
	}, {
		name: "gelu_bad_mode", code: 1,
		src:  "import torch\nimport torch.nn.functional as F\nx = torch.randn(4, device='cuda')\ny = F.gelu(x, approximate='fast')\n",
		want: []string{"PROG:4:5: RuntimeError: approximate argument must be either none or tanh.\n"},
	}})
}

// TestEmbeddingStridedIndices: F.embedding reads indices of more than
// one dimension flat, so indices whose strides allow no flat view
// (batch[:, :-1], lora_finetune.py's) are copied dense for the call
// and freed, as PyTorch's events show (7 x 129 int64: 7,680 bytes at
// the peak beside the output).
func TestEmbeddingStridedIndices(t *testing.T) {
	runZooLayerCases(t, []zooLayerCase{{
		name: "embedding_strided", strict: true,
		src: "import torch\nimport torch.nn as nn\n" +
			"e = nn.Embedding(100, 512, device='cuda')\nbatch = torch.randint(0, 100, (7, 130), device='cuda')\n" +
			"base = torch.cuda.memory_allocated()\ny = e(batch[:, :-1])\n" +
			"print(torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base)\n" +
			"y2 = e(batch[:, 1:].contiguous())\n",
		want: []string{"1849344 1857024\n"},
	}})
}
