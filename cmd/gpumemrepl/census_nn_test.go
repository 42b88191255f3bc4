package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// censusRow is a step of run --json with its estimates.
type censusRow struct {
	Line      int      `json:"line"`
	Allocated int64    `json:"allocated_bytes"`
	Output    string   `json:"output"`
	Error     *string  `json:"error"`
	Exact     *bool    `json:"exact"`
	Estimates []string `json:"estimates"`
}

// runCensus runs src with run --json --keep-going and returns its steps
// by line, and the path it ran.
func runCensus(t *testing.T, src string, flags ...string) (map[int]censusRow, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := run(t, append(append([]string{"run", "--json", "--fake-host", "--device", "sim", "--keep-going"}, flags...), path)...)
	rows := map[int]censusRow{}
	for _, l := range strings.Split(out, "\n") {
		var r censusRow
		if json.Unmarshal([]byte(l), &r) == nil && r.Line > 0 {
			rows[r.Line] = r
		}
	}
	return rows, path
}

// TestCensusNormAndPoolLayers: BatchNorm3d, MaxPool3d, AvgPool3d,
// MaxPool1d, AvgPool1d, InstanceNorm2d and SyncBatchNorm (one process,
// no process group: F.batch_norm, as PyTorch falls back) make what
// PyTorch's code makes, with its autograd nodes, by rules held to their
// recordings (modules_census.py, modules_census_nn.py), so --strict runs
// them all; their wrong inputs fail in PyTorch's words;
// convert_sync_batchnorm keeps the old layer's parameters.
func TestCensusNormAndPoolLayers(t *testing.T) {
	t.Parallel()
	src := `import torch
import torch.nn as nn
v = torch.rand(4, 16, 8, 32, 32, device='cuda', requires_grad=True)
bn3 = nn.BatchNorm3d(16).cuda()
y = bn3(v)
p = nn.MaxPool3d(2)(v)
a = nn.AvgPool3d(2)(v)
print(y.grad_fn.name(), p.shape, p.grad_fn.name(), a.grad_fn.name())
s = torch.rand(4, 16, 1000, device='cuda', requires_grad=True)
m = nn.MaxPool1d(4)(s)
q = nn.AvgPool1d(4)(s)
print(m.shape, m.grad_fn.name(), q.grad_fn.name(), nn.AvgPool1d(4))
x = torch.rand(8, 32, 16, 16, device='cuda', requires_grad=True)
i = nn.InstanceNorm2d(32)(x)
sb = nn.SyncBatchNorm(32).cuda()
z = sb(x)
print(i.grad_fn.name(), z.grad_fn.name(), torch.distributed.is_initialized())
bn = nn.BatchNorm2d(8)
net = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(bn))
print(type(net[0]).__name__, net[0].weight is bn.weight, net[0].running_var is bn.running_var)
bn3(x)
nn.MaxPool3d(2)(s)
nn.InstanceNorm2d(32)(v)
`
	rows, path := runCensus(t, src)
	want := map[int]string{
		8:  "CudnnBatchNormBackward0 torch.Size([4, 16, 4, 16, 16]) MaxPool3DWithIndicesBackward0 AvgPool3DBackward0\n",
		12: "torch.Size([4, 16, 250]) SqueezeBackward1 SqueezeBackward1 AvgPool1d(kernel_size=(4,), stride=(4,), padding=(0,))\n",
		17: "ViewBackward0 CudnnBatchNormBackward0 False\n",
		20: "SyncBatchNorm True True\n",
	}
	for line, w := range want {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	const mib = 1 << 20
	for line, grew := range map[int]int64{
		5:  2*mib + 1024,        // the output, a float32 mean and inverse std per channel (saved)
		6:  mib/4 + mib/2,       // the output and its int64 indices (saved)
		7:  mib / 4,             // the output
		10: 64000 + 128000,      // max_pool2d's output and indices, viewed
		11: 64000,               // avg_pool2d's output, viewed
		14: mib/4 + 1024 + 1024, // batch norm of (1, 256, 16, 16) without weights: the output, mean and inverse std
		16: mib/4 + 512 + 512,   // cuDNN's batch norm
	} {
		if got := rows[line].Allocated - rows[line-1].Allocated; got != grew {
			t.Errorf("line %d allocated %d more, want %d", line, got, grew)
		}
	}
	// 5, 6, 7: BatchNorm3d and the 3-d poolings (held to modules_census.py);
	// 14: InstanceNorm2d without running stats, recorded (modules_census.py)
	for _, line := range []int{5, 6, 7, 10, 11, 14, 16} {
		if r := rows[line]; r.Estimates != nil {
			t.Errorf("line %d runs recorded rules, yet estimated: %q", line, r.Estimates)
		}
	}
	for line, e := range map[int]string{
		21: "ValueError: expected 5D input (got 4D input)",
		22: "RuntimeError: non-empty 4D or 5D (batch mode) tensor expected for input",
		23: "ValueError: expected 3D or 4D input (got 5D input)",
	} {
		if r := rows[line]; r.Error == nil || !strings.Contains(*r.Error, e) {
			t.Errorf("line %d: error %v, want %q", line, r.Error, e)
		}
	}
	// under --strict the run ends at line 21's error, PyTorch's, as without
	out, errOut, code := run(t, "run", "--fake-host", "--device", "sim", "--strict", path)
	if code != 1 || strings.Contains(errOut, "NotImplementedError") || !strings.Contains(errOut, "File \""+path+"\", line 21, in <module>") || !strings.Contains(out, "\n 20 > print(") {
		t.Errorf("--strict: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCensusEagerNames: what model code calls beyond layers, in one
// process. torch._foreach_* in place allocates nothing and out of place a
// result a tensor (an estimate); torch.jit.script gives back the module
// (the note once, on stderr) and torch.jit.trace runs it once (an
// estimate); DataParallel over one GPU runs the module on its inputs;
// sdpa_kernel enabling PyTorch's picks changes nothing, narrowing them is
// refused; torch.distributed before init_process_group fails as PyTorch
// does; torch.fx's classes answer isinstance and refuse to be made.
func TestCensusEagerNames(t *testing.T) {
	t.Parallel()
	src := `import torch
import torch.nn as nn
import torch.distributed as dist
from torch.nn.attention import SDPBackend, sdpa_kernel
a = [torch.zeros(1024, device='cuda') for _ in range(3)]
b = [torch.ones(1024, device='cuda') for _ in range(3)]
torch._foreach_add_(a, b, alpha=2); torch._foreach_mul_(a, 0.5); torch._foreach_copy_(a, b); torch._foreach_sub_(a, b)
c = torch._foreach_sub(b, a)
print(a[0].shape, len(c))
m = nn.Linear(64, 64).cuda()
print(torch.jit.script(m) is m, torch.jit.script(m) is m)
x = torch.rand(8, 64, device='cuda')
t = torch.jit.trace(m, x)
dp = nn.DataParallel(m)
y = dp(x)
print(t is m, y.shape, list(dp.state_dict()))
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
    pass
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    pass
dist.all_reduce(x)
nn.parallel.DistributedDataParallel(m)
dist.init_process_group('nccl')
print(isinstance(x, torch.fx.Proxy), dist.is_initialized(), dist.get_default_backend_for_device('cuda'))
torch.fx.GraphModule(m, None)
`
	rows, path := runCensus(t, src)
	want := map[int]string{
		9:  "torch.Size([1024]) 3\n",
		11: "True True\n",
		16: "True torch.Size([8, 64]) ['module.weight', 'module.bias']\n",
		24: "False False nccl\n",
	}
	for line, w := range want {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	if r := rows[7]; r.Allocated != rows[6].Allocated || r.Estimates != nil {
		t.Errorf("in-place foreach ops: %d allocated after %d, estimates %q", r.Allocated, rows[6].Allocated, r.Estimates)
	}
	if r := rows[8]; r.Allocated-rows[7].Allocated != 3*4096 || len(r.Estimates) != 1 || !strings.HasPrefix(r.Estimates[0], "torch._foreach_sub [1024] float32") {
		t.Errorf("foreach_sub: %d more, estimates %q", r.Allocated-rows[7].Allocated, r.Estimates)
	}
	if r := rows[13]; len(r.Estimates) != 1 || !strings.HasPrefix(r.Estimates[0], "torch.jit.trace [8, 64] float32: the function run once") {
		t.Errorf("trace: estimates %q", r.Estimates)
	}
	if r := rows[15]; r.Allocated-rows[14].Allocated != 8*64*4 || r.Estimates != nil {
		t.Errorf("DataParallel over one GPU: %d more (the output alone), estimates %q", r.Allocated-rows[14].Allocated, r.Estimates)
	}
	for line, e := range map[int]string{
		19: "NotImplementedError: sdpa_kernel([<SDPBackend.FLASH_ATTENTION: 1>]) is not modelled by gpumemrepl",
		21: "ValueError: Default process group has not been initialized, please make sure to call init_process_group.",
		22: "ValueError: Default process group has not been initialized, please make sure to call init_process_group.",
		23: "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set",
		25: "NotImplementedError: torch.fx.GraphModule is not modelled by gpumemrepl",
	} {
		if r := rows[line]; r.Error == nil || !strings.Contains(*r.Error, e) {
			t.Errorf("line %d: error %v, want %q", line, r.Error, e)
		}
	}
	if r := rows[17]; r.Error != nil {
		t.Errorf("sdpa_kernel with PyTorch's picks: %s", *r.Error)
	}
	_, errOut, _ := run(t, "run", "--fake-host", "--device", "sim", "--keep-going", path)
	if n := strings.Count(errOut, "gpumemrepl: torch.jit.script and torch.jit.trace give back the function or module itself here"); n != 1 {
		t.Errorf("the TorchScript note printed %d times:\n%s", n, errOut)
	}
	_, errOut, code := run(t, "run", "--fake-host", "--device", "sim", "--strict", path)
	if code != 1 || !strings.Contains(errOut, "NotImplementedError: torch._foreach_sub [1024] float32") {
		t.Errorf("--strict: exit %d\n%s", code, errOut)
	}
}

// TestCensusDropoutShufflePad: Dropout2d draws a noise of one value a
// channel and multiplies it in (the input itself in eval), PixelShuffle
// makes one output, the padding layers pad through F.pad (reflect's
// backward now the poolings'), AdaptiveAvgPool1d is the 2-d pooling
// squeezed back, LocalResponseNorm is PyTorch's composite: recorded
// rules, no estimate.
func TestCensusDropoutShufflePad(t *testing.T) {
	t.Parallel()
	src := `import torch
import torch.nn as nn
x = torch.rand(8, 64, 32, 32, device='cuda', requires_grad=True)
d = nn.Dropout2d(0.2)
y = d(x)
d.eval()
print(d, y.grad_fn.name(), d(x) is x)
z = nn.PixelShuffle(2)(x)
print(z.shape, z.grad_fn.name())
r = nn.ReflectionPad2d(1)(x)
r.sum().backward()
print(r.shape, nn.ReflectionPad2d(1), nn.ZeroPad2d((1, 2, 3, 4)), nn.ZeroPad2d(2)(x).shape)
s = torch.rand(4, 16, 100, device='cuda')
a = nn.AdaptiveAvgPool1d(4)(s)
print(a.shape, a.grad_fn, nn.AdaptiveAvgPool3d(1)(x.unsqueeze(2)).shape)
lrn = nn.LocalResponseNorm(5)
print(lrn, lrn(x).grad_fn.name(), nn.functional.local_response_norm(s, 3).shape)
`
	rows, _ := runCensus(t, src)
	want := map[int]string{
		7:  "Dropout2d(p=0.2, inplace=False) MulBackward0 True\n",
		9:  "torch.Size([8, 16, 64, 64]) PixelShuffleBackward0\n",
		12: "torch.Size([8, 64, 34, 34]) ReflectionPad2d((1, 1, 1, 1)) ZeroPad2d((1, 2, 3, 4)) torch.Size([8, 64, 36, 36])\n",
		15: "torch.Size([4, 16, 4]) None torch.Size([8, 64, 1, 1, 1])\n",
		17: "LocalResponseNorm(5, alpha=0.0001, beta=0.75, k=1.0) DivBackward0 torch.Size([4, 16, 100])\n",
	}
	for line, w := range want {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	const mib = 1 << 20
	for line, grew := range map[int]int64{
		5:  2*mib + 2048, // the noise, one float a channel (saved), and the output
		8:  2 * mib,      // one output
		14: 4 * 16 * 4 * 4,
	} {
		if got := rows[line].Allocated - rows[line-1].Allocated; got != grew {
			t.Errorf("line %d allocated %d more, want %d", line, got, grew)
		}
	}
	// dropout2d, pixel_shuffle and pad, recorded (modules_census_nn.py,
	// modules_census.py, ops_pad_interpolate.py)
	for _, line := range []int{5, 8, 10} {
		if r := rows[line]; r.Estimates != nil {
			t.Errorf("line %d: estimates %q, want none", line, r.Estimates)
		}
	}
	if r := rows[11]; r.Error != nil {
		t.Errorf("reflection padding's backward: %s", *r.Error)
	}
	if r := rows[14]; r.Estimates != nil {
		t.Errorf("AdaptiveAvgPool1d runs recorded rules, yet estimated: %q", r.Estimates)
	}
}

// TestCensusSettingsAndPlans: the settings and plans model code names
// around training, none of which allocates: torch.backends.cudnn.flags
// sets the flags the session reads at each convolution (flags() turns
// cuDNN off, so a convolution in it is refused) and restores them;
// torch._dynamo.config and torch._inductor.config take what nanoGPT
// sets; FSDP needs a process group, as DDP; its wrap policy, the
// tensor-parallel plans and torch.nn.modules.utils work as PyTorch's;
// torch.cuda.manual_seed, _shape_as_tensor and the host's autocast
// queries answer; DistributedSampler takes one replica's share, and
// without num_replicas asks the process group that is not there.
func TestCensusSettingsAndPlans(t *testing.T) {
	t.Parallel()
	src := `import torch
import torch._inductor.config
from torch.nn.modules.utils import _pair, _ntuple
from torch.distributed.fsdp import FullyShardedDataParallel, ShardingStrategy
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
torch._inductor.config.coordinate_descent_tuning = True
torch._dynamo.config.automatic_dynamic_shapes = False
torch.cuda.manual_seed(0)
with torch.backends.cudnn.flags(enabled=False):
    torch.nn.functional.conv2d(torch.rand(1, 3, 8, 8, device='cuda'), torch.rand(4, 3, 3, 3, device='cuda'))
print(torch.backends.cudnn.enabled, _pair(3), _ntuple(3)([1, 2, 3]), torch._shape_as_tensor(torch.zeros(2, 5)))
print(transformer_auto_wrap_policy(torch.nn.Linear(2, 2), False, 0, {torch.nn.Linear}), ColwiseParallel().output_layouts, RowwiseParallel().output_layouts)
FullyShardedDataParallel(torch.nn.Linear(2, 2), sharding_strategy=ShardingStrategy.FULL_SHARD)
from torch.utils.data.distributed import DistributedSampler
ds = torch.utils.data.TensorDataset(torch.zeros(10, 1))
print(list(DistributedSampler(ds, num_replicas=3, rank=1, shuffle=False)), torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype())
DistributedSampler(ds)
`
	rows, _ := runCensus(t, src)
	want := map[int]string{
		12: "True (3, 3) (1, 2, 3) tensor([2, 5])\n",
		13: "True (Shard(dim=-1),) (Replicate(),)\n",
		17: "[1, 4, 7, 0] False torch.bfloat16\n",
	}
	for line, w := range want {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	for line, e := range map[int]string{
		10: "NotImplementedError: F.conv2d under torch.backends.cudnn.enabled=False",
		14: "ValueError: Default process group has not been initialized, please make sure to call init_process_group.",
		18: "ValueError: Default process group has not been initialized, please make sure to call init_process_group.",
	} {
		if r := rows[line]; r.Error == nil || !strings.Contains(*r.Error, e) {
			t.Errorf("line %d: error %v, want %q", line, r.Error, e)
		}
	}
	for _, line := range []int{2, 7, 8, 9} {
		if r := rows[line]; r.Error != nil {
			t.Errorf("line %d: %s", line, *r.Error)
		}
	}
}

// TestCensusTransformerEncoder: nn.TransformerEncoder deep-copies its
// layer num_layers times (the copies' parameters, not the layer's),
// warns as PyTorch does that its nested-tensor path is off, runs the
// copies in turn with is_causal given, and refuses a mask without it.
func TestCensusTransformerEncoder(t *testing.T) {
	t.Parallel()
	src := `import torch
import torch.nn as nn
layer = nn.TransformerEncoderLayer(256, 8, 1024)
enc = nn.TransformerEncoder(layer, 4, norm=nn.LayerNorm(256)).cuda()
x = torch.rand(32, 8, 256, device='cuda')
y = enc(x, mask=nn.Transformer.generate_square_subsequent_mask(32, device='cuda'), is_causal=True)
n = sum(p.numel() for p in layer.parameters())
print(sum(p.numel() for p in enc.parameters()) == 4 * n + 512, len(enc.layers), enc.layers[0] is layer, y.grad_fn.name())
enc(x, mask=nn.Transformer.generate_square_subsequent_mask(32, device='cuda'))
print(isinstance(enc, nn.modules.transformer.TransformerEncoder))
`
	rows, path := runCensus(t, src)
	want := map[int]string{
		8:  "True 4 False NativeLayerNormBackward0\n",
		10: "True\n",
	}
	for line, w := range want {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	if got, want := rows[4].Allocated-rows[3].Allocated, int64(4*(4*(3*256*256+3*256+256*256+256+1024*256+1024+256*1024+256)+4*256*4)+2*256*4); got < want {
		t.Errorf("the encoder on the GPU holds %d bytes, less than its copies' parameters, %d", got, want)
	}
	if r := rows[9]; r.Error != nil { // the mask compared with a causal one, as PyTorch does
		t.Errorf("line 9: %s", *r.Error)
	}
	_, errOut, _ := run(t, "run", "--fake-host", "--device", "sim", "--keep-going", path)
	if !strings.Contains(errOut, "UserWarning: enable_nested_tensor is True, but self.use_nested_tensor is False because encoder_layer.self_attn.batch_first was not True(use batch_first for better inference performance)") {
		t.Errorf("no nested-tensor warning:\n%s", errOut)
	}
}

// TestCensusQueries: queries that allocate nothing: torch.is_floating_point,
// Tensor.is_cpu and is_xpu; Module.compile compiles in place, which here
// runs the module eagerly with torch.compile's note once;
// torch.serialization.safe_globals adds to the allowlist for its block;
// torch.onnx says no export is under way, and refuses one, as
// torch.multiprocessing refuses to spawn processes.
func TestCensusQueries(t *testing.T) {
	t.Parallel()
	src := `import torch
x = torch.zeros(2)
y = torch.zeros(2, device='cuda', dtype=torch.int64)
m = torch.nn.Linear(2, 2).cuda()
m.compile()
m.compile(mode='max-autotune')
print(torch.is_floating_point(x), torch.is_floating_point(y), x.is_cpu, y.is_cpu, y.is_xpu, type(m).__name__, m(y.float().view(1, 2)).shape)
import torch.serialization
with torch.serialization.safe_globals([m.__class__]):
    print(torch.serialization.get_safe_globals() == [m.__class__])
print(torch.serialization.get_safe_globals())
print(torch.onnx.is_in_onnx_export(), torch.onnx.operators.shape_as_tensor(y))
torch.multiprocessing.spawn(print, nprocs=2)
torch.onnx.export(m, (y,), 'm.onnx')
`
	rows, path := runCensus(t, src)
	if got, want := rows[7].Output, "True False True False False Linear torch.Size([1, 2])\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if got := rows[9].Output + rows[11].Output + rows[12].Output; got != "True\n[]\nFalse tensor([2])\n" {
		t.Errorf("safe_globals, onnx: printed %q", got)
	}
	for line, e := range map[int]string{13: "NotImplementedError: torch.multiprocessing.spawn is not modelled", 14: "NotImplementedError: torch.onnx.export is not modelled"} {
		if r := rows[line]; r.Error == nil || !strings.Contains(*r.Error, e) {
			t.Errorf("line %d: error %v, want %q", line, r.Error, e)
		}
	}
	if rows[6].Allocated != rows[4].Allocated {
		t.Errorf("Module.compile allocated: %d -> %d", rows[4].Allocated, rows[6].Allocated)
	}
	_, errOut, _ := run(t, "run", "--fake-host", "--device", "sim", path)
	if n := strings.Count(errOut, "gpumemrepl: torch.compile runs the model eagerly here"); n != 1 {
		t.Errorf("torch.compile's note printed %d times:\n%s", n, errOut)
	}
}

// TestCensusDefaultTypeAndProfiler: torch.set_default_tensor_type (Llama's
// torch.cuda.HalfTensor) makes the factories and layers allocate in its
// dtype on its device, with PyTorch's warning once; torch.profiler runs
// what it wraps and allocates nothing of its own, and refuses what would
// read its record.
func TestCensusDefaultTypeAndProfiler(t *testing.T) {
	t.Parallel()
	src := `import torch
torch.set_default_tensor_type(torch.cuda.HalfTensor)
e = torch.zeros(1024, 1024)
l = torch.nn.Linear(16, 16)
torch.set_default_tensor_type('torch.FloatTensor')
print(e.device, e.dtype, l.weight.device, l.weight.dtype, torch.zeros(1).device)
from torch.profiler import profile, ProfilerActivity, schedule
s = schedule(wait=1, warmup=1, active=2, repeat=1)
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True) as prof:
    x = torch.ones(256, 256, device='cuda')
print([s(i).name for i in range(5)])
prof.key_averages()
`
	rows, path := runCensus(t, src)
	for line, w := range map[int]string{
		6:  "cuda:0 torch.float16 cuda:0 torch.float16 cpu\n",
		11: "['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']\n",
	} {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	if got := rows[3].Allocated - rows[2].Allocated; got != 2<<20 {
		t.Errorf("a 1024x1024 half tensor on the GPU: %d", got)
	}
	if got := rows[9].Allocated - rows[8].Allocated; got != 256*256*4 {
		t.Errorf("the profiled block allocated %d, want its tensor's %d", got, 256*256*4)
	}
	if r := rows[12]; r.Error == nil || !strings.Contains(*r.Error, "NotImplementedError: torch.profiler.profile.key_averages is not modelled") {
		t.Errorf("key_averages: %v", r.Error)
	}
	_, errOut, _ := run(t, "run", "--fake-host", "--device", "sim", "--keep-going", path)
	if n := strings.Count(errOut, "UserWarning: torch.set_default_tensor_type() is deprecated as of PyTorch 2.1"); n != 1 {
		t.Errorf("the deprecation warned %d times:\n%s", n, errOut)
	}
}

// TestCensusWeightNorm: nn.utils.weight_norm splits a weight into g (its
// norms) and v (the weight's own storage), and makes the weight again
// before each forward: the fused kernel's weight and float32 norms
// (saved), held to modules_census_nn.py (the forward's one estimate is
// the conv1d's cuDNN workspace, recorded on the H100, not the simulated
// H200); backward gives g and v their gradients; remove_weight_norm
// makes it one parameter again.
func TestCensusWeightNorm(t *testing.T) {
	t.Parallel()
	src := `import torch
import torch.nn as nn
conv = nn.utils.weight_norm(nn.Conv1d(64, 128, 3)).cuda()
x = torch.rand(8, 64, 100, device='cuda')
y = conv(x)
print(sorted(n for n, _ in conv.named_parameters()), conv.weight_g.shape, conv.weight.grad_fn.name())
y.sum().backward()
print(conv.weight_g.grad.shape, conv.weight_v.grad.shape)
nn.utils.remove_weight_norm(conv)
print(sorted(n for n, _ in conv.named_parameters()))
`
	rows, _ := runCensus(t, src)
	for line, w := range map[int]string{
		6:  "['bias', 'weight_g', 'weight_v'] torch.Size([128, 1, 1]) WeightNormInterfaceBackward0\n",
		8:  "torch.Size([128, 1, 1]) torch.Size([128, 64, 3])\n",
		10: "['bias', 'weight']\n",
	} {
		if got := rows[line].Output; got != w {
			t.Errorf("line %d printed %q, want %q", line, got, w)
		}
	}
	if r := rows[5]; len(r.Estimates) != 1 || !strings.HasPrefix(r.Estimates[0], "F.conv1d [8, 64, 100] x [128, 64, 3] stride [1] float32: cuDNN's workspace recorded on NVIDIA H100") {
		t.Errorf("the forward's estimates: %q", r.Estimates)
	}
}
