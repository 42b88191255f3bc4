# A sequence classifier over variable-length sequences, trained for a few
# steps: an Embedding, a bidirectional two-layer LSTM with dropout over
# packed sequences (pack_padded_sequence with enforce_sorted=False, as
# text-classification tutorials write it), the last states concatenated
# into a Linear, cross entropy and Adam; then evaluated under no_grad.
# --events.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence

torch.manual_seed(0)
vocab, emb, hidden, classes, batch = 5003, 128, 192, 7, 24


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, bidirectional=True, dropout=0.3, batch_first=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return self.head(torch.cat([h[-2], h[-1]], dim=1))


model = Classifier().cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
lengths = [37, 12, 29, 40, 8, 33, 21, 40, 17, 26, 5, 31, 40, 19, 23, 11, 36, 28, 14, 40, 9, 25, 32, 16]
tokens = torch.randint(1, vocab, (batch, 40), device='cuda')
labels = torch.randint(0, classes, (batch,), device='cuda')
print(f"model: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")
for step in range(3):
    loss = nn.functional.cross_entropy(model(tokens, lengths), labels)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step}: allocated {torch.cuda.memory_allocated() / 2**20:.2f} MiB, peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB")
model.eval()
with torch.no_grad():
    pred = model(tokens, lengths).argmax(dim=1)
print(f"eval: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")
