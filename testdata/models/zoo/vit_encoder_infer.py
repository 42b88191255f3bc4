# A ViT classifier built on nn.TransformerEncoder (batch_first, pre-norm,
# GELU), as torchvision's vision_transformer.py builds its encoder, run
# in eval under torch.no_grad at batch 33 on 96x96 images with 8x8
# patches (144 patches and a class token).
import torch
import torch.nn as nn

torch.manual_seed(0)


class ViT(nn.Module):
    def __init__(self, image_size=96, patch_size=8, hidden_dim=192, num_layers=4, num_heads=3, mlp_dim=768, num_classes=100):
        super().__init__()
        self.patch_size = patch_size
        self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2 + 1
        self.class_token = nn.Parameter(torch.zeros(1, 1, hidden_dim))
        self.pos_embedding = nn.Parameter(torch.empty(1, seq_length, hidden_dim).normal_(std=0.02))
        layer = nn.TransformerEncoderLayer(hidden_dim, num_heads, mlp_dim, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, norm=nn.LayerNorm(hidden_dim), enable_nested_tensor=False)
        self.heads = nn.Linear(hidden_dim, num_classes)

    def forward(self, x):
        n = x.shape[0]
        x = self.conv_proj(x)
        x = x.reshape(n, x.shape[1], -1).permute(0, 2, 1)
        x = torch.cat([self.class_token.expand(n, -1, -1), x], dim=1)
        x = self.encoder(x + self.pos_embedding)
        return self.heads(x[:, 0])


model = ViT().cuda()
model.eval()
images = torch.randn(33, 3, 96, 96, device="cuda")
print(f"weights and batch: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")

with torch.no_grad():
    logits = model(images)
    pred = logits.argmax(-1)

print(pred.shape)
print(f"allocated {torch.cuda.memory_allocated() / 2**20:.2f} MiB, peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.2f} MiB")
