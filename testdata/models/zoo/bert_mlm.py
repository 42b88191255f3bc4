# A BERT-style encoder pretrained with masked language modelling, as
# Hugging Face's modeling_bert.py lays it out: word, position and
# token-type embeddings with LayerNorm and dropout, self-attention
# written by hand (matmul, the extended attention mask added, softmax,
# dropout), GELU intermediate layers, the MLM head (dense, GELU,
# LayerNorm, a decoder tied to the word embeddings) and cross entropy
# over the 15% masked positions (-100 elsewhere); AdamW with a linear
# warmup at batch 9 x 187 tokens.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
VOCAB, HIDDEN, LAYERS, HEADS, INTER, MAX_POS, MASK_ID = 30522, 256, 4, 4, 1024, 512, 103


class BertSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_size = HIDDEN // HEADS
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.dropout = nn.Dropout(0.1)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (HEADS, self.head_size)
        return x.view(new_x_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2)) / math.sqrt(self.head_size)
        attention_scores = attention_scores + attention_mask
        attention_probs = self.dropout(nn.functional.softmax(attention_scores, dim=-1))
        context_layer = torch.matmul(attention_probs, value_layer).permute(0, 2, 1, 3).contiguous()
        return context_layer.view(context_layer.size()[:-2] + (HIDDEN,))


class BertLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = BertSelfAttention()
        self.attn_out = nn.Linear(HIDDEN, HIDDEN)
        self.attn_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.intermediate = nn.Linear(HIDDEN, INTER)
        self.output = nn.Linear(INTER, HIDDEN)
        self.out_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, attention_mask):
        attn = self.attention(hidden_states, attention_mask)
        hidden_states = self.attn_norm(self.dropout(self.attn_out(attn)) + hidden_states)
        inter = F.gelu(self.intermediate(hidden_states))
        return self.out_norm(self.dropout(self.output(inter)) + hidden_states)


class BertForMaskedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, HIDDEN, padding_idx=0)
        self.position_embeddings = nn.Embedding(MAX_POS, HIDDEN)
        self.token_type_embeddings = nn.Embedding(2, HIDDEN)
        self.emb_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.emb_dropout = nn.Dropout(0.1)
        self.layers = nn.ModuleList([BertLayer() for _ in range(LAYERS)])
        self.transform = nn.Linear(HIDDEN, HIDDEN)
        self.transform_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.decoder = nn.Linear(HIDDEN, VOCAB)
        self.decoder.weight = self.word_embeddings.weight
        self.register_buffer("position_ids", torch.arange(MAX_POS).expand((1, -1)), persistent=False)

    def forward(self, input_ids, token_type_ids, attention_mask, labels):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids) + self.position_embeddings(position_ids)
        hidden_states = self.emb_dropout(self.emb_norm(embeddings))
        extended = attention_mask[:, None, None, :].to(dtype=hidden_states.dtype)
        extended = (1.0 - extended) * torch.finfo(hidden_states.dtype).min
        for layer in self.layers:
            hidden_states = layer(hidden_states, extended)
        prediction_scores = self.decoder(self.transform_norm(F.gelu(self.transform(hidden_states))))
        return F.cross_entropy(prediction_scores.view(-1, VOCAB), labels.view(-1), ignore_index=-100)


model = BertForMaskedLM().cuda()
no_decay = ["bias", "norm.weight"]
groups = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
optimizer = torch.optim.AdamW(groups, lr=1e-4)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 10))
input_ids = torch.randint(1000, VOCAB, (9, 187), device="cuda")
token_type_ids = torch.zeros_like(input_ids)
token_type_ids[:, 90:] = 1
attention_mask = torch.ones_like(input_ids)
attention_mask[:, 170:] = 0
probability = torch.full(input_ids.shape, 0.15, device="cuda")
masked = torch.bernoulli(probability).bool()
labels = input_ids.clone()
labels[~masked] = -100
input_ids[masked] = MASK_ID
print(f"model and batch: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for step in range(2):
    loss = model(input_ids, token_type_ids, attention_mask, labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    print(f"step {step}: mlm loss {loss.item():.3f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB")

print(f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
