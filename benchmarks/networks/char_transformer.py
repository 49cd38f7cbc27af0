"""A small causal transformer language model over characters: token and position embeddings, pre-norm blocks of
masked self-attention and a GELU MLP, a final norm and a linear head tied to nothing."""

from __future__ import annotations

import torch
from torch import nn


class CharTransformer(nn.Module):
    """(B, T) character ids -> (B, T, vocabulary) logits of the next character at each position."""

    def __init__(self, vocabulary: int, context: int, *, width: int = 64, layers: int = 2, heads: int = 4):
        super().__init__()
        self.token_embedding = nn.Embedding(vocabulary, width)
        self.position_embedding = nn.Embedding(context, width)
        block = nn.TransformerEncoderLayer(
            width, heads, dim_feedforward=4 * width, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.layer_norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocabulary)
        self.register_buffer("causal_mask", nn.Transformer.generate_square_subsequent_mask(context), persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        length = ids.shape[1]
        positions = torch.arange(length, device=ids.device)
        hidden = self.token_embedding(ids) + self.position_embedding(positions)
        hidden = self.blocks(hidden, mask=self.causal_mask[:length, :length], is_causal=True)
        return self.head(self.layer_norm(hidden))
