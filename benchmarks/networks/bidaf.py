"""BiDAF: Bidirectional Attention Flow for machine comprehension (Seo et al., ICLR 2017).

The reader behind the DAWN team's SQuAD entries (`dawn_bidaf_*`, trained with allenai/bi-att-flow). Six
layers, as in the paper's figure 1:

1. character embedding: each word's characters embedded (8 dims), a 1-D convolution (100 filters, width 5)
   and the maximum over the word;
2. word embedding (trainable, from GloVe where given), concatenated with (1) and passed through a two-layer
   highway network;
3. contextual embedding: one bi-LSTM (d = 100 per direction), shared by context and question;
4. attention flow: the similarity S_tj = w . [h_t; u_j; h_t * u_j], context-to-query attention u~ and
   query-to-context attention h~, and G = [h; u~; h * u~; h * h~];
5. modeling: a two-layer bi-LSTM over G, giving M;
6. output: start logits from [G; M]; end logits from [G; M2] with M2 a bi-LSTM over M.

Padding is masked everywhere it could leak: the LSTMs read packed sequences, the attention softmaxes skip
padded positions, and padded context positions get a start and end logit of `MASKED_LOGIT`, so the logits
of an example do not depend on what it is batched with. Words are padded to a fixed number of characters
by the caller (BiDAF pads every word to 16) so the character maximum sees the same windows in any batch.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

MASKED_LOGIT = -1e30  # the logit of a padded context position: never chosen, exp() is exactly 0


class CharCNN(nn.Module):
    """A word's characters embedded, convolved and max-pooled over the word: (B, L, W) -> (B, L, filters)."""

    def __init__(self, num_chars: int, char_dim: int, filters: int, width: int, dropout: float):
        super().__init__()
        self.width = width
        self.embedding = nn.Embedding(num_chars, char_dim, padding_idx=0)
        self.dropout = nn.Dropout(dropout)
        self.conv = nn.Conv1d(char_dim, filters, width)

    def forward(self, chars: torch.Tensor) -> torch.Tensor:
        batch, length, word_chars = chars.shape
        if word_chars < self.width:  # a convolution needs at least one full window
            chars = F.pad(chars, (0, self.width - word_chars))
        embedded = self.dropout(self.embedding(chars.reshape(batch * length, -1)))  # (B*L, W, char_dim)
        convolved = F.relu(self.conv(embedded.transpose(1, 2)))  # (B*L, filters, W - width + 1)
        return convolved.amax(dim=2).reshape(batch, length, -1)


class Highway(nn.Module):
    """y = t * relu(W_h x) + (1 - t) * x with the gate t = sigmoid(W_t x), layer after layer."""

    def __init__(self, dim: int, layers: int):
        super().__init__()
        self.transforms = nn.ModuleList(nn.Linear(dim, dim) for _ in range(layers))
        self.gates = nn.ModuleList(nn.Linear(dim, dim) for _ in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for transform, gate in zip(self.transforms, self.gates, strict=True):
            t = torch.sigmoid(gate(x))
            x = t * F.relu(transform(x)) + (1 - t) * x
        return x


class MaskedBiLSTM(nn.Module):
    """A bidirectional LSTM over the valid prefix of each row (packed), dropout on its input and between
    layers; padded positions of the output are zero. (B, L, input) -> (B, L, 2 * hidden)."""

    def __init__(self, input_size: int, hidden_size: int, layers: int, dropout: float):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(
            input_size,
            hidden_size,
            num_layers=layers,
            batch_first=True,
            bidirectional=True,
            dropout=dropout if layers > 1 else 0.0,
        )

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        # Packing needs lengths on the CPU; an empty row (which the data never has) is read as one pad token.
        packed = pack_padded_sequence(
            self.dropout(x), lengths.clamp(min=1).cpu(), batch_first=True, enforce_sorted=False
        )
        output, _ = self.lstm(packed)
        output, _ = pad_packed_sequence(output, batch_first=True, total_length=x.shape[1])
        return output


class AttentionFlow(nn.Module):
    """The attention flow layer: G = [h; u~; h * u~; h * h~], (B, T, 2d) and (B, J, 2d) -> (B, T, 8d)."""

    def __init__(self, dim: int):
        super().__init__()
        # S_tj = w_h . h_t + w_u . u_j + w_hu . (h_t * u_j), the trilinear alpha(h, u) of the paper, computed
        # without materialising the (B, T, J, 3 * dim) concatenation. No bias: a constant added to every S_tj
        # moves neither softmax.
        self.context_weight = nn.Linear(dim, 1, bias=False)
        self.question_weight = nn.Linear(dim, 1, bias=False)
        self.product_weight = nn.Parameter(torch.empty(dim).uniform_(-(dim**-0.5), dim**-0.5))

    def forward(
        self, h: torch.Tensor, u: torch.Tensor, context_mask: torch.Tensor, question_mask: torch.Tensor
    ) -> torch.Tensor:
        similarity = (
            self.context_weight(h)
            + self.question_weight(u).transpose(1, 2)
            + torch.bmm(h * self.product_weight, u.transpose(1, 2))
        ).float()  # (B, T, J); softmaxes in float32 whatever the autocast dtype
        similarity = similarity.masked_fill(~question_mask[:, None, :], MASKED_LOGIT)
        # Context-to-query: each context word attends over the question words.
        query_weights = similarity.softmax(dim=2).to(u.dtype)
        attended_question = torch.bmm(query_weights, u)  # (B, T, 2d)
        # Query-to-context: one attention over the context, by each word's best match in the question.
        best_match = similarity.amax(dim=2).masked_fill(~context_mask, MASKED_LOGIT)  # (B, T)
        context_weights = best_match.softmax(dim=1).to(h.dtype)
        attended_context = torch.bmm(context_weights[:, None, :], h)  # (B, 1, 2d), tiled over T below
        return torch.cat([h, attended_question, h * attended_question, h * attended_context], dim=2)


class BiDAF(nn.Module):
    """The BiDAF reader: (context words, context chars, question words, question chars) -> start and end
    logits over the context words, (B, T) each in float32, padded positions at `MASKED_LOGIT`.

    Word id 0 is padding (its embedding row stays zero); a context or question position is valid where its
    word id is not 0. Char id 0 is padding too.
    """

    def __init__(
        self,
        num_words: int,
        num_chars: int,
        *,
        word_dim: int = 100,
        char_dim: int = 8,
        char_filters: int = 100,
        char_width: int = 5,
        hidden_size: int = 100,
        highway_layers: int = 2,
        dropout: float = 0.2,
    ):
        super().__init__()
        self.word_embedding = nn.Embedding(num_words, word_dim, padding_idx=0)
        self.char_cnn = CharCNN(num_chars, char_dim, char_filters, char_width, dropout)
        self.highway = Highway(word_dim + char_filters, highway_layers)
        self.contextual = MaskedBiLSTM(word_dim + char_filters, hidden_size, layers=1, dropout=dropout)
        self.attention = AttentionFlow(2 * hidden_size)
        self.modeling = MaskedBiLSTM(8 * hidden_size, hidden_size, layers=2, dropout=dropout)
        self.end_modeling = MaskedBiLSTM(2 * hidden_size, hidden_size, layers=1, dropout=dropout)
        self.output_dropout = nn.Dropout(dropout)
        # No bias, for the same reason: the softmax over the context ignores a constant.
        self.start_output = nn.Linear(10 * hidden_size, 1, bias=False)
        self.end_output = nn.Linear(10 * hidden_size, 1, bias=False)

    @torch.no_grad()
    def load_word_vectors(self, word_ids: torch.Tensor, vectors: torch.Tensor) -> None:
        """Set the embedding rows of `word_ids` to `vectors` (pretrained, e.g. GloVe), and redraw every other
        row but padding at the pretrained vectors' scale, so known and unknown words start alike."""
        weight = self.word_embedding.weight
        if vectors.shape[1] != weight.shape[1]:
            raise ValueError(f"the vectors have {vectors.shape[1]} dimensions, the embedding {weight.shape[1]}")
        if len(word_ids):
            weight.normal_(0.0, float(vectors.std()) if vectors.numel() > 1 else 1.0)
            weight[word_ids] = vectors.to(weight.dtype)
        weight[0] = 0.0

    def embed(self, words: torch.Tensor, chars: torch.Tensor) -> torch.Tensor:
        return self.highway(torch.cat([self.word_embedding(words), self.char_cnn(chars)], dim=2))

    def forward(
        self,
        context_words: torch.Tensor,
        context_chars: torch.Tensor,
        question_words: torch.Tensor,
        question_chars: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        context_mask = context_words != 0
        question_mask = question_words != 0
        context_lengths = context_mask.sum(dim=1)
        question_lengths = question_mask.sum(dim=1)

        h = self.contextual(self.embed(context_words, context_chars), context_lengths)
        u = self.contextual(self.embed(question_words, question_chars), question_lengths)
        g = self.attention(h, u, context_mask, question_mask)
        m = self.modeling(g, context_lengths)
        m2 = self.end_modeling(m, context_lengths)

        start = self.start_output(self.output_dropout(torch.cat([g, m], dim=2))).squeeze(2)
        end = self.end_output(self.output_dropout(torch.cat([g, m2], dim=2))).squeeze(2)
        return start.float().masked_fill(~context_mask, MASKED_LOGIT), end.float().masked_fill(
            ~context_mask, MASKED_LOGIT
        )
