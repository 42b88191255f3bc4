# Which scaled_dot_product_attention backend PyTorch 2.11 picks on the
# H200, by dtype, shape, mask, dropout and grad (torch._fused_sdp_choice:
# 0 math, 1 flash, 2 efficient, 3 cudnn), and the backends' defaults.
# Not a rule script: its output is read, not replayed.
import torch
import torch.nn.functional as F
b = torch.backends.cuda
print("flash", b.flash_sdp_enabled(), "mem_efficient", b.mem_efficient_sdp_enabled(),
      "math", b.math_sdp_enabled(), "cudnn", b.cudnn_sdp_enabled())
print("cudnn version", torch.backends.cudnn.version(), "torch", torch.__version__)
cases = []
for dt in (torch.float32, torch.bfloat16, torch.float16, torch.float64):
    for (B, H, T, D) in ((8, 4, 128, 64), (8, 4, 256, 64), (8, 4, 100, 64), (8, 4, 128, 32),
                         (8, 4, 128, 128), (8, 4, 128, 256), (8, 4, 128, 512), (1, 1, 8, 8), (8, 4, 128, 40)):
        for causal in (False, True):
            for mask in (None, "bool", "float"):
                if causal and mask:
                    continue
                for grad in (False, True):
                    for p in (0.0, 0.1):
                        q = torch.randn(B, H, T, D, device='cuda', dtype=dt, requires_grad=grad)
                        m = None
                        if mask == "bool":
                            m = torch.ones(T, T, device='cuda', dtype=torch.bool).tril()
                        elif mask == "float":
                            m = torch.zeros(T, T, device='cuda', dtype=dt)
                        c = torch._fused_sdp_choice(q, q, q, m, p, causal)
                        print(str(dt).split('.')[-1], B, H, T, D, "causal" if causal else "-", mask or "-",
                              "grad" if grad else "-", p, c)
        torch.cuda.empty_cache()
