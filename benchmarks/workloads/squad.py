"""BiDAF on SQuAD v1.1: the DAWN team's reference reader (`dawn_bidaf_*` entries), timed to dev F1 0.75.

Measures the time to train BiDAF (Seo et al. 2017; `benchmarks.networks.bidaf`) on the 87.6k training
questions of the official `train-v1.1.json` until its F1 on the 10.6k questions of `dev-v1.1.json`, scored
by the official v1.1 metric (`squad_eval`), reaches the threshold. The paper reports 77.3 dev F1 for one
model, with 100-dimensional GloVe 6B vectors (kept fixed there, trained here) and an exponential moving
average of the weights; this recipe keeps the paper's schedule (Adadelta at 0.5, batch 60, 12 epochs,
dropout 0.2) and skips the moving average. It has not yet been trained to the threshold here.

Text is split by a small regular expression (words, numbers, single punctuation marks) that keeps each
token's character offsets, so a predicted token span is cut from the context exactly as written. Words are
lower-cased for the word embedding (from `--embeddings`, a GloVe text file, where given) and kept as written
for the character CNN.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from benchmarks.networks.bidaf import BiDAF
from benchmarks.workloads import squad_eval
from benchmarks.workloads.base import DatasetMissing, OnnxSignature, Workload
from benchmarks.workloads.squad_data import Token, answer_span, read_glove, read_squad, tokenize

TRAIN_FILE = "train-v1.1.json"
DEV_FILE = "dev-v1.1.json"
SOURCE = "https://rajpurkar.github.io/SQuAD-explorer/"
GLOVE_SOURCE = "https://nlp.stanford.edu/projects/glove/"
PAD, UNKNOWN = 0, 1  # ids shared by the word and character vocabularies


class SquadBatch(NamedTuple):
    context_words: torch.Tensor  # (B, T) word ids, 0 past the end
    context_chars: torch.Tensor  # (B, T, max_word_chars) char ids, 0 past the end of each word
    question_words: torch.Tensor  # (B, J)
    question_chars: torch.Tensor  # (B, J, max_word_chars)
    start: torch.Tensor  # (B,) the answer's first token (0 on the dev set, where it is not used)
    end: torch.Tensor  # (B,) its last token


def best_spans(
    start_logits: torch.Tensor, end_logits: torch.Tensor, mask: torch.Tensor, max_answer_tokens: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's span maximising p_start * p_end with start <= end <= start + max_answer_tokens, both
    positions valid (`mask`). Softmax normalisation does not move the argmax, so logits are summed as is."""
    start_scores = start_logits.float().masked_fill(~mask, -math.inf)
    end_scores = end_logits.float().masked_fill(~mask, -math.inf)
    length = start_scores.shape[1]
    # scores[b, k, s] = start[s] + end[s + k]: the band of the (start, end) matrix, O(T * K) not O(T^2).
    scores = torch.stack(
        [
            F.pad(start_scores[:, : length - k] + end_scores[:, k:], (0, k), value=-math.inf)
            for k in range(min(max_answer_tokens, length - 1) + 1)
        ],
        dim=1,
    )
    best = scores.flatten(1).argmax(dim=1)
    starts = best % length
    return starts, starts + best // length


class BiDAFSquad(Workload):
    """BiDAF on SQuAD v1.1. After `load`, `skipped` counts what the data path left out, for the run record.

    Adadelta at 0.5 (rho 0.95, eps 1e-8: TensorFlow's defaults, which bi-att-flow used) is the paper's and
    the reproduced entries' optimizer; `optimizer: "adam"` (at `learning_rate` 1e-3, say) is there for
    quicker experiments. The learning rate is constant, as in the paper.
    """

    task = "squad"
    recipe = "bidaf"
    algorithm = "squad_bidaf"
    model_needs_data = True  # the embedding tables are as large as the vocabulary read
    inference_answers = "spans"
    defaults = {
        "batch_size": 60,
        "epochs": 12,
        "optimizer": "adadelta",  # or "adam"
        "learning_rate": 0.5,
        "embeddings": None,  # a GloVe text file; its dimension replaces word_dim
        "word_dim": 100,
        "char_dim": 8,
        "char_filters": 100,
        "char_width": 5,
        "hidden_size": 100,
        "highway_layers": 2,
        "dropout": 0.2,
        "min_word_count": 10,  # a training word below this count is unknown unless the embeddings have it
        "min_char_count": 50,  # bi-att-flow's thresholds
        "max_word_chars": 16,  # every word is cut or padded to this many characters
        "max_context_tokens": 400,  # longer training paragraphs are skipped
        "max_eval_context_tokens": 1000,  # longer dev paragraphs are cut (counted in `skipped`)
        "max_answer_tokens": 15,  # a predicted span holds at most this many tokens + 1
        "eval_batch_size": 100,
    }

    def __init__(self, data_dir: Path | None = None, overrides: dict[str, Any] | None = None):
        super().__init__(data_dir, overrides)
        if self.config["optimizer"] not in ("adadelta", "adam"):
            raise ValueError(f"squad/bidaf has no optimizer {self.config['optimizer']!r}: adadelta or adam.")
        self.skipped: dict[str, int] = {}
        self.last_scores: dict[str, float] = {}

    # The data path.

    def check_data(self) -> None:
        self._data_files()
        if self.config["embeddings"] is not None:
            self._embeddings_file()

    def load(self) -> None:
        train, dev = (read_squad(path) for path in self._data_files())
        max_word_chars = int(self.config["max_word_chars"])
        train_tokens = [tokenize(paragraph.context) for paragraph in train]
        train_questions = [[tokenize(question.text) for question in paragraph.questions] for paragraph in train]
        dev_tokens = [tokenize(paragraph.context) for paragraph in dev]
        dev_questions = [[tokenize(question.text) for question in paragraph.questions] for paragraph in dev]

        train_texts = [token.text for tokens in train_tokens for token in tokens] + [
            token.text for paragraph in train_questions for tokens in paragraph for token in tokens
        ]
        word_counts = Counter(text.lower() for text in train_texts)
        char_counts = Counter(character for text in train_texts for character in text[:max_word_chars])
        dev_words = {token.text.lower() for tokens in dev_tokens for token in tokens} | {
            token.text.lower() for paragraph in dev_questions for tokens in paragraph for token in tokens
        }
        vectors: dict[str, list[float]] = {}
        self.word_dim = int(self.config["word_dim"])
        if self.config["embeddings"] is not None:
            vectors, self.word_dim = read_glove(self._embeddings_file(), set(word_counts) | dev_words)

        # Training words common enough or pretrained, then dev words only where pretrained (the usual
        # practice: a dev word never seen in training is only useful with a vector).
        known = [w for w, n in word_counts.items() if n >= self.config["min_word_count"] or w in vectors]
        known += sorted(word for word in dev_words - set(word_counts) if word in vectors)
        self.words = {word: i for i, word in enumerate(sorted(known, key=lambda w: (-word_counts[w], w)), start=2)}
        common_chars = sorted(c for c, n in char_counts.items() if n >= self.config["min_char_count"])
        self.chars = {character: i for i, character in enumerate(common_chars, start=2)}
        self.pretrained_ids = torch.tensor([self.words[word] for word in vectors], dtype=torch.long)
        self.pretrained_vectors = torch.tensor(list(vectors.values()), dtype=torch.float32).reshape(-1, self.word_dim)

        # Each distinct token spelling gets a "type" id; word and char ids are looked up per type, so a
        # paragraph is stored once as one small tensor of type ids.
        self._types: dict[str, int] = {"": PAD}
        self._type_words: list[int] = [PAD]
        self._type_chars: list[list[int]] = [[PAD] * max_word_chars]
        self.skipped = {"train_long_context": 0, "train_unaligned_answer": 0, "dev_cut_context": 0}
        self.train: list[tuple[torch.Tensor, torch.Tensor, int, int]] = []
        for paragraph, tokens, questions in zip(train, train_tokens, train_questions, strict=True):
            if len(tokens) > self.config["max_context_tokens"]:
                self.skipped["train_long_context"] += len(paragraph.questions)
                continue
            context = self._type_ids(tokens)
            for question, question_tokens in zip(paragraph.questions, questions, strict=True):
                span = self._aligned_span(paragraph.context, tokens, *question.answers[0])
                if span is None:
                    self.skipped["train_unaligned_answer"] += 1
                    continue
                self.train.append((context, self._type_ids(question_tokens), *span))

        self.dev: list[tuple[str, int, torch.Tensor]] = []  # (question id, paragraph index, question types)
        self.dev_contexts: list[tuple[str, list[Token], torch.Tensor]] = []
        self.gold: dict[str, list[str]] = {}
        for paragraph, tokens, questions in zip(dev, dev_tokens, dev_questions, strict=True):
            if len(tokens) > self.config["max_eval_context_tokens"]:
                self.skipped["dev_cut_context"] += len(paragraph.questions)
                tokens = tokens[: self.config["max_eval_context_tokens"]]
            self.dev_contexts.append((paragraph.context, tokens, self._type_ids(tokens)))
            for question, question_tokens in zip(paragraph.questions, questions, strict=True):
                self.dev.append((question.id, len(self.dev_contexts) - 1, self._type_ids(question_tokens)))
                self.gold[question.id] = [text for text, _ in question.answers]
        self.type_words = torch.tensor(self._type_words, dtype=torch.int32)
        self.type_chars = torch.tensor(self._type_chars, dtype=torch.int16)

    def _data_files(self) -> tuple[Path, Path]:
        expected = (
            f"SQuAD v1.1 reads {TRAIN_FILE} and {DEV_FILE}, the official files from {SOURCE} "
            "(nothing is downloaded): put them in one directory and pass it as --data-dir."
        )
        if self.data_dir is None:
            raise DatasetMissing(f"No data directory given. {expected}")
        missing = [name for name in (TRAIN_FILE, DEV_FILE) if not (self.data_dir / name).is_file()]
        if missing:
            raise DatasetMissing(f"{self.data_dir} has no {' and no '.join(missing)}. {expected}")
        return self.data_dir / TRAIN_FILE, self.data_dir / DEV_FILE

    def _embeddings_file(self) -> Path:
        path = Path(self.config["embeddings"])
        if not path.is_file():
            raise DatasetMissing(
                f"The embeddings file {path} does not exist: --embeddings takes a GloVe text file "
                f"(e.g. glove.840B.300d.txt from {GLOVE_SOURCE}), or leave it out for random word vectors."
            )
        return path

    def _type_ids(self, tokens: Sequence[Token]) -> torch.Tensor:
        ids = []
        for token in tokens:
            type_id = self._types.get(token.text)
            if type_id is None:
                type_id = self._types[token.text] = len(self._type_words)
                self._type_words.append(self.words.get(token.text.lower(), UNKNOWN))
                characters = [self.chars.get(c, UNKNOWN) for c in token.text[: self.config["max_word_chars"]]]
                self._type_chars.append(characters + [PAD] * (self.config["max_word_chars"] - len(characters)))
            ids.append(type_id)
        return torch.tensor(ids, dtype=torch.int32)

    @staticmethod
    def _aligned_span(context: str, tokens: Sequence[Token], text: str, start: int) -> tuple[int, int] | None:
        if not text.strip() or context[start : start + len(text)] != text:  # answer_start must point at the text
            return None
        return answer_span(tokens, start, start + len(text))

    @property
    def train_size(self) -> int:
        return len(self.train)

    @property
    def eval_size(self) -> int:
        return len(self.dev)

    def examples(self, order: Sequence[int]) -> Iterator[tuple[torch.Tensor, ...]]:
        """(context words, context chars, question words, question chars, start, end) of each question."""
        for index in order:
            context, question, start, end = self.train[index]
            yield self._features(context, question, start, end)

    def _features(self, context: torch.Tensor, question: torch.Tensor, start: int, end: int) -> tuple:
        context, question = context.long(), question.long()
        return (
            self.type_words[context],
            self.type_chars[context],
            self.type_words[question],
            self.type_chars[question],
            torch.tensor(start),
            torch.tensor(end),
        )

    def collate(self, examples: list[tuple[torch.Tensor, ...]]) -> SquadBatch:
        context_words, context_chars, question_words, question_chars, starts, ends = zip(*examples, strict=True)
        return SquadBatch(
            *(pad_sequence(items, batch_first=True).long() for items in (context_words, context_chars)),
            *(pad_sequence(items, batch_first=True).long() for items in (question_words, question_chars)),
            torch.stack(starts).long(),
            torch.stack(ends).long(),
        )

    def prepare(self, batch: SquadBatch, device: torch.device, generator: torch.Generator | None) -> SquadBatch:
        return SquadBatch(*(tensor.to(device, non_blocking=True) for tensor in batch))  # nothing to augment

    # The model and its training.

    def onnx_signature(self, batch: int, generator: torch.Generator) -> OnnxSignature:
        """Four inputs, the context's and the question's word and character ids, their lengths dynamic (a word's
        characters are cut or padded to `max_word_chars`); two outputs, the start and end logits over the context.

        Every row after the first is shorter, padded with id 0 as a batch of several questions is, so the export's
        check proves the padding masked in onnxruntime as in torch."""
        # Before `load` (the harness checks a model's inputs before reading the data) the ids are all "unknown".
        words, chars = len(getattr(self, "words", {})) + 2, len(getattr(self, "chars", {})) + 2
        width = int(self.config["max_word_chars"])

        def ids(high: int, length: int, *shape: int) -> torch.Tensor:
            tensor = torch.randint(1, high, (batch, length, *shape), generator=generator)
            for row in range(1, batch):
                tensor[row, max(1, length - 3 * row) :] = PAD
            return tensor

        context, question = 20, 6
        return OnnxSignature(
            inputs={
                "context_words": ids(words, context),
                "context_chars": ids(chars, context, width),
                "question_words": ids(words, question),
                "question_chars": ids(chars, question, width),
            },
            outputs=("start_logits", "end_logits"),
            dynamic_axes={
                "context_words": {0: "batch", 1: "context"},
                "context_chars": {0: "batch", 1: "context"},
                "question_words": {0: "batch", 1: "question"},
                "question_chars": {0: "batch", 1: "question"},
                "start_logits": {0: "batch", 1: "context"},
                "end_logits": {0: "batch", 1: "context"},
            },
        )

    def shape_from(self, state_dict: Mapping[str, torch.Tensor]) -> None:
        """The vocabularies' sizes and the word vectors' dimension from the embedding tables (stand-in words until
        `load` reads the real ones, which rebuild the same ids from the same data)."""
        if getattr(self, "words", None):
            return
        words, self.word_dim = state_dict["word_embedding.weight"].shape
        chars = state_dict["char_cnn.embedding.weight"].shape[0]
        self.words = {f"word{index}": index + 2 for index in range(words - 2)}
        self.chars = {f"char{index}": index + 2 for index in range(chars - 2)}
        self.pretrained_ids, self.pretrained_vectors = torch.zeros(0, dtype=torch.long), torch.zeros(0, self.word_dim)

    def build_model(self) -> nn.Module:
        model = BiDAF(
            len(self.words) + 2,
            len(self.chars) + 2,
            word_dim=self.word_dim,
            char_dim=int(self.config["char_dim"]),
            char_filters=int(self.config["char_filters"]),
            char_width=int(self.config["char_width"]),
            hidden_size=int(self.config["hidden_size"]),
            highway_layers=int(self.config["highway_layers"]),
            dropout=float(self.config["dropout"]),
        )
        if len(self.pretrained_ids):
            model.load_word_vectors(self.pretrained_ids, self.pretrained_vectors)
        return model

    def loss(self, model: nn.Module, batch: SquadBatch) -> torch.Tensor:
        start_logits, end_logits = model(*batch[:4])
        return F.cross_entropy(start_logits, batch.start) + F.cross_entropy(end_logits, batch.end)

    # Evaluation.

    def input_encoding(self) -> dict[str, Any]:
        """The word and character vocabularies read from the data: their sizes (the embedding tables') and a
        sha256 of the ids, which `load` rebuilds the same from the same files and settings."""
        vocabularies = {"words": sorted(self.words.items()), "chars": sorted(self.chars.items())}
        digest = hashlib.sha256(json.dumps(vocabularies, ensure_ascii=False).encode()).hexdigest()
        return {"words": len(self.words) + 2, "chars": len(self.chars) + 2, "sha256": digest}

    def evaluation_items(self, positions: Sequence[int]) -> Iterator[tuple[tuple[torch.Tensor, ...], torch.Tensor]]:
        """The dev questions at `positions` (in the dev file's order), each a batch of one: (context words, context
        chars, question words, question chars), as `predict` gives them to the model, and the question's position
        (its "label": `answer_text` and `answer_scores` take it)."""
        for position in positions:
            _, paragraph, question = self.dev[position]
            inputs = self.collate([self._features(self.dev_contexts[paragraph][2], question, 0, 0)])[:4]
            yield inputs, torch.tensor([position])

    def answer_text(self, position: int, start_logits: torch.Tensor, end_logits: torch.Tensor) -> str:
        """The answer to the dev question at `position` given its start and end logits over its own context (one
        row each, as long as the context): the best span, as `predict` chooses it, cut from the context."""
        mask = torch.ones((1, start_logits.shape[-1]), dtype=torch.bool)
        starts, ends = best_spans(
            start_logits.reshape(1, -1), end_logits.reshape(1, -1), mask, int(self.config["max_answer_tokens"])
        )
        context, tokens, _ = self.dev_contexts[self.dev[position][1]]
        return context[tokens[int(starts[0])].start : tokens[int(ends[0])].end]

    def answer_scores(self, answers: Mapping[int, str]) -> dict[str, float]:
        """The official v1.1 exact match and F1 (percent) of these answers (by dev position) over those questions."""
        gold = {self.dev[position][0]: self.gold[self.dev[position][0]] for position in answers}
        return squad_eval.evaluate(gold, {self.dev[position][0]: text for position, text in answers.items()})

    def predict(self, model: nn.Module, device: torch.device) -> dict[str, str]:
        """The answer text the model gives to each dev question, cut from its context by token offsets."""
        predictions = {}
        by_length = sorted(range(len(self.dev)), key=lambda i: len(self.dev_contexts[self.dev[i][1]][1]))
        size = int(self.config["eval_batch_size"])
        with torch.no_grad():
            for first in range(0, len(by_length), size):
                chunk = [self.dev[i] for i in by_length[first : first + size]]
                batch = self.collate([self._features(self.dev_contexts[p][2], q, 0, 0) for _, p, q in chunk])
                batch = self.prepare(batch, device, None)
                starts, ends = best_spans(
                    *model(*batch[:4]), batch.context_words != PAD, int(self.config["max_answer_tokens"])
                )
                for (question_id, p, _), start, end in zip(chunk, starts.tolist(), ends.tolist(), strict=True):
                    context, tokens, _ = self.dev_contexts[p]
                    predictions[question_id] = context[tokens[start].start : tokens[end].end]
        return predictions

    def data_summary(self) -> dict[str, Any]:
        return {
            **super().data_summary(),
            "skipped": self.skipped,
            "word_dim": self.word_dim,
            "last_scores": self.last_scores,
        }

    def evaluate(self, model: nn.Module, device: torch.device) -> float:
        """Dev F1 as a fraction; the full official scores (percent) are kept in `last_scores`."""
        self.last_scores = squad_eval.evaluate(self.gold, self.predict(model, device))
        return self.last_scores["f1"] / 100.0
