package main

import (
	"strings"
	"testing"
)

// TestCensusLayerWrappers: nn.AdaptiveMaxPool2d (a None in output_size
// keeps the input's size), nn.Mish and nn.BCELoss run their functional
// ops (the same memory as F.adaptive_max_pool2d called directly, each
// recorded) with PyTorch's reprs and nodes, and backward
// runs through them; torch.fx.graph_module._copy_attr puts a parameter
// and a buffer at the same dotted paths of another module, sharing them
// (nothing allocated); nn.Parameter is the class a parameter is an
// instance of (isinstance, as model code checks it).
func TestCensusLayerWrappers(t *testing.T) {
	t.Parallel()
	src := `import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.rand(8, 16, 32, 32, device='cuda', requires_grad=True)
p = nn.AdaptiveMaxPool2d((4, None))
y = p(x)
y2 = F.adaptive_max_pool2d(x, (4, 32))
z = nn.Mish()(x)
s = torch.sigmoid(x)
l = nn.BCELoss()(s, torch.ones_like(x))
print(p, y.shape, y.grad_fn.name(), nn.Mish(), z.grad_fn.name(), nn.BCELoss(reduction='sum'), l.grad_fn.name(), nn.ELU(0.5, inplace=True))
(l + y.sum() + z.sum()).backward()
print(x.grad.shape)
src = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4)).cuda()
dst = nn.Module()
from torch.fx.graph_module import _copy_attr
_copy_attr(src, dst, '0.weight')
_copy_attr(src, dst, '1.running_mean')
print(getattr(dst, '0').weight is src[0].weight, list(dict(getattr(dst, '1').named_buffers())), [n for n, _ in dst.named_parameters()])
print(isinstance(src[0].weight, nn.Parameter), isinstance(src[1].running_mean, nn.Parameter), type(nn.Parameter(torch.ones(1), requires_grad=False)).__name__)
`
	rows, _ := runCensus(t, src)
	for line, w := range map[int]string{
		11: "AdaptiveMaxPool2d(output_size=(4, None)) torch.Size([8, 16, 4, 32]) AdaptiveMaxPool2DBackward0 Mish() MishBackward0 BCELoss() BinaryCrossEntropyBackward0 ELU(alpha=0.5, inplace=True)\n",
		13: "torch.Size([8, 16, 32, 32])\n",
		19: "True ['running_mean'] ['0.weight']\n",
		20: "True False Parameter\n",
	} {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	grew := func(line int) int64 { return rows[line].Allocated - rows[line-1].Allocated }
	// the output [8, 16, 4, 32] and its int64 indices, saved for backward
	if grew(6) != 64<<10+128<<10 || grew(7) != grew(6) {
		t.Errorf("AdaptiveMaxPool2d made %d, F.adaptive_max_pool2d %d, want 192 KiB each", grew(6), grew(7))
	}
	if grew(8) != 512<<10 {
		t.Errorf("Mish made %d, want its 512 KiB output", grew(8))
	}
	// adaptive max pooling and binary cross entropy (ops_census_misc.py)
	// and mish (ops_activations.py), held to their recordings
	for _, line := range []int{6, 7, 8, 10} {
		if e := rows[line].Estimates; e != nil {
			t.Errorf("line %d: estimates %q, want none", line, e)
		}
	}
	for _, line := range []int{17, 18} {
		if grew(line) != 0 {
			t.Errorf("_copy_attr at line %d allocated %d", line, grew(line))
		}
	}
}

// TestCensusCategorical: torch.distributions.Categorical as model code
// samples with it: logits normalised (a tensor of their size), probs
// made once (softmax, cached), sample one int64 a row through
// multinomial, log_prob and entropy with backward through them; each
// step an estimate naming the composite; the probs form normalises and
// samples a shape (Size + tuple is a Size, as in PyTorch).
func TestCensusCategorical(t *testing.T) {
	t.Parallel()
	src := `import torch
from torch.distributions import Categorical
logits = torch.randn(64, 500, device='cuda', requires_grad=True)
d = Categorical(logits=logits)
print(d, d.batch_shape, d.logits.shape)
a = d.sample()
print(a.shape, a.dtype, d)
lp = d.log_prob(a)
ent = d.entropy()
print(lp.shape, ent.shape, lp.grad_fn.name())
(lp.sum() + ent.sum()).backward()
print(logits.grad.shape)
p = Categorical(probs=torch.rand(4, 10, device='cuda'))
print(p.sample((3,)).shape, p.mode.shape, p.logits.shape)
print(torch.Size([2]) + (3,), torch.Size([2]) + torch.Size([4]))
`
	rows, _ := runCensus(t, src)
	for line, w := range map[int]string{
		5:  "Categorical(logits: torch.Size([64, 500])) torch.Size([64]) torch.Size([64, 500])\n",
		7:  "torch.Size([64]) torch.int64 Categorical(probs: torch.Size([64, 500]), logits: torch.Size([64, 500]))\n",
		10: "torch.Size([64]) torch.Size([64]) SqueezeBackward1\n",
		12: "torch.Size([64, 500])\n",
		14: "torch.Size([3, 4]) torch.Size([4]) torch.Size([4, 10])\n",
		15: "torch.Size([2, 3]) torch.Size([2, 4])\n",
	} {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	grew := func(line int) int64 { return rows[line].Allocated - rows[line-1].Allocated }
	// the normalised logits and logsumexp's [64, 1] result (its backward
	// saves it)
	if grew(4) != 128000+512 {
		t.Errorf("Categorical(logits=) kept %d, want the normalised logits and a 512-byte block", grew(4))
	}
	// softmax's probs, cached, and 64 int64 samples
	if grew(6) != 128000+512 {
		t.Errorf("sample kept %d, want the probs and the samples", grew(6))
	}
	for line, op := range map[int]string{4: "__init__", 6: "sample", 8: "log_prob", 9: "entropy", 13: "__init__"} {
		found := false
		for _, e := range rows[line].Estimates {
			found = found || strings.HasPrefix(e, "torch.distributions.Categorical."+op+" ")
		}
		if !found {
			t.Errorf("line %d: estimates %q, want Categorical.%s's", line, rows[line].Estimates, op)
		}
	}
	for line, r := range rows {
		if r.Error != nil {
			t.Errorf("line %d: %s", line, *r.Error)
		}
	}
}

// TestEmbeddingFlattensStridedIndices: F.embedding flattens indices of
// more than one dimension (index_select of indices.reshape(-1)); where
// they are not contiguous (a language model's data[:, :-1]) that is a
// copy, freed once the rows are picked, as llama_train's recording shows
// (9,600 bytes of int64 made and freed around the output): the peak
// above the end is its 9,728-byte block; contiguous indices copy nothing.
func TestEmbeddingFlattensStridedIndices(t *testing.T) {
	t.Parallel()
	src := `import torch
w = torch.nn.Embedding(100, 64).cuda()
data = torch.randint(0, 100, (6, 201), device='cuda')
torch.cuda.reset_peak_memory_stats()
a = w(data[:, 1:])
print(torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())
c = data[:, 1:].contiguous()
torch.cuda.reset_peak_memory_stats()
b = w(c)
print(torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated(), a.shape)
`
	rows, _ := runCensus(t, src)
	if got := rows[6].Output; got != "9728\n" {
		t.Errorf("strided indices: peak above the end %q, want the copy's 9728", got)
	}
	if got := rows[10].Output; got != "0 torch.Size([6, 200, 64])\n" {
		t.Errorf("contiguous indices: %q, want no copy", got)
	}
}

// TestEmbeddingBackwardCopiesStridedIndices: the embedding's backward
// (embedding_dense_backward) reads its indices through
// indices.contiguous(): strided ones (data[:, :-1]) are copied before
// the weight's gradient is made and freed as it returns, as
// llama_train's recording shows (9,600 bytes each step): the peak of
// the backward stands the copy's 9,728-byte block above its end;
// contiguous indices copy nothing.
func TestEmbeddingBackwardCopiesStridedIndices(t *testing.T) {
	t.Parallel()
	src := `import torch
w = torch.nn.Embedding(100, 64).cuda()
data = torch.randint(0, 100, (6, 201), device='cuda')
a = w(data[:, 1:])
g = torch.ones_like(a)
torch.cuda.reset_peak_memory_stats()
a.backward(g)
print(torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())
w.weight.grad = None
c = data[:, 1:].contiguous()
b = w(c)
torch.cuda.reset_peak_memory_stats()
b.backward(g)
print(torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())
`
	rows, _ := runCensus(t, src, "--strict")
	if got := rows[8].Output; got != "9728\n" {
		t.Errorf("strided indices: the backward's peak above its end %q, want the copy's 9728", got)
	}
	if got := rows[14].Output; got != "0\n" {
		t.Errorf("contiguous indices: %q, want no copy", got)
	}
}
