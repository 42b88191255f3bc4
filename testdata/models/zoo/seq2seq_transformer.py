# The PyTorch translation tutorial's Seq2SeqTransformer: nn.Transformer
# (3 encoder and 3 decoder layers, d_model 256, batch_first), token
# embeddings scaled by sqrt(d_model), sinusoidal positional encoding,
# a square subsequent mask for the target and padding masks, cross
# entropy ignoring the pad index; two Adam steps on a batch of 57
# sentence pairs, then greedy decoding of one sentence in eval.
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
DEVICE = torch.device("cuda")
SRC_VOCAB, TGT_VOCAB, EMB, NHEAD, FFN, PAD_IDX, BOS_IDX = 19215, 10838, 256, 8, 512, 1, 2


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size, dropout, maxlen=5000):
        super().__init__()
        den = torch.exp(-torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pos_embedding", pos_embedding.unsqueeze(0))

    def forward(self, token_embedding):
        return self.dropout(token_embedding + self.pos_embedding[:, : token_embedding.size(1), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, emb_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.Transformer(d_model=EMB, nhead=NHEAD, num_encoder_layers=3, num_decoder_layers=3,
                                          dim_feedforward=FFN, dropout=0.1, batch_first=True)
        self.generator = nn.Linear(EMB, TGT_VOCAB)
        self.src_tok_emb = TokenEmbedding(SRC_VOCAB, EMB)
        self.tgt_tok_emb = TokenEmbedding(TGT_VOCAB, EMB)
        self.positional_encoding = PositionalEncoding(EMB, dropout=0.1)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None, src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src, src_mask):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt, memory, tgt_mask):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz), device=DEVICE)) == 1).transpose(0, 1)
    return mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))


def create_mask(src, tgt):
    src_seq_len, tgt_seq_len = src.shape[1], tgt.shape[1]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
    src_mask = torch.zeros((src_seq_len, src_seq_len), device=DEVICE).type(torch.bool)
    return src_mask, tgt_mask, (src == PAD_IDX), (tgt == PAD_IDX)


model = Seq2SeqTransformer().to(DEVICE)
for p in model.parameters():
    if p.dim() > 1:
        nn.init.xavier_uniform_(p)
loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
optimizer = torch.optim.Adam(model.parameters(), lr=0.0001, betas=(0.9, 0.98), eps=1e-9)
src = torch.randint(3, SRC_VOCAB, (57, 23), device=DEVICE)
tgt = torch.randint(3, TGT_VOCAB, (57, 20), device=DEVICE)
src[:, 20:] = PAD_IDX
tgt[:, 17:] = PAD_IDX
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

model.train()
for epoch in range(2):
    tgt_input = tgt[:, :-1]
    src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
    logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
    optimizer.zero_grad()
    tgt_out = tgt[:, 1:]
    loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

model.eval()
with torch.no_grad():
    sentence = src[:1, :20]
    memory = model.encode(sentence, torch.zeros(20, 20, device=DEVICE).type(torch.bool))
    ys = torch.ones(1, 1).fill_(BOS_IDX).type(torch.long).to(DEVICE)
    for i in range(12):
        tgt_mask = generate_square_subsequent_mask(ys.size(1)).type(torch.bool)
        out = model.decode(ys, memory, tgt_mask)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        ys = torch.cat([ys, next_word.view(1, 1)], dim=1)
print(ys.shape, f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
