# The code paths of the model zoo (testdata/models/zoo) that no other rule
# script records, at the zoo's shapes, each alone so its peak shows:
# torch.bernoulli (bert_mlm); F.layer_norm of a permuted input, float32
# trained (convnext_train, clip_train) and float16 under no_grad
# (whisper_encoder); a convolution whose incoming gradient is not
# contiguous (vit_train's patch embedding flattened and transposed,
# convnext_train's depthwise conv permuted); F.conv1d of a transposed
# input (pointnet_cls) forward and backward; torch.max along an innermost
# dimension of 1111 with its indices and torch.norm over two dimensions
# (pointnet_cls); F.batch_norm with float16 weights and running stats
# under inference_mode (resnet18_fp16_infer); argmax over the last
# position's logits, a strided bfloat16 row (llama_generate);
# index_add_ of a source that needs grad and its backward (moe_train);
# RMSprop with momentum and weight decay, foreach, two steps
# (unet_train); F.embedding's backward over 4096 indices into a 65-row
# table (ckpt_gpt_train); F.embedding_bag in sum mode with offsets over
# 387 indices into dlrm_train's table sizes; nn.Transformer's encoder and
# decoder in eval under no_grad, decoding greedily one position at a time
# (1 to 12 positions over a memory of 20: the attention fast path at
# lengths that are not multiples of 8, seq2seq_transformer).
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
p = torch.full((9, 187), 0.15, device='cuda')
m = torch.bernoulli(p)
print(f"bernoulli: {used()} {m.dtype}")
del m, p
x = torch.randn(6, 96, 14, 14, device='cuda', requires_grad=True)
ln = nn.LayerNorm(96, eps=1e-6).cuda()
torch.cuda.reset_peak_memory_stats()
y = ln(x.permute(0, 2, 3, 1))
print(f"layer_norm permuted: {used()} {peak()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"layer_norm permuted backward: {used()} {peak()}")
del y, ln, x
x = torch.randn(50, 24, 256, device='cuda', requires_grad=True)
ln = nn.LayerNorm(256).cuda()
torch.cuda.reset_peak_memory_stats()
y = ln(x.permute(1, 0, 2))
print(f"layer_norm LND: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"layer_norm LND backward: {used()} {peak()}")
del y, ln, x
ln = nn.LayerNorm(384).cuda().half()
with torch.no_grad():
    h = torch.randn(3, 384, 1500, device='cuda', dtype=torch.float16).permute(0, 2, 1)
    torch.cuda.reset_peak_memory_stats()
    y = ln(h)
    print(f"layer_norm half permuted: {used()} {peak()}")
del y, h, ln
conv = nn.Conv2d(3, 384, kernel_size=16, stride=16).cuda()
img = torch.randn(10, 3, 224, 224, device='cuda')
t = conv(img).flatten(2).transpose(1, 2)
print(f"patch embedding: {used()} {t.shape}")
torch.cuda.reset_peak_memory_stats()
(t * 2).sum().backward()
print(f"patch embedding backward: {used()} {peak()}")
del t, conv, img
dw = nn.Conv2d(96, 96, kernel_size=7, padding=3, groups=96).cuda()
x = torch.randn(6, 96, 14, 14, device='cuda', requires_grad=True)
y = dw(x).permute(0, 2, 3, 1)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"depthwise permuted backward: {used()} {peak()}")
del y, dw, x
pts = torch.randn(14, 1111, 3, device='cuda', requires_grad=True)
c1 = nn.Conv1d(3, 64, 1).cuda()
torch.cuda.reset_peak_memory_stats()
f = c1(pts.transpose(2, 1))
print(f"conv1d transposed: {used()} {peak()} {f.shape}")
torch.cuda.reset_peak_memory_stats()
f.sum().backward()
print(f"conv1d transposed backward: {used()} {peak()}")
del f, c1, pts
g = torch.randn(14, 1024, 1111, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
v, i = torch.max(g, 2, keepdim=True)
print(f"max dim 2: {used()} {peak()} {v.grad_fn.name()} {i.dtype}")
torch.cuda.reset_peak_memory_stats()
v.sum().backward()
print(f"max dim 2 backward: {used()} {peak()}")
del v, i, g
t = torch.randn(14, 64, 64, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
n = torch.mean(torch.norm(t, dim=(1, 2)))
print(f"norm dims: {used()} {peak()} {n.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
n.backward()
print(f"norm dims backward: {used()} {peak()}")
del n, t
bn = nn.BatchNorm2d(64).cuda().half().eval()
with torch.inference_mode():
    b = torch.randn(5, 64, 40, 40, device='cuda', dtype=torch.float16)
    torch.cuda.reset_peak_memory_stats()
    o = bn(b)
    print(f"batch_norm half eval: {used()} {peak()} {o.dtype}")
    del o, b
del bn
logits = torch.randn(4, 9, 32000, device='cuda', dtype=torch.bfloat16)
torch.cuda.reset_peak_memory_stats()
tok = torch.argmax(logits[:, -1], dim=-1)
print(f"argmax last position: {used()} {peak()} {tok.shape}")
del tok, logits
out = torch.zeros(444, 256, device='cuda')
src = torch.randn(111, 256, device='cuda', requires_grad=True)
idx = torch.arange(0, 444, 4, device='cuda')
torch.cuda.reset_peak_memory_stats()
r = out.index_add(0, idx, src * 2)
print(f"index_add: {used()} {peak()} {r.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
r.sum().backward()
print(f"index_add backward: {used()} {peak()}")
del r, out, src, idx
net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.Conv2d(32, 2, 1)).cuda()
opt = torch.optim.RMSprop(net.parameters(), lr=1e-5, weight_decay=1e-8, momentum=0.999, foreach=True)
inp = torch.randn(3, 3, 32, 32, device='cuda')
for step in range(2):
    net(inp).sum().backward()
    torch.cuda.reset_peak_memory_stats()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"RMSprop step {step}: {used()} {peak()}")
del net, opt, inp
wte = nn.Embedding(65, 384).cuda()
ids = torch.randint(0, 65, (16, 256), device='cuda')
e = wte(ids)
torch.cuda.reset_peak_memory_stats()
e.sum().backward()
print(f"embedding 4096 backward: {used()} {peak()}")
del e, wte, ids
offsets = torch.arange(0, 387, 3, device='cuda')
for rows in (3, 24, 1460, 28618):
    bag = nn.EmbeddingBag(rows, 16, mode='sum').cuda()
    ids = torch.randint(0, rows, (387,), device='cuda')
    o = bag(ids, offsets)
    torch.cuda.reset_peak_memory_stats()
    o.sum().backward()
    print(f"embedding_bag {rows} backward: {used()} {peak()}")
    del o, bag, ids
tf = nn.Transformer(d_model=256, nhead=8, num_encoder_layers=3, num_decoder_layers=3, dim_feedforward=512, batch_first=True).cuda().eval()
print(f"Transformer: {used()}")
with torch.no_grad():
    memory = tf.encoder(torch.randn(1, 20, 256, device='cuda'), torch.zeros(20, 20, device='cuda').type(torch.bool))
    print(f"encoder 20: {used()}")
    ys = torch.randn(1, 1, 256, device='cuda')
    for i in range(12):
        torch.cuda.reset_peak_memory_stats()
        mask = (torch.triu(torch.ones((i + 1, i + 1), device='cuda')) == 1).transpose(0, 1)
        mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0)).type(torch.bool)
        out = tf.decoder(ys, memory, mask)
        print(f"decode {i + 1}: {used()} {peak()}")
        ys = torch.cat([ys, out[:, -1:]], dim=1)
del tf, memory, ys, out, mask
print(f"end: {used()}")
