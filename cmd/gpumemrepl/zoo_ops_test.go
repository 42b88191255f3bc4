package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The layers and ops the zoo's programs needed (testdata/models/zoo),
// each tested through the binary as a user runs it: estimates allowed,
// each labelled.

// zooRow is one --json row of a run that may estimate.
type zooRow struct {
	Line      int      `json:"line"`
	Allocated int64    `json:"allocated_bytes"`
	MaxAlloc  int64    `json:"max_allocated_bytes"`
	Exact     *bool    `json:"exact"`
	Estimates []string `json:"estimates"`
	Events    []string `json:"events"`
	Output    string   `json:"output"`
	Error     *string  `json:"error"`
}

// estimated reports whether the row is labelled estimated by an estimate
// of its own that starts with op.
func (r zooRow) estimated(op string) bool {
	return r.Exact != nil && !*r.Exact && len(r.Estimates) > 0 && strings.HasPrefix(r.Estimates[0], op+" ")
}

// runZooOps runs src as a .py file on the simulated H200 (estimates
// allowed, going on after an error) and returns its rows by line.
func runZooOps(t *testing.T, src string) map[int]zooRow {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--keep-going", path)
	rows := map[int]zooRow{}
	for _, l := range strings.Split(out, "\n") {
		var r zooRow
		if json.Unmarshal([]byte(l), &r) == nil && r.Line > 0 {
			rows[r.Line] = r
		}
	}
	return rows
}

// TestReLU6InPlace: F.relu6 and nn.ReLU6 with inplace=True write their
// input (the same tensor comes back) and, under autograd, take a clone
// of it first, which the node keeps until backward (hardtanh_ has no
// formula of its own in derivatives.yaml and takes hardtanh's, which
// reads the input: PyTorch's generated code saves the original); without
// autograd they take nothing. mobilenetv2_train.py's recording shows
// the clone before every in-place ReLU6; a leaf is PyTorch's error.
func TestReLU6InPlace(t *testing.T) {
	rows := runZooOps(t, `import torch
import torch.nn.functional as F
x = torch.rand(8, 64, 32, 32, device='cuda', requires_grad=True)
y = x * 2
z = F.relu6(y, inplace=True)
print(z is y, y.grad_fn.name())
z.sum().backward()
del y, z
with torch.no_grad():
    w = torch.nn.ReLU6(inplace=True)(x * 2)
torch.nn.ReLU6(inplace=True)(x)
`)
	const mib = 1 << 20
	if got := rows[5].Allocated - rows[4].Allocated; got != 2*mib {
		t.Errorf("relu6_ under autograd took %d bytes, want its input's clone, 2 MiB", got)
	}
	if rows[6].Output != "True HardtanhBackward0\n" { // hardtanh_inplace.py recorded PyTorch's name
		t.Errorf("printed %q", rows[6].Output)
	}
	// backward frees the clone: x, y and x.grad are left
	if got := rows[7].Allocated; got != 6*mib {
		t.Errorf("after backward %d bytes allocated, want 6 MiB", got)
	}
	if got := rows[9].Allocated - rows[8].Allocated; got != 2*mib {
		t.Errorf("relu6_ under no_grad: %d bytes more, want x * 2's 2 MiB alone", got)
	}
	if rows[5].Exact != nil { // recorded: models/zoo/mobilenetv2_train.py's ReLU6(inplace=True), trained
		t.Errorf("relu6_'s row is labelled estimated: %+v", rows[5])
	}
	if e := rows[11].Error; e == nil || !strings.Contains(*e, "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.") {
		t.Errorf("relu6_ of a leaf: %v", e)
	}
}

// TestInPlaceOnViewEstimated: an in-place op that autograd records on a
// view (a transposed product's mul_, F.relu6(inplace=True) of one, an
// in-place dropout of a slice) is labelled estimated, PyTorch's
// CopySlices not modelled (hardtanh_inplace.py's transposed case
// differs from its recording); on a tensor of its own, or outside
// autograd, the same ops stay exact.
func TestInPlaceOnViewEstimated(t *testing.T) {
	rows := runZooOps(t, `import torch
import torch.nn.functional as F
m = torch.randn(1024, 512, device='cuda', requires_grad=True)
y = (m * 2).t()
y.mul_(3)
z = F.relu6((m * 2).t(), inplace=True)
w = F.dropout((m * 2)[:512], 0.5, inplace=True)
u = m * 2
u.mul_(3)
with torch.no_grad():
    v = (m * 2).t()
    v.mul_(3)
`)
	for line, op := range map[int]string{5: "Tensor.mul_", 6: "F.relu6(inplace=True)", 7: "F.dropout(inplace=True)"} {
		if !rows[line].estimated(op) || !strings.Contains(rows[line].Estimates[0], "CopySlices") {
			t.Errorf("line %d: %s on a view under autograd not labelled estimated: %+v", line, op, rows[line])
		}
	}
	for _, line := range []int{9, 10} { // 10: the with block, one step
		if r, ok := rows[line]; !ok || len(r.Estimates) > 0 {
			t.Errorf("line %d: %+v, want a row without estimates", line, r)
		}
	}
}

// TestRMSprop: torch.optim.RMSprop (unet_train.py's optimizer) makes
// its step counter (on the host), square_avg, momentum_buffer (momentum
// > 0) and grad_avg (centered) at a parameter's first step, and each step the temporaries of PyTorch's
// rmsprop.py: foreach, the weight-decayed gradients' list and avg's;
// foreach=False with maximize, the negated gradient and avg, one
// parameter at a time. Each step is exact (testdata/pyrules/
// optim_rmsprop.py recorded every path); capturable=True is refused.
func TestRMSprop(t *testing.T) {
	rows := runZooOps(t, `import torch
m = torch.nn.Linear(1024, 1024, bias=False, device='cuda')
x = torch.randn(64, 1024, device='cuda')
m(x).sum().backward()
opt = torch.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.9, centered=True, weight_decay=1e-4)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(sorted(opt.state[m.weight].keys()), torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())
del opt
opt = torch.optim.RMSprop(m.parameters(), 0.01, alpha=0.9, foreach=False, maximize=True)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(sorted(opt.state[m.weight].keys()), torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated(), opt.defaults['maximize'])
torch.optim.RMSprop(m.parameters(), capturable=True).step()
`)
	const mib = 1 << 20
	if got := rows[7].Allocated - rows[6].Allocated; got != 12*mib {
		t.Errorf("the first centered step with momentum made %d bytes of state, want 3 x 4 MiB", got)
	}
	if want := "['grad_avg', 'momentum_buffer', 'square_avg', 'step'] 8388608\n"; rows[8].Output != want {
		t.Errorf("printed %q, want %q (the weight-decayed gradients and avg above the state)", rows[8].Output, want)
	}
	if got := rows[12].Allocated - rows[11].Allocated; got != 4*mib {
		t.Errorf("the first plain step made %d bytes of state, want square_avg's 4 MiB", got)
	}
	if want := "['square_avg', 'step'] 8388608 True\n"; rows[13].Output != want {
		t.Errorf("printed %q, want %q (the negated gradient and avg)", rows[13].Output, want)
	}
	if len(rows[7].Estimates) > 0 || len(rows[12].Estimates) > 0 {
		t.Errorf("RMSprop's steps are labelled estimated, though optim_rmsprop.py recorded every path: %+v %+v", rows[7], rows[12])
	}
	if e := rows[14].Error; e == nil || !strings.Contains(*e, "RMSprop(capturable=True)") {
		t.Errorf("capturable: %v", e)
	}
}

// TestPReLU: nn.PReLU (siamese_triplet.py's activation) and F.prelu
// make one tensor of the input's size, the weight viewed to broadcast
// over the channels (PreluKernelBackward0); backward makes the input's
// gradient and the weight's unreduced, both of the input's size, then
// sums the weight's to its shape. A weight of another size than the
// channels is PyTorch's error (ops_census_misc.py recorded it).
func TestPReLU(t *testing.T) {
	rows := runZooOps(t, `import torch
m = torch.nn.PReLU().cuda()
x = torch.randn(8, 64, 32, 32, device='cuda', requires_grad=True)
y = m(x)
print(y.grad_fn.name(), m.weight.shape, m)
y.sum().backward()
print(m.weight.grad.shape, x.grad.shape)
torch.nn.PReLU(64).cuda()(torch.randn(8, 32, 4, 4, device='cuda'))
print(torch.nn.functional.prelu(torch.randn(5, 3, device='cuda'), torch.rand(3, device='cuda')).shape)
`)
	const mib = 1 << 20
	if got := rows[4].Allocated - rows[3].Allocated; got != 2*mib {
		t.Errorf("PReLU's output: %d bytes, want 2 MiB", got)
	}
	if want := "PreluKernelBackward0 torch.Size([1]) PReLU(num_parameters=1)\n"; rows[5].Output != want {
		t.Errorf("printed %q, want %q", rows[5].Output, want)
	}
	// x, y and the two unreduced gradients at once, besides the small blocks
	if got := rows[6].MaxAlloc; got <= 8*mib || got > 8*mib+4096 {
		t.Errorf("backward's peak %d, want 8 MiB and a few small blocks", got)
	}
	if got := rows[6].Allocated - rows[5].Allocated; got != 2*mib+512 {
		t.Errorf("backward left %d bytes, want x.grad's 2 MiB and the weight's 512-byte block", got)
	}
	if rows[7].Output != "torch.Size([1]) torch.Size([8, 64, 32, 32])\n" || rows[9].Output != "torch.Size([5, 3])\n" {
		t.Errorf("printed %q and %q", rows[7].Output, rows[9].Output)
	}
	if rows[4].Exact != nil { // recorded: ops_census_misc.py
		t.Errorf("PReLU's row is labelled estimated: %+v", rows[4])
	}
	if e := rows[8].Error; e == nil || !strings.Contains(*e, "RuntimeError: Mismatch of parameter numbers and input channel size. Found parameter numbers = 64 and channel size = 32.") {
		t.Errorf("a weight of 64 over 32 channels: %v", e)
	}
}

// TestBatchNormHalfWeights: a BatchNorm converted by .half() (ResNet-18
// in float16, resnet18_fp16_infer.py) runs PyTorch's own kernel, as
// cuDNN takes float32 weights only: the output and two float32
// statistics per channel, in eval freed at once, in training saved;
// the weight's gradient is float16. In eval it is recorded
// (zoo_paths.py); in training labelled estimated, and --strict refuses
// it as before. F.relu takes inplace=
// as PyTorch's does (relu_, the same tensor back).
func TestBatchNormHalfWeights(t *testing.T) {
	src := `import torch
import torch.nn.functional as F
bn = torch.nn.BatchNorm2d(64).cuda().half().eval()
x = torch.randn(8, 64, 32, 32, device='cuda').half()
torch.cuda.reset_peak_memory_stats()
with torch.inference_mode():
    y = bn(x)
print(y.dtype, F.relu(x, inplace=True) is x, F.relu(x).shape)
bn.train()
z = bn(x.requires_grad_())
z.sum().backward()
print(bn.weight.grad.dtype, z.grad_fn.name())
`
	rows := runZooOps(t, src)
	const mib = 1 << 20
	if got := rows[6].Allocated - rows[5].Allocated; got != mib {
		t.Errorf("eval batch norm left %d bytes, want its float16 output's 1 MiB", got)
	}
	if got := rows[6].MaxAlloc - rows[6].Allocated; got != 1024 {
		t.Errorf("eval batch norm's peak %d above what it left, want two float32 statistics of 64 channels (512-byte blocks)", got)
	}
	if got := rows[10].Allocated - rows[9].Allocated; got != mib+1024 {
		t.Errorf("training batch norm left %d bytes, want the output and the two saved statistics", got)
	}
	if rows[8].Output != "torch.float16 True torch.Size([8, 64, 32, 32])\n" || rows[12].Output != "torch.float16 NativeBatchNormBackward0\n" {
		t.Errorf("printed %q and %q", rows[8].Output, rows[12].Output)
	}
	if rows[6].Exact != nil || !rows[10].estimated("F.batch_norm") {
		t.Errorf("eval labelled estimated or training not: %+v %+v", rows[6], rows[10])
	}
	path := filepath.Join(t.TempDir(), "bn.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "run", "--fake-host", "--device", "sim", "--strict", path); code != 1 || !strings.Contains(errOut, "NotImplementedError: F.batch_norm with float16 weights or running stats is not modelled by gpumemrepl") {
		t.Errorf("--strict: exit %d, %s", code, errOut)
	}
}

// TestLayerNormNotContiguous: F.layer_norm of a permuted tensor
// (ConvNeXt's blocks normalize channels last, convnext_train.py) takes
// a contiguous copy of it before its output and statistics and frees
// it after, makes a contiguous output, and in backward copies the
// saved input again, freed after the gradients and the incoming
// gradient's dense copy; exact (testdata/pyrules/zoo_paths.py recorded
// it). rms_norm of one stays refused.
func TestLayerNormNotContiguous(t *testing.T) {
	rows := runZooOps(t, `import torch
x = torch.randn(8, 64, 32, 32, device='cuda', requires_grad=True)
ln = torch.nn.LayerNorm(64).cuda()
torch.cuda.reset_peak_memory_stats()
y = ln(x.permute(0, 2, 3, 1))
print(y.is_contiguous(), y.shape, torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated(), x.grad.shape)
torch.nn.functional.rms_norm(x.permute(0, 2, 3, 1), (64,))
`)
	const mib = 1 << 20
	// the output and the saved mean and rstd (8 x 32 x 32 float32 each)
	if got := rows[5].Allocated - rows[4].Allocated; got != 2*mib+64<<10 {
		t.Errorf("layer_norm left %d bytes, want its output and statistics", got)
	}
	if want := "True torch.Size([8, 32, 32, 64]) 2097152\n"; rows[6].Output != want {
		t.Errorf("printed %q, want %q (the input's copy, freed)", rows[6].Output, want)
	}
	// freed by backward: the input's copy and the incoming gradient's
	// dense copy (2 MiB each), the statistics, the sum and its seed
	if want := "4260864 torch.Size([8, 64, 32, 32])\n"; rows[9].Output != want {
		t.Errorf("printed %q, want %q", rows[9].Output, want)
	}
	if rows[5].Exact != nil || rows[9].Exact != nil {
		t.Errorf("labelled estimated: %+v %+v", rows[5], rows[9])
	}
	if e := rows[10].Error; e == nil || !strings.Contains(*e, "rms_norm of a tensor that is not contiguous") {
		t.Errorf("rms_norm of a permute: %v", e)
	}
}

// TestRepeatBackward: Tensor.repeat's backward (InstanceNorm's weights
// repeated per sample, fast_neural_style.py) sums the gradient over the
// repeats into a new tensor of the input's shape, leading repeats first
// (each a new tensor), an expanded gradient (sum()'s) viewed without a
// copy; a sum over an inner dimension stays refused.
func TestRepeatBackward(t *testing.T) {
	rows := runZooOps(t, `import torch
w = torch.randn(128, device='cuda', requires_grad=True)
r = w.repeat(4)
torch.cuda.reset_peak_memory_stats()
(r * 2).sum().backward()
print(w.grad.shape, torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())
r = w.repeat(2, 3)
r.sum().backward()
print(r.grad_fn.name(), w.grad.shape)
r = w.view(2, 64).repeat(1, 2)
(r * 1).sum().backward()
`)
	// r * 2's gradient (2 KiB), the sum and its seed and the repeat's
	// sum (512-byte blocks): all freed but w.grad, made at the first
	if want := "torch.Size([128]) 3072\n"; rows[6].Output != want {
		t.Errorf("printed %q, want %q", rows[6].Output, want)
	}
	if rows[9].Output != "RepeatBackward0 torch.Size([128])\n" || rows[8].Error != nil {
		t.Errorf("printed %q; error %v", rows[9].Output, rows[8].Error)
	}
	if rows[3].Exact != nil || rows[5].Exact != nil { // recorded: ops_repeat_shape.py
		t.Errorf("repeat and its backward are labelled estimated: %+v %+v", rows[3], rows[5])
	}
	if e := rows[11].Error; e == nil || !strings.Contains(*e, "the backward of Tensor.repeat over an inner dimension") {
		t.Errorf("a repeat over an inner dimension: %v", e)
	}
}

// TestPadReflectKeepsInput: F.pad in 'reflect' and 'replicate' mode
// saves its input under autograd (reflection_pad2d_backward reads it),
// so a padded activation keeps the tensor it was padded from alive
// until backward (fast_neural_style.py's every ConvLayer); 'constant'
// keeps nothing.
func TestPadReflectKeepsInput(t *testing.T) {
	rows := runZooOps(t, `import torch
import torch.nn.functional as F
x = torch.randn(8, 64, 32, 32, device='cuda', requires_grad=True)
h = x * 2
y = F.pad(h, (2, 2, 2, 2), mode='reflect')
del h
del y
h = x * 2
y = F.pad(h, (2, 2, 2, 2))
del h
`)
	const mib = 1 << 20
	if got := rows[6].Allocated - rows[5].Allocated; got != 0 {
		t.Errorf("del h after a reflect pad freed %d bytes, want none (the pad's node keeps it)", -got)
	}
	if got := rows[7].Allocated - rows[6].Allocated; got >= -2*mib {
		t.Errorf("del y freed %d bytes, want the pad's output and its saved input", -got)
	}
	if got := rows[10].Allocated - rows[9].Allocated; got != -2*mib {
		t.Errorf("del h after a constant pad freed %d bytes, want its 2 MiB", -got)
	}
}

// TestTripletMarginLoss: nn.TripletMarginLoss and F.pairwise_distance
// (siamese_triplet.py) as PyTorch composes them: the difference and the
// difference plus eps, the norm along the last dimension (saving its
// result, its node at::norm's NormBackward1), the difference freed only
// after the norm (recorded: zoo_layers.py); margin + d(a, p), then minus
// d(a, n), clamp_min (saving its input), the sum freed after clamp_min,
// then the mean (recorded: zoo_layers.py, so exact). nn.PairwiseDistance
// is F.pairwise_distance.
func TestTripletMarginLoss(t *testing.T) {
	rows := runZooOps(t, `import torch
import torch.nn.functional as F
a, p, n = (torch.randn(1000, 256, device='cuda', requires_grad=True) for _ in range(3))
torch.cuda.reset_peak_memory_stats()
d = F.pairwise_distance(a, p)
print(d.shape, d.grad_fn.name(), torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())
del d
loss = torch.nn.TripletMarginLoss(margin=1.0)(a, p, n)
print(loss.grad_fn.name())
loss.backward()
print(a.grad.shape, torch.nn.TripletMarginLoss(swap=True)(a, p, n).shape, torch.nn.PairwiseDistance(keepdim=True)(a, p).shape)
torch.nn.TripletMarginLoss(margin=0.0)
`)
	// the difference (1,024,000 bytes) freed once the norm is made; the
	// shifted difference, which the norm saves, and d kept
	if want := "torch.Size([1000]) NormBackward1 1024000\n"; rows[6].Output != want {
		t.Errorf("printed %q, want %q", rows[6].Output, want)
	}
	if rows[5].Exact != nil {
		t.Errorf("labelled estimated: %+v", rows[5])
	}
	if rows[9].Output != "MeanBackward0\n" || rows[11].Output != "torch.Size([1000, 256]) torch.Size([]) torch.Size([1000, 1])\n" {
		t.Errorf("printed %q and %q", rows[9].Output, rows[11].Output)
	}
	if rows[8].Exact != nil {
		t.Errorf("labelled estimated: %+v", rows[8])
	}
	if e := rows[12].Error; e == nil || !strings.Contains(*e, "ValueError: TripletMarginLoss: expected margin to be greater than 0, got 0.0 instead") {
		t.Errorf("margin 0: %v", e)
	}
}

// TestNumpy: numpy as whisper_encoder.py's sinusoids use it, on the
// host (no GPU memory): numpy.log of a number is a float, numpy.newaxis
// indexes as None; numpy.log of a tensor and any other name of numpy are
// refused, each saying what the tool's numpy has.
func TestNumpy(t *testing.T) {
	rows := runZooOps(t, `import numpy as np
import torch
print(np.log(10000), np.log(1), np.log(0), np.log(-1.0), np.newaxis)
x = (-np.log(10000) / 95 * torch.arange(96, device='cuda'))[np.newaxis, :]
print(x.shape, x.dtype, torch.cuda.memory_allocated())
np.log(x)
np.arange(3)
`)
	if want := "9.210340371976184 0.0 -inf nan None\n"; rows[3].Output != want {
		t.Errorf("printed %q, want %q", rows[3].Output, want)
	}
	if want := "torch.Size([1, 96]) torch.float32 512\n"; rows[5].Output != want {
		t.Errorf("printed %q, want %q", rows[5].Output, want)
	}
	if e := rows[6].Error; e == nil || !strings.Contains(*e, "NotImplementedError: numpy.log of a Tensor is not modelled by gpumemrepl") {
		t.Errorf("np.log of a tensor: %v", e)
	}
	if e := rows[7].Error; e == nil || !strings.Contains(*e, "AttributeError: module 'numpy' has no attribute 'arange' (gpumemrepl's numpy has only log (of a number) and newaxis") {
		t.Errorf("np.arange: %v", e)
	}
}

// TestEmbeddingBag: nn.EmbeddingBag and F.embedding_bag (dlrm_train.py)
// as PyTorch 2.11 runs them: forward makes bag_size, offset2bag and the
// output, the node keeping the first two; backward sorts the indices
// and sums them by segments; under no_grad torch.embedding_bag's other
// outputs go as F.embedding_bag unpacks them, leaving the output alone
// (a 2-d input's offsets an arange, freed too). 387 indices in sum mode
// are recorded (dlrm_train's), 387 in max mode labelled estimated, with
// the reason; PyTorch's ValueErrors for a 2-d input with offsets and an
// unknown mode; torch.tril_indices's values (recorded: zoo_layers.py);
// the module's repr, which prints its weight on the GPU (PyTorch's
// extra_repr formats every attribute's repr): its values are randn's,
// but no values could make its temporaries raise the peak there: an
// estimate of the memory history only, which leaves them out.
func TestEmbeddingBag(t *testing.T) {
	rows := runZooOps(t, `import torch
import torch.nn as nn
import torch.nn.functional as F
bag = nn.EmbeddingBag(10131, 16, mode='sum').cuda()
idx = torch.randint(0, 10131, (387,), device='cuda')
off = torch.arange(0, 387, 3, device='cuda')
torch.cuda.reset_peak_memory_stats()
y = bag(idx, off)
print(y.shape, y.grad_fn.name(), torch.cuda.memory_allocated())
y.sum().backward()
print(bag.weight.grad.shape, torch.cuda.max_memory_allocated())
with torch.no_grad():
    z = F.embedding_bag(idx.view(129, 3), bag.weight, mode='max')
print(z.shape, torch.cuda.memory_allocated())
print(torch.tril_indices(4, 4, offset=-1), torch.triu_indices(2, 3).shape)
F.embedding_bag(idx.view(129, 3), bag.weight, off)
F.embedding_bag(idx, bag.weight, off, mode='median')
print(bag)
`)
	// the weight (648,384 bytes), idx, off; then bag_size (1,032),
	// offset2bag (3,096) and the output (8,256), each in a 512-byte block
	printedRows(t, rows, map[int]string{
		9:  "torch.Size([129, 16]) EmbeddingBagBackward0 667648\n",
		11: "torch.Size([10131, 16]) 1376256\n",
		14: "torch.Size([129, 16]) 1319936\n",
		15: "tensor([[1, 2, 2, 3, 3, 3],\n        [0, 0, 1, 0, 1, 2]]) torch.Size([2, 5])\n",
		18: "EmbeddingBag(10131, 16, mode='sum')\n",
	})
	if rows[8].Exact != nil || rows[10].Exact != nil || !rows[12].estimated("F.embedding_bag") || len(rows[15].Estimates) > 0 || !rows[18].estimated("print") || !strings.HasPrefix(rows[18].Estimates[0], "print of [10131, 16] float32: its values are unknown") {
		t.Errorf("labels and events: %+v %+v %+v %+v %+v", rows[8], rows[10], rows[12], rows[15], rows[18])
	}
	for line, want := range map[int]string{
		16: "ValueError: if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type <class 'torch.Tensor'>",
		17: "ValueError: mode has to be one of sum, mean or max",
	} {
		if e := rows[line].Error; e == nil || !strings.Contains(*e, want) {
			t.Errorf("line %d: %v, want %s", line, e, want)
		}
	}
}

// TestTransformer: nn.Transformer (seq2seq_transformer.py) as PyTorch
// 2.11 composes it: a TransformerEncoder and a TransformerDecoder of
// deep-copied layers, each ending in LayerNorm; the decoder layers
// (self-attention, attention over the memory, the feed-forward block)
// and, in eval with a bool causal mask, the attention's fast path at a
// length that is not a multiple of 8 exact, as testdata/pyrules/
// zoo_layers.py and zoo_paths.py hold them; the decoder compares a float mask with the causal one, which needs its
// values through a transposed view's .float() and masked_fill; the
// memory-efficient attention pads a mask's rows to 8 elements (23
// columns: 24, as the zoo's recording shows); PyTorch's error for a
// tgt of another width.
func TestTransformer(t *testing.T) {
	rows := runZooOps(t, `import torch
import torch.nn as nn
import torch.nn.functional as F
m = nn.Transformer(d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=128, batch_first=True).cuda()
src, tgt = torch.randn(5, 23, 64, device='cuda'), torch.randn(5, 19, 64, device='cuda')
mask = nn.Transformer.generate_square_subsequent_mask(19, device='cuda')
out = m(src, tgt, tgt_mask=mask, src_key_padding_mask=torch.zeros(5, 23, dtype=torch.bool, device='cuda'))
print(out.shape, out.grad_fn.name(), torch.cuda.memory_allocated())
out.sum().backward()
m.eval()
with torch.no_grad():
    y = m.decoder(tgt[:1, :5], m.encoder(src[:1]), tgt_mask=mask[:5, :5] == float('-inf'))
print(y.shape, len(m.decoder.layers), type(m.encoder.layers[0]).__name__, type(m.decoder.layers[1]).__name__)
c = (torch.triu(torch.ones(3, 3, device='cuda')) == 1).transpose(0, 1)
print(c.float().masked_fill(c == 0, float('-inf')), torch.zeros(2, 2).masked_fill_(torch.tensor([[True, False], [False, True]]), 7.0))
torch.cuda.memory._record_memory_history()
q = torch.randn(2, 4, 23, 16, device='cuda')
a = F.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(2, 4, 23, 23, device='cuda'))
print([e['size'] for e in torch.cuda.memory._snapshot()['device_traces'][0] if e['action'] == 'alloc'][-4:])
m(src, tgt[:, :, :32])
`)
	printedRows(t, rows, map[int]string{
		8:  "torch.Size([5, 19, 64]) NativeLayerNormBackward0 37400064\n",
		13: "torch.Size([1, 5, 64]) 2 TransformerEncoderLayer TransformerDecoderLayer\n",
		15: "tensor([[1., -inf, -inf],\n        [1., 1., -inf],\n        [1., 1., 1.]], device='cuda:0') tensor([[7., 0.],\n        [0., 7.]])\n",
		// q, the mask, the padded mask [2, 4, 23, 24], the output
		19: "[11776, 16928, 17664, 11776]\n",
	})
	for _, line := range []int{7, 9, 11} {
		if e := rows[line].Estimates; len(e) > 0 {
			t.Errorf("line %d: estimates %q, want none (recorded)", line, e)
		}
	}
	if e := rows[20].Error; e == nil || !strings.Contains(*e, "RuntimeError: the feature number of src and tgt must be equal to d_model") {
		t.Errorf("a tgt of another width: %v", e)
	}
}

// printedRows checks what rows' statements printed, by line.
func printedRows(t *testing.T, rows map[int]zooRow, want map[int]string) {
	t.Helper()
	for line, w := range want {
		if rows[line].Output != w {
			t.Errorf("line %d printed %q, want %q", line, rows[line].Output, w)
		}
	}
}
