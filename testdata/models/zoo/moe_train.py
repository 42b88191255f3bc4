# A sparse mixture-of-experts layer as Mixtral's (Hugging Face's
# MixtralSparseMoeBlock): a router Linear, softmax, top-2 experts per
# token renormalised, a one-hot expert mask, each expert run on the
# tokens routed to it (torch.where) and scattered back with index_add_,
# plus the load-balancing auxiliary loss; in a small pre-norm
# transformer trained with AdamW at batch 4 x 111 tokens.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, N_EXPERTS, TOP_K, FFN, VOCAB = 256, 8, 2, 512, 5003


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(D, FFN, bias=False)
        self.w2 = nn.Linear(FFN, D, bias=False)
        self.w3 = nn.Linear(D, FFN, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoeBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, N_EXPERTS, bias=False)
        self.experts = nn.ModuleList([Expert() for _ in range(N_EXPERTS)])

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, TOP_K, dim=-1)
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final_hidden_states = torch.zeros((batch_size * sequence_length, hidden_dim), dtype=hidden_states.dtype, device=hidden_states.device)
        expert_mask = F.one_hot(selected_experts, num_classes=N_EXPERTS).permute(2, 1, 0)
        for expert_idx in range(N_EXPERTS):
            idx, top_x = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = self.experts[expert_idx](current_state) * routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
        return final_hidden_states.reshape(batch_size, sequence_length, hidden_dim), router_logits


def load_balancing_loss(router_logits):
    routing_weights = F.softmax(router_logits, dim=-1)
    _, selected_experts = torch.topk(routing_weights, TOP_K, dim=-1)
    expert_mask = F.one_hot(selected_experts, N_EXPERTS)
    tokens_per_expert = torch.mean(expert_mask.float(), dim=0)
    router_prob_per_expert = torch.mean(routing_weights, dim=0)
    return torch.sum(tokens_per_expert * router_prob_per_expert.unsqueeze(0)) * N_EXPERTS


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.attn = nn.MultiheadAttention(D, 4, batch_first=True)
        self.ln2 = nn.LayerNorm(D)
        self.moe = SparseMoeBlock()

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        moe_out, router_logits = self.moe(self.ln2(x))
        return x + moe_out, router_logits


class MoeLM(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList([Layer() for _ in range(n_layers)])
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx):
        T = idx.shape[1]
        mask = torch.triu(torch.ones(T, T, device=idx.device, dtype=torch.bool), diagonal=1)
        x = self.embed(idx)
        aux = 0.0
        for layer in self.layers:
            x, router_logits = layer(x, mask)
            aux = aux + load_balancing_loss(router_logits)
        return self.head(self.norm(x)), aux


model = MoeLM().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
tokens = torch.randint(0, VOCAB, (4, 112), device="cuda")
print(f"model: {torch.cuda.memory_allocated() / 2**20:.1f} MiB")

for step in range(2):
    logits, aux = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten()) + 0.02 * aux
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.3f}, allocated {torch.cuda.memory_allocated() / 2**20:.1f} MiB, reserved {torch.cuda.memory_reserved() / 2**20:.1f} MiB, peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
