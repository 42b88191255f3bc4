# The PyTorch tutorial's sequence-to-sequence translation network with
# GRUs (an EncoderRNN and an attention decoder, Bahdanau-style additive
# attention, teacher forcing over MAX_LENGTH steps), trained on a batch
# of 32 sentence pairs with NLLLoss and Adam.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = torch.device("cuda")
SOS_token, MAX_LENGTH = 0, 10
input_lang_n_words, output_lang_n_words, hidden_size, batch_size = 4345, 2803, 128, 32


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super().__init__()
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        return self.gru(embedded)


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        for i in range(MAX_LENGTH):
            decoder_output, decoder_hidden = self.forward_step(decoder_input, decoder_hidden, encoder_outputs)
            decoder_outputs.append(decoder_output)
            if target_tensor is not None:
                decoder_input = target_tensor[:, i].unsqueeze(1)
            else:
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        return F.log_softmax(decoder_outputs, dim=-1), decoder_hidden

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.dropout(self.embedding(input))
        query = hidden.permute(1, 0, 2)
        context, _ = self.attention(query, encoder_outputs)
        output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
        return self.out(output), hidden


encoder = EncoderRNN(input_lang_n_words, hidden_size).to(device)
decoder = AttnDecoderRNN(hidden_size, output_lang_n_words).to(device)
encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=0.001)
decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=0.001)
criterion = nn.NLLLoss()
input_tensor = torch.randint(1, input_lang_n_words, (batch_size, MAX_LENGTH), device=device)
target_tensor = torch.randint(1, output_lang_n_words, (batch_size, MAX_LENGTH), device=device)
print(f"models: {torch.cuda.memory_allocated() / 2**20:.2f} MiB")

for epoch in range(2):
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    encoder_outputs, encoder_hidden = encoder(input_tensor)
    decoder_outputs, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)
    loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}, allocated {torch.cuda.memory_allocated() / 2**20:.2f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.2f} MiB")

with torch.no_grad():
    encoder_outputs, encoder_hidden = encoder(input_tensor[:1])
    decoder_outputs, _ = decoder(encoder_outputs, encoder_hidden)
    decoded_ids = decoder_outputs.topk(1)[1].squeeze()
print(f"peak {torch.cuda.max_memory_allocated() / 2**20:.2f} MiB")
