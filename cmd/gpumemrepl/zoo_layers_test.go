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

// TestStridedInputsCopiedDense: layer_norm, softmax and log_softmax read
// their input contiguous, so a permuted or transposed one (CLIP's
// sequence-first residual stream, logits.t()) is copied dense for the
// call: layer_norm's copy first, then its output, mean and rstd; the
// softmaxes' after their output, as clip_train.py's recorded events
// show; F.normalize keeps its input for backward; softmax's dtype=
// converts the input first; tril_ writes in place, nothing allocated
// (recorded: pyrules/ops_tril.py, so exact).
func TestStridedInputsCopiedDense(t *testing.T) {
	runZooLayerCases(t, []zooLayerCase{{
		name: "layer_norm_strided", strict: true,
		src: "import torch\nm = torch.empty(77, 77).fill_(float('-inf')).triu_(1)\nprint('cpu', torch.cuda.memory_allocated())\n" +
			"x = torch.randn(24, 77, 256, device='cuda', requires_grad=True)\nln = torch.nn.LayerNorm(256).cuda()\n" +
			"base = torch.cuda.memory_allocated()\ntorch.cuda.reset_peak_memory_stats()\ny = ln(x.permute(1, 0, 2))\n" +
			"print('ln', torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base, y.is_contiguous())\n",
		// the output 1,892,352 bytes and two 7,680-byte statistics, the
		// dense copy of 1,892,352 beside them at the peak (recorded:
		// pyrules/zoo_paths.py, so exact)
		want: []string{"cpu 0\n", "ln 1907712 3800064 True\n"},
	}, {
		name: "softmax_strided", strict: true,
		src: "import torch\nimport torch.nn.functional as F\nl = torch.randn(24, 24, device='cuda')\n" +
			"base = torch.cuda.memory_allocated()\ntorch.cuda.reset_peak_memory_stats()\np = F.log_softmax(l.t(), dim=-1)\n" +
			"print('lsm', torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base, p.is_contiguous())\n" +
			"q = torch.softmax(l, dim=1, dtype=torch.float64)\nprint('sm64', q.dtype, torch.cuda.memory_allocated() - base)\n",
		want: []string{"lsm 2560 5120 True\n", "sm64 torch.float64 7168\n"},
	}, {
		name: "normalize_keeps_input", strict: true,
		src: "import torch\nimport torch.nn.functional as F\nw = torch.randn(256, 256, device='cuda', requires_grad=True)\n" +
			"x = torch.randn(24, 256, device='cuda') @ w\nbase = torch.cuda.memory_allocated()\ny = F.normalize(x, dim=-1)\ndel x\n" +
			"print('normalize', torch.cuda.memory_allocated() - base)\n",
		// the quotient, the norm and its clamp; x lives on in the graph
		// (PyTorch's composite, each op recorded: exact)
		want: []string{"normalize 25600\n"},
	}, {
		name: "tril_cuda", strict: true,
		src:  "import torch\nm = torch.ones(16, 16, device='cuda')\nm.tril_(1)\nprint(torch.cuda.memory_allocated())\n",
		want: []string{"1024\n"},
	}})
}

// TestAttentionMaskPadded: the memory-efficient attention kernel reads a
// mask whose rows are not 8-element aligned from a padded copy (77
// columns: 80), whose slice its backward keeps while the caller's mask
// may go (clip_train.py's and moe_train.py's recorded events).
func TestAttentionMaskPadded(t *testing.T) {
	runZooLayerCases(t, []zooLayerCase{{
		name: "sdpa_mask_77", strict: true,
		src: "import torch\nimport torch.nn.functional as F\n" +
			"q, k, v = (torch.randn(24, 4, 77, 64, device='cuda', requires_grad=True) for _ in range(3))\n" +
			"mask = torch.zeros(77, 77, device='cuda')\nbase = torch.cuda.memory_allocated()\n" +
			"o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)\ndel mask\nprint('sdpa', torch.cuda.memory_allocated() - base)\n",
		// the output 1,892,352, the log-sum-exp 36,864 and the padded
		// mask 25,088, less the caller's mask (24,064)
		want: []string{"sdpa 1930240\n"},
	}})
}

// TestMoERouting: what a mixture of experts' router does under
// autograd: routing_weights /= its sum clones the dividend first (the
// divisor needs a gradient), torch.where of a one-hot expert mask
// counts its mean share of tokens (an estimate, named), and index_add_
// of a source that needs a gradient records its node (moe_train.py).
func TestMoERouting(t *testing.T) {
	runZooLayerCases(t, []zooLayerCase{{
		name: "moe_routing",
		src: "import torch\nimport torch.nn.functional as F\nw = torch.randn(16, 8, device='cuda', requires_grad=True)\n" +
			"r = torch.randn(444, 16, device='cuda') @ w\nrw, sel = torch.topk(r.softmax(-1), 2, dim=-1)\n" +
			"base = torch.cuda.memory_allocated()\nrw /= rw.sum(dim=-1, keepdim=True)\n" +
			"print('div_', torch.cuda.memory_allocated() - base, rw.grad_fn.name())\n" +
			"mask = F.one_hot(sel, num_classes=8).permute(2, 1, 0)\nidx, top = torch.where(mask[3])\n" +
			"print('where', tuple(idx.shape), top.stride())\nout = torch.zeros(444, 8, device='cuda')\n" +
			"out.index_add_(0, top, rw[top, idx, None] * torch.ones(1, 8, device='cuda'))\n" +
			"print(out.grad_fn.name())\nout.sum().backward()\nprint(tuple(w.grad.shape))\n",
		want: []string{"div_ 5632 DivBackward0\n", "where (111,) (2,)\n", "IndexAddBackward0\n", "(16, 8)\n",
			"torch.where [2, 444] int64: its count depends on values the tool does not know; taken as 111, the mean of a one-hot mask's (1 in 8 of its elements)",
			"Tensor.index_add_ [444, 8] float32 x [111] int64 x [111, 8] float32: the source's gradient"},
	}, {
		name: "where_unknown_strict", code: 1, strict: true,
		src:  "import torch\nm = torch.rand(8, device='cuda') > 0.5\ni = torch.where(m)\n",
		want: []string{"PROG:3:5: NotImplementedError: the size of torch.where's output, which depends on values the tool does not compute, is not modelled by gpumemrepl"},
	}})
}

// TestMultinomial: torch.multinomial of rows of probabilities, one
// sample, takes what gpt2_sample.py's recorded sampling loop does (the
// result, the checks' reductions and bools, then a tensor of the
// input's shape for the Gumbel trick, freed); several with replacement
// what census_python.py's recording does (the result, then three
// tensors of the input's shape, freed; one row's prefix sum CUB's scan,
// as probe_unique.py measured a 1-d input): exact.
func TestMultinomial(t *testing.T) {
	runZooLayerCases(t, []zooLayerCase{{
		name: "multinomial_one", strict: true,
		src: "import torch\nprobs = torch.rand(3, 50257, device='cuda').softmax(-1)\nbase = torch.cuda.memory_allocated()\n" +
			"torch.cuda.reset_peak_memory_stats()\nidx = torch.multinomial(probs, num_samples=1)\n" +
			"print(tuple(idx.shape), idx.dtype, torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base)\n",
		// the result (512 bytes), the kept bools (1,024) and q (603,136)
		want: []string{"(3, 1) torch.int64 512 604672\n"},
	}, {
		name: "multinomial_many", strict: true,
		src: "import torch\nprobs = torch.rand(3, 100, device='cuda')\nbase = torch.cuda.memory_allocated()\n" +
			"torch.cuda.reset_peak_memory_stats()\nidx = torch.multinomial(probs, 5, replacement=True)\n" +
			"print(tuple(idx.shape), torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base)\n",
		// the result (512 bytes) and three copies of the input (1,536 each)
		want: []string{"(3, 5) 512 5120\n"},
	}, {
		name: "multinomial_1d", strict: true,
		src: "import torch\nprobs = torch.rand(100, device='cuda')\nbase = torch.cuda.memory_allocated()\n" +
			"torch.cuda.reset_peak_memory_stats()\nidx = torch.multinomial(probs, 5, replacement=True)\n" +
			"print(tuple(idx.shape), torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base)\n",
		// the result (512 bytes), three copies of the input (512 each) and
		// CUB's scan of the one row (1,023 bytes: 1,024)
		want: []string{"(5,) 512 3072\n"},
	}})
}

// TestTransformerEncoder: nn.TransformerEncoder deep-copies its layer
// num_layers times, says why it takes no nested tensor (PyTorch's
// warning), compares a mask given without is_causal with the causal
// mask of its size (whose values the tool now knows: triu of full), and
// runs the layers then its norm, as vit_encoder_infer.py's recording
// (every allocator event the same).
func TestTransformerEncoder(t *testing.T) {
	runZooLayerCases(t, []zooLayerCase{{
		name: "transformer_encoder", strict: true,
		src: "import torch\nimport torch.nn as nn\n" +
			"layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, norm_first=True)\n" +
			"enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(64)).cuda()\n" +
			"print(len(enc.layers), enc.layers[0].linear1.weight is enc.layers[1].linear1.weight, sum(p.numel() for p in enc.parameters()))\n" +
			"m = nn.Transformer.generate_square_subsequent_mask(4)\nprint(m.tolist()[1], torch.tril(torch.ones(3, 3), -1).tolist())\n" +
			"x = torch.randn(3, 10, 64, device='cuda')\nmask = nn.Transformer.generate_square_subsequent_mask(10, device='cuda')\n" +
			"y = enc(x, mask=mask)\nprint(tuple(y.shape))\n",
		want: []string{"UserWarning: enable_nested_tensor is True, but self.use_nested_tensor is False because encoder_layer.norm_first was True\n",
			"2 False 67072\n", "[0.0, 0.0, -inf, -inf] [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]\n", "(3, 10, 64)\n"},
	}})
}

// TestSizePlusTuple: a torch.Size and a tuple concatenate into a
// torch.Size, as BERT's transpose_for_scores grows a shape
// (bert_mlm.py, which then matches every recorded allocator event).
func TestSizePlusTuple(t *testing.T) {
	runZooLayerCases(t, []zooLayerCase{{
		name: "size_plus_tuple", strict: true,
		src: "import torch\nx = torch.zeros(9, 187, 768, device='cuda')\nshape = x.size()[:-1] + (12, 64)\n" +
			"print(shape, type(shape).__name__, tuple(x.view(shape).shape))\nprint(x.size() + torch.Size([2]))\n",
		want: []string{"torch.Size([9, 187, 12, 64]) Size (9, 187, 12, 64)\n", "torch.Size([9, 187, 768, 2])\n"},
	}})
}
