package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestLSTMFlattensWeights: moving an LSTM to the GPU moves each
// parameter, then copies them into one buffer of cuDNN's weight space
// and sets each to its view there, freeing its own storage: the peak is
// both at once, and after it every parameter shares one storage, at
// cuDNN's places (every layer's matrices, then the biases: testdata/rnn).
// A second .cuda() flattens again.
func TestLSTMFlattensWeights(t *testing.T) {
	t.Parallel()
	src := `import torch
lstm = torch.nn.LSTM(100, 200, num_layers=2, bidirectional=True)
own = sum((p.numel() * 4 + 511) // 512 * 512 for p in lstm.parameters())
flat = (sum(p.numel() for p in lstm.parameters()) * 4 + 511) // 512 * 512
lstm.cuda()
print(torch.cuda.max_memory_allocated() == own + flat, torch.cuda.memory_allocated() == flat)
print(len({p.untyped_storage().data_ptr() for p in lstm.parameters()}), [p.storage_offset() for p in lstm.parameters()][:5])
lstm.cuda()
print(torch.cuda.memory_allocated() == flat, torch.cuda.max_memory_allocated() == own + flat)
`
	_, printed, errOut := runPython(t, src)
	for line, want := range map[int]string{6: "True True\n", 7: "1 [0, 80000, 1440000, 1440800, 240000]\n", 9: "True True\n"} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q (stderr %s)", line, printed[line], want, errOut)
		}
	}
}

// TestLSTMForwardModes: what a forward leaves, from PyTorch's source
// rather than cuDNN's sizes: in eval mode under grad, the output, h_n,
// c_n and the zero h_0 and c_0 the graph saves (no reserve space); in
// train mode under no_grad, the output, h_n and c_n only (the reserve
// made and freed); a backward from an eval-mode forward fails as in
// PyTorch.
func TestLSTMForwardModes(t *testing.T) {
	t.Parallel()
	src := `import torch
lstm = torch.nn.LSTM(64, 128, num_layers=2).cuda()
x = torch.ones(30, 8, 64, device='cuda')
lstm.eval()
out, (h, c) = lstm(x)
del out, h, c
lstm.train()
with torch.no_grad():
    out, (h, c) = lstm(x)
del out, h, c
lstm.eval()
lstm(x)[0].sum().backward()
`
	steps, _, errOut := runPython(t, src)
	const state = 2 * 8 * 128 * 4 // h or c: [layers, batch, hidden] float32
	output := 30 * 8 * 128 * 4
	if got, want := steps[5].Allocated-steps[4].Allocated, int64(output+4*state); got != want {
		t.Errorf("eval forward left %d bytes, want %d: output, h_n, c_n, and h_0 and c_0 saved (stderr %s)", got, want, errOut)
	}
	if got, want := steps[8].Allocated-steps[7].Allocated, int64(output+2*state); got != want {
		t.Errorf("no_grad forward left %d bytes, want %d: output, h_n and c_n", got, want)
	}
	if steps[8].MaxAlloc <= steps[5].MaxAlloc {
		t.Errorf("the training forward under no_grad peaked at %d, no higher than eval's %d: its reserve space is made", steps[8].MaxAlloc, steps[5].MaxAlloc)
	}
	if e := steps[12].Error; e == nil || !strings.HasSuffix(*e, "RuntimeError: cudnn RNN backward can only be called in training mode") {
		t.Errorf("backward of an eval-mode forward: error %v", e)
	}
}

// TestRNNWeightGradients: with biases, backward makes one buffer of the
// weight space and every weight's .grad is a view of it (zero_grad frees
// it with the last); without biases each .grad is a tensor of its own.
func TestRNNWeightGradients(t *testing.T) {
	t.Parallel()
	prog := func(bias bool) string {
		return fmt.Sprintf(`import torch
gru = torch.nn.GRU(32, 64, bias=%v, batch_first=True).cuda()
x = torch.ones(4, 10, 32, device='cuda', requires_grad=True)
out, h = gru(x)
(out.sum() + h.sum()).backward()
print(len({p.grad.untyped_storage().data_ptr() for p in gru.parameters()}), x.grad.shape, x.grad.is_contiguous())
`, map[bool]string{true: "True", false: "False"}[bias])
	}
	_, with, errOut := runPython(t, prog(true))
	_, without, _ := runPython(t, prog(false))
	if with[6] != "1 torch.Size([4, 10, 32]) True\n" || without[6] != "2 torch.Size([4, 10, 32]) True\n" {
		t.Errorf("with biases printed %q, without %q: want one buffer for every .grad with, one each without, and the input's gradient cloned into its layout by AccumulateGrad (stderr %s)", with[6], without[6], errOut)
	}
}

// TestRNNChecks: PyTorch's errors for a layer's arguments and inputs.
func TestRNNChecks(t *testing.T) {
	t.Parallel()
	src := `import torch
torch.nn.LSTM(10, 20, dropout=1.5)
torch.nn.LSTM(10, 20, proj_size=20)
torch.nn.GRU(10, 20, proj_size=5)
torch.nn.RNN(10, 20, nonlinearity='gelu')
rnn = torch.nn.RNN(10, 20).cuda()
rnn(torch.ones(5, 3, 11, device='cuda'))
rnn(torch.ones(5, 3, 10, device='cuda'), torch.zeros(1, 4, 20, device='cuda'))
rnn(torch.ones(5, 3, 10, device='cuda'), torch.zeros(4, 20, device='cuda'))
rnn(torch.ones(5, 10, device='cuda').double())
`
	steps, _, _ := runPython(t, src)
	for line, want := range map[int]string{
		2:  "ValueError: dropout should be a number in range [0, 1] representing the probability of an element being zeroed",
		3:  "ValueError: proj_size has to be smaller than hidden_size",
		4:  "ValueError: proj_size argument is only supported for LSTM, not RNN or GRU",
		5:  "ValueError: Unknown nonlinearity 'gelu'. Select from 'tanh' or 'relu'.",
		7:  "RuntimeError: input.size(-1) must be equal to input_size. Expected 10, got 11",
		8:  "RuntimeError: Expected hidden size (1, 3, 20), got [1, 4, 20]",
		9:  "RuntimeError: For batched 3-D input, hx should also be 3-D but got 2-D tensor",
		10: "ValueError: input must have the type torch.float32, got type torch.float64",
	} {
		if e := steps[line].Error; e == nil || !strings.HasSuffix(*e, want) {
			t.Errorf("line %d: error %v, want one ending %q", line, e, want)
		}
	}
}

// TestRNNWeightsNotFlat: a call whose weights are not views of one
// buffer copies them into one for the call, which the graph keeps, and
// warns as PyTorch does.
func TestRNNWeightsNotFlat(t *testing.T) {
	t.Parallel()
	src := `import torch
w = [torch.ones(32, 16, device='cuda', requires_grad=True), torch.ones(32, 32, device='cuda', requires_grad=True)]
x = torch.ones(5, 2, 16, device='cuda')
h = torch.zeros(1, 2, 32, device='cuda')
out, hn = torch.rnn_tanh(x, h, w, False, 1, 0.0, True, False, False)
`
	steps, _, errOut := runPython(t, src)
	if !strings.Contains(errOut, "UserWarning: RNN module weights are not part of single contiguous chunk of memory.") {
		t.Errorf("stderr %q, want PyTorch's warning", errOut)
	}
	// the copy is the weight space: both matrices and two biases of 32
	space := int64((32*16+32*32+2*32)*4+511) / 512 * 512
	if got := steps[5].Allocated - steps[4].Allocated; got < space {
		t.Errorf("the call left %d bytes, less than the weight buffer's %d the graph keeps", got, space)
	}
}

// TestPackedSequences: pack_padded_sequence copies each block of steps
// that is not contiguous (for batch_first, all of them), packs them into
// one tensor and frees the copies; batch_sizes is an int64 tensor on the
// host; an LSTM takes and gives a PackedSequence; pad_packed_sequence
// pads it again with the lengths, and enforce_sorted=False sorts first.
func TestPackedSequences(t *testing.T) {
	t.Parallel()
	src := `import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
x = torch.ones(4, 10, 16, device='cuda', requires_grad=True)
packed = pack_padded_sequence(x, [10, 7, 7, 3], batch_first=True)
print(packed.batch_sizes, packed.data.shape, packed.batch_sizes.device)
lstm = torch.nn.LSTM(16, 32, batch_first=True).cuda()
out, (h, c) = lstm(packed)
padded, lengths = pad_packed_sequence(out, batch_first=True)
print(type(out).__name__, out.data.shape, h.shape, padded.shape, lengths)
unsorted = pack_padded_sequence(x, [3, 10, 7, 7], batch_first=True, enforce_sorted=False)
print(unsorted.batch_sizes, unsorted.sorted_indices)
pack_padded_sequence(x, [3, 10, 7, 7], batch_first=True)
`
	steps, printed, errOut := runPython(t, src)
	if want := "tensor([4, 4, 4, 3, 3, 3, 3, 1, 1, 1]) torch.Size([27, 16]) cpu\n"; printed[5] != want {
		t.Errorf("printed %q, want %q (stderr %s)", printed[5], want, errOut)
	}
	// the blocks [3, 4, 16] and [4, 3, 16] copied (1024 bytes each),
	// [3, 1, 16] read in place (contiguous: a dimension of one does not
	// count), then the packed data (27 x 16)
	if got, want := steps[4].MaxAlloc-steps[3].Allocated, int64(1024+1024+2048); got != want {
		t.Errorf("packing peaked %d bytes over its start, want %d", got, want)
	}
	if got := steps[4].Allocated - steps[3].Allocated; got != 2048 {
		t.Errorf("packing left %d bytes, want the packed data's 2048", got)
	}
	if want := "PackedSequence torch.Size([27, 32]) torch.Size([1, 4, 32]) torch.Size([4, 10, 32]) tensor([10,  7,  7,  3])\n"; printed[9] != want {
		t.Errorf("printed %q, want %q", printed[9], want)
	}
	if e := steps[12].Error; e == nil || !strings.Contains(*e, "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True.") {
		t.Errorf("unsorted lengths: error %v", e)
	}
}

// TestRNNCells: LSTMCell's and GRUCell's forward are the two products
// and the fused kernel's workspace and states, all kept for backward
// under grad; under no_grad only the new states stay.
func TestRNNCells(t *testing.T) {
	t.Parallel()
	src := `import torch
torch.ones(8, 8, device='cuda') @ torch.ones(8, 8, device='cuda')
cell = torch.nn.LSTMCell(64, 128).cuda()
gru = torch.nn.GRUCell(64, 128).cuda()
x = torch.ones(32, 64, device='cuda')
h, c = cell(x)
with torch.no_grad():
    h2, c2 = cell(x)
hg = gru(x)
print(type(h.grad_fn).__name__, type(hg.grad_fn).__name__, h2.grad_fn)
(h.sum() + c.sum() + hg.sum()).backward()
print(cell.bias_ih.grad.shape, gru.weight_hh.grad.shape)
`
	steps, printed, errOut := runPython(t, src)
	const state = 32 * 128 * 4
	if got := steps[6].Allocated - steps[5].Allocated; got != 3*4*state+2*state+state {
		t.Errorf("LSTMCell under grad left %d bytes, want both products, the workspace, h', c' and the zeros it saves (h and c are one tensor) (stderr %s)", got, errOut)
	}
	if got := steps[7].Allocated - steps[6].Allocated; got != 2*state {
		t.Errorf("LSTMCell under no_grad left %d bytes, want h' and c'", got)
	}
	if got := steps[9].Allocated - steps[7].Allocated; got != 2*3*state+5*state+state+state {
		t.Errorf("GRUCell left %d bytes, want both products, the workspace, h' and the zero h it saves", got)
	}
	if printed[10] != "ThnnFusedLstmCellBackward0 ThnnFusedGruCellBackward0 None\n" || printed[12] != "torch.Size([512]) torch.Size([384, 128])\n" {
		t.Errorf("printed %q and %q", printed[10], printed[12])
	}
}

// TestRNNUnderAutocast: under torch.autocast an LSTM runs in float16 (its
// outputs float16) and its weights' gradients reach them in their own
// dtype.
func TestRNNUnderAutocast(t *testing.T) {
	t.Parallel()
	src := `import torch
lstm = torch.nn.LSTM(64, 128).cuda()
with torch.autocast('cuda', dtype=torch.bfloat16):
    out, (h, c) = lstm(torch.ones(20, 4, 64, device='cuda'))
out.float().sum().backward()
print(out.dtype, c.dtype, lstm.weight_hh_l0.grad.dtype)
`
	_, printed, errOut := runPython(t, src)
	if want := "torch.float16 torch.float16 torch.float32\n"; printed[6] != want {
		t.Errorf("printed %q, want %q (stderr %s)", printed[6], want, errOut)
	}
}

// TestCopySlicesNames: pad_sequence and pad_packed_sequence copy into
// slices of their output, so its grad_fn is PyTorch's CopySlices, whose
// name() has its C++ namespace (as F.pad's circular copies print it in
// testdata/pyrules/ops_pad_interpolate) and whose class, repr and the
// tensor's print have not; a leaf's AccumulateGrad likewise.
func TestCopySlicesNames(t *testing.T) {
	t.Parallel()
	src := `import torch
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
a = torch.ones(3, 4, device='cuda', requires_grad=True)
p = pad_sequence([a, a[:2]])
print(p.grad_fn.name(), type(p.grad_fn).__name__, p.grad_fn, p.grad_fn.next_functions[0][0].name())
q, _ = pad_packed_sequence(pack_padded_sequence(p, [3, 2]))
print(q.grad_fn.name(), q)
`
	_, printed, errOut := runPython(t, src)
	if want := "torch::autograd::CopySlices CopySlices <CopySlices object> torch::autograd::AccumulateGrad\n"; printed[5] != want {
		t.Errorf("printed %q, want %q (stderr %s)", printed[5], want, errOut)
	}
	if !strings.HasPrefix(printed[7], "torch::autograd::CopySlices tensor(") || !strings.Contains(printed[7], ", grad_fn=<CopySlices>") {
		t.Errorf("printed %q, want CopySlices' name() and a print that says grad_fn=<CopySlices>", printed[7])
	}
}
