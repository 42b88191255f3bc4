# Whisper's audio encoder (openai/whisper's model.py): two Conv1d layers
# over an 80-bin log-mel spectrogram (the second with stride 2, 3000
# frames to 1500), GELU, sinusoidal positions, residual attention blocks
# (query/key/value Linears, the key without a bias, scaled dot product
# attention, a GELU MLP) and a final LayerNorm; in float16 under no_grad
# on a batch of 3 thirty-second clips, as transcription runs it.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_MELS, N_CTX, N_STATE, N_HEAD, N_LAYER = 80, 1500, 384, 6, 4


def sinusoids(length, channels, max_timescale=10000):
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


class MultiHeadAttention(nn.Module):
    def __init__(self, n_state, n_head):
        super().__init__()
        self.n_head = n_head
        self.query = nn.Linear(n_state, n_state)
        self.key = nn.Linear(n_state, n_state, bias=False)
        self.value = nn.Linear(n_state, n_state)
        self.out = nn.Linear(n_state, n_state)

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        n_batch, n_ctx, n_state = q.shape
        q = q.view(*q.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        k = k.view(*k.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        v = v.view(*v.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        a = F.scaled_dot_product_attention(q, k, v)
        return self.out(a.permute(0, 2, 1, 3).flatten(start_dim=2))


class ResidualAttentionBlock(nn.Module):
    def __init__(self, n_state, n_head):
        super().__init__()
        self.attn = MultiHeadAttention(n_state, n_head)
        self.attn_ln = nn.LayerNorm(n_state)
        self.mlp = nn.Sequential(nn.Linear(n_state, n_state * 4), nn.GELU(), nn.Linear(n_state * 4, n_state))
        self.mlp_ln = nn.LayerNorm(n_state)

    def forward(self, x):
        x = x + self.attn(self.attn_ln(x))
        return x + self.mlp(self.mlp_ln(x))


class AudioEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(N_MELS, N_STATE, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(N_STATE, N_STATE, kernel_size=3, stride=2, padding=1)
        self.register_buffer("positional_embedding", sinusoids(N_CTX, N_STATE))
        self.blocks = nn.ModuleList([ResidualAttentionBlock(N_STATE, N_HEAD) for _ in range(N_LAYER)])
        self.ln_post = nn.LayerNorm(N_STATE)

    def forward(self, x):
        x = F.gelu(self.conv1(x))
        x = F.gelu(self.conv2(x))
        x = x.permute(0, 2, 1)
        x = (x + self.positional_embedding).to(x.dtype)
        for block in self.blocks:
            x = block(x)
        return self.ln_post(x)


encoder = AudioEncoder().cuda().half()
encoder.eval()
mel = torch.randn(3, N_MELS, 3000, device="cuda").half()
print(f"encoder weights and mel: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

with torch.no_grad():
    audio_features = encoder(mel)
    pooled = audio_features.float().mean(dim=1)

print(audio_features.shape, audio_features.dtype)
print(f"allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")
