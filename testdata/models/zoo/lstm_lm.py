# pytorch/examples' word_language_model: an Embedding, a two-layer LSTM
# with dropout, a Linear decoder with tied weights, trained with
# truncated backpropagation through time (35 steps, batch 20, hidden
# state detached between batches), clip_grad_norm_ and the example's
# manual SGD update, then evaluated under no_grad.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1111)
device = torch.device("cuda")
ntokens, emsize, nhid, nlayers, bptt, batch_size, lr = 10007, 256, 256, 2, 35, 20, 20.0


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.decoder.out_features)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


train_data = torch.randint(0, ntokens, (3 * bptt + 1, batch_size), device=device)
model = RNNModel(ntokens, emsize, nhid, nlayers).to(device)
criterion = nn.NLLLoss()
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")
model.train()
hidden = model.init_hidden(batch_size)

for i in range(0, train_data.size(0) - 1, bptt):
    seq_len = min(bptt, len(train_data) - 1 - i)
    data, targets = train_data[i : i + seq_len], train_data[i + 1 : i + 1 + seq_len].view(-1)
    model.zero_grad()
    hidden = repackage_hidden(hidden)
    output, hidden = model(data, hidden)
    loss = criterion(output, targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    print(f"batch {i // bptt}: loss {loss.item():.2f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

model.eval()
with torch.no_grad():
    hidden = model.init_hidden(batch_size)
    output, hidden = model(train_data[:bptt], hidden)
print(f"eval: peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
