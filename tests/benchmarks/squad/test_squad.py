"""The SQuAD BiDAF recipe on a tiny SQuAD: reading, tokens, vocabulary, GloVe, the model, a step, evaluation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from torch import nn

from benchmarks.algorithms.recipes import recipe_optimizer
from benchmarks.networks.bidaf import MASKED_LOGIT
from benchmarks.workloads import workload_class
from benchmarks.workloads.base import DatasetMissing
from benchmarks.workloads.squad import BiDAFSquad, best_spans
from benchmarks.workloads.squad_data import SquadFormatError, answer_span, tokenize
from tests.benchmarks.squad.fixtures import (
    DEV,
    GLOVE_DIM,
    TINY_OVERRIDES,
    TRAIN,
    glove_vector,
    write_tiny_glove,
    write_tiny_squad,
)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return write_tiny_squad(tmp_path / "squad")


def loaded(data_dir: Path, **overrides) -> BiDAFSquad:
    workload = BiDAFSquad(data_dir, {**TINY_OVERRIDES, **overrides})
    workload.load()
    return workload


def test_the_registry_finds_the_recipe():
    assert workload_class("squad", "bidaf") is BiDAFSquad


# Reading.


def test_no_data_dir_names_both_files_the_source_and_the_flag():
    with pytest.raises(DatasetMissing) as error:
        BiDAFSquad(None, TINY_OVERRIDES).load()
    message = str(error.value)
    for expected in ("train-v1.1.json", "dev-v1.1.json", "https://rajpurkar.github.io/SQuAD-explorer/", "--data-dir"):
        assert expected in message


def test_a_missing_dev_file_is_named_with_its_directory(data_dir):
    (data_dir / "dev-v1.1.json").unlink()
    with pytest.raises(DatasetMissing, match=r"has no dev-v1\.1\.json\.") as error:
        BiDAFSquad(data_dir, TINY_OVERRIDES).load()
    assert str(data_dir) in str(error.value)


def test_invalid_json_names_the_file(data_dir):
    (data_dir / "train-v1.1.json").write_text('{"version": "1.1", "data": [', encoding="utf-8")
    with pytest.raises(SquadFormatError, match=r"train-v1\.1\.json is not valid JSON"):
        BiDAFSquad(data_dir, TINY_OVERRIDES).load()


def test_a_missing_key_names_the_file_and_the_item(data_dir):
    path = data_dir / "dev-v1.1.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    del document["data"][1]["paragraphs"][0]["qas"][1]["answers"]
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SquadFormatError) as error:
        BiDAFSquad(data_dir, TINY_OVERRIDES).load()
    assert str(error.value) == f"{path}: data[1].paragraphs[0].qas[1] (id 'dev11') has no 'answers'."


def test_an_answer_start_of_the_wrong_type_is_named(data_dir):
    path = data_dir / "train-v1.1.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["data"][0]["paragraphs"][0]["qas"][2]["answers"][0]["answer_start"] = "12"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(
        SquadFormatError, match=r"qas\[2\] \(id 'train02'\)\.answers\[0\]\.answer_start is not an integer"
    ):
        BiDAFSquad(data_dir, TINY_OVERRIDES).load()


def test_unknown_settings_are_refused():
    with pytest.raises(ValueError, match="no setting learning_rat"):
        BiDAFSquad(None, {"learning_rat": 0.1})


# Tokens and answers.


def test_token_offsets_cut_each_token_from_the_text():
    text = "Denver's 24\u201310 win, on Feb. 7 (2016), cost $5,500,000.25 \u2014 wow!"
    tokens = tokenize(text)
    assert [token.text for token in tokens] == [
        "Denver", "'", "s", "24", "\u2013", "10", "win", ",", "on", "Feb", ".", "7", "(", "2016", ")", ",",
        "cost", "$", "5,500,000.25", "\u2014", "wow", "!",
    ]  # fmt: skip
    assert all(text[token.start : token.end] == token.text for token in tokens)


def test_every_fixture_context_round_trips_through_its_tokens():
    for context, _ in TRAIN + DEV:
        tokens = tokenize(context)
        assert "".join(token.text for token in tokens) == "".join(context.split())
        assert all(context[token.start : token.end] == token.text for token in tokens)


def test_an_answer_maps_to_the_tokens_it_overlaps():
    context = "The Denver Broncos won the 5th title."
    tokens = tokenize(context)  # The Denver Broncos won the 5th title .
    start = context.index("Denver Broncos")
    assert answer_span(tokens, start, start + len("Denver Broncos")) == (1, 2)
    # An answer inside a token ("5" of "5th") takes the whole token.
    assert answer_span(tokens, context.index("5"), context.index("5") + 1) == (5, 5)
    # Characters covering only a space overlap no token.
    assert answer_span(tokens, 3, 4) is None


def test_training_questions_become_token_spans_of_their_answers(data_dir):
    workload = loaded(data_dir)
    assert workload.train_size == sum(len(questions) for _, questions in TRAIN)
    context_words, _, _, _, start, end = next(workload.examples([0]))  # "Which team won Super Bowl 50?"
    words = {i: w for w, i in workload.words.items()}
    assert [words[int(i)] for i in context_words[int(start) : int(end) + 1]] == ["denver", "broncos"]


def test_a_misplaced_answer_start_is_skipped_and_counted(data_dir):
    path = data_dir / "train-v1.1.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] += 3
    path.write_text(json.dumps(document), encoding="utf-8")
    workload = loaded(data_dir)
    assert workload.skipped["train_unaligned_answer"] == 1
    assert workload.train_size == sum(len(questions) for _, questions in TRAIN) - 1


def test_long_contexts_are_skipped_in_training_and_cut_in_evaluation(data_dir):
    workload = loaded(data_dir, max_context_tokens=40, max_eval_context_tokens=20)
    # Training paragraphs of 57, 36, 34 and 27 tokens: the first (three questions) is too long.
    assert workload.skipped["train_long_context"] == 3
    assert workload.train_size == 8
    # Dev paragraphs of 32 and 18 tokens: the first (three questions) is cut, all five are kept.
    assert workload.skipped["dev_cut_context"] == 3
    assert len(workload.dev) == 5


# Vocabulary and GloVe.


def test_dev_words_enter_the_vocabulary_only_with_a_vector(data_dir, tmp_path):
    assert "photosynthesis" not in loaded(data_dir).words
    with_glove = loaded(data_dir, embeddings=str(write_tiny_glove(tmp_path / "glove.txt")))
    assert "photosynthesis" in with_glove.words
    assert "zeppelin" not in with_glove.words  # in the file, in neither split
    assert "glucose" not in with_glove.words  # dev only, no vector


def test_glove_vectors_are_copied_into_the_rows_of_their_words(data_dir, tmp_path):
    workload = loaded(data_dir, embeddings=str(write_tiny_glove(tmp_path / "glove.txt")))
    torch.manual_seed(0)
    weight = workload.build_model().word_embedding.weight
    assert weight.shape == (len(workload.words) + 2, GLOVE_DIM)  # the file's dimension, not word_dim
    for word in ("the", "broncos", "denver", "tesla", "photosynthesis"):
        assert weight[workload.words[word]].tolist() == pytest.approx(glove_vector(word))
    assert weight[0].abs().sum() == 0  # padding


def test_a_word2vec_header_gives_the_dimension(data_dir, tmp_path):
    path = write_tiny_glove(tmp_path / "vectors.txt")
    path.write_text(f"6 {GLOVE_DIM}\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    workload = loaded(data_dir, embeddings=str(path))
    assert workload.word_dim == GLOVE_DIM and len(workload.pretrained_ids) == 5


def test_a_malformed_glove_line_is_named(data_dir, tmp_path):
    path = write_tiny_glove(tmp_path / "glove.txt")
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = "denver 0.1 0.2"  # two numbers where the file has six
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SquadFormatError, match=r"glove\.txt, line 3: expected a word and 6 numbers, found 2"):
        loaded(data_dir, embeddings=str(path))


def test_a_glove_value_that_is_no_number_is_named(data_dir, tmp_path):
    path = write_tiny_glove(tmp_path / "glove.txt")
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = "broncos 0.1 0.2 x 0.4 0.5 0.6"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SquadFormatError, match=r"glove\.txt, line 2: could not convert"):
        loaded(data_dir, embeddings=str(path))


def test_a_missing_glove_file_is_named(data_dir, tmp_path):
    with pytest.raises(DatasetMissing, match=r"nowhere\.txt does not exist: --embeddings takes a GloVe"):
        loaded(data_dir, embeddings=str(tmp_path / "nowhere.txt"))


# The model.


def tiny_batch(workload: BiDAFSquad, indices: list[int]):
    return workload.prepare(workload.collate(list(workload.examples(indices))), torch.device("cpu"), None)


def test_logits_score_each_context_word_and_mask_the_padding(data_dir):
    workload = loaded(data_dir)
    torch.manual_seed(0)
    model = workload.build_model().eval()
    batch = tiny_batch(workload, [0, 10])  # a 57-token and a 27-token context
    start, end = model(*batch[:4])
    assert start.shape == end.shape == batch.context_words.shape == (2, 57)
    padding = batch.context_words == 0
    assert padding[1, 27:].all() and not padding[1, :27].any()
    assert (start[padding] == MASKED_LOGIT).all() and (end[padding] == MASKED_LOGIT).all()
    assert torch.isfinite(start[~padding]).all() and (start[~padding] > MASKED_LOGIT / 2).all()


def test_an_example_scores_the_same_alone_and_beside_longer_ones(data_dir):
    workload = loaded(data_dir)
    torch.manual_seed(0)
    model = workload.build_model().eval()
    with torch.no_grad():
        alone = model(*tiny_batch(workload, [10])[:4])
        together = model(*tiny_batch(workload, [0, 10, 3])[:4])
    for single, batched in zip(alone, together, strict=True):
        torch.testing.assert_close(batched[1, :27], single[0], atol=1e-5, rtol=1e-5)


def test_best_span_maximises_the_product_of_start_and_end_probabilities():
    start = torch.tensor([[0.0, 3.0, 1.0, 0.0]])
    end = torch.tensor([[4.0, 0.0, 2.0, 1.0]])
    # End 0 is the best end but comes before start 1: the best allowed pair is (1, 2), 3 + 2 = 5 beating
    # (0, 0) at 0 + 4 = 4.
    starts, ends = best_spans(start, end, torch.ones(1, 4, dtype=torch.bool), max_answer_tokens=15)
    assert (starts.item(), ends.item()) == (1, 2)


def test_best_span_holds_at_most_max_answer_tokens_plus_one():
    start = torch.full((1, 30), -10.0)
    end = torch.full((1, 30), -10.0)
    start[0, 2], end[0, 25], end[0, 12] = 5.0, 5.0, 1.0
    starts, ends = best_spans(start, end, torch.ones(1, 30, dtype=torch.bool), max_answer_tokens=10)
    assert (starts.item(), ends.item()) == (2, 12)


def test_best_span_never_lands_on_padding():
    start = torch.tensor([[0.0, 1.0, 9.0, 9.0], [2.0, 0.0, 0.0, 0.0]])
    end = torch.tensor([[0.0, 1.0, 9.0, 9.0], [0.0, 0.0, 0.0, 9.0]])
    mask = torch.tensor([[True, True, False, False], [True, True, True, False]])
    starts, ends = best_spans(start, end, mask, max_answer_tokens=15)
    assert starts.tolist() == [1, 0] and ends.tolist() == [1, 0]


# Training and evaluation.


@pytest.mark.parametrize("optimizer, learning_rate", [("adadelta", 0.5), ("adam", 1e-3)])
def test_training_steps_give_a_finite_loss_and_move_the_weights(data_dir, optimizer, learning_rate):
    workload = loaded(data_dir, optimizer=optimizer, learning_rate=learning_rate)
    torch.manual_seed(0)
    model = workload.build_model().train()
    optimizer, scheduler = recipe_optimizer(workload, model, steps_per_epoch=3)
    before = [parameter.detach().clone() for parameter in model.parameters()]
    generator = torch.Generator().manual_seed(0)
    for step in range(2):
        batch = workload.prepare(
            workload.collate(list(workload.examples([4 * step + i for i in range(4)]))), torch.device("cpu"), generator
        )
        loss = workload.loss(model, batch)
        assert math.isfinite(loss.item()) and loss.item() > 0
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
    changed = [not torch.equal(b, a) for b, a in zip(before, model.parameters(), strict=True)]
    assert all(changed)


def test_evaluate_returns_the_dev_f1_as_a_fraction(data_dir):
    workload = loaded(data_dir)
    torch.manual_seed(0)
    model = workload.build_model().eval()
    f1 = workload.evaluate(model, torch.device("cpu"))
    assert isinstance(f1, float) and 0.0 <= f1 <= 1.0
    assert f1 == pytest.approx(workload.last_scores["f1"] / 100)
    assert set(workload.last_scores) == {"exact_match", "f1"}


class GoldPointer(nn.Module):
    """Puts the start and end logits on the first gold answer's tokens of whichever dev question it sees."""

    def __init__(self, spans: dict[tuple, tuple[int, int]]):
        super().__init__()
        self.spans = spans

    def forward(self, context_words, context_chars, question_words, question_chars):
        start = torch.zeros(context_words.shape)
        end = torch.zeros(context_words.shape)
        for row, (context, question) in enumerate(zip(context_words, question_words, strict=True)):
            first, last = self.spans[(tuple(context[context != 0].tolist()), tuple(question[question != 0].tolist()))]
            start[row, first] = end[row, last] = 10.0
        return start, end


def test_a_model_pointing_at_the_gold_spans_scores_one(data_dir):
    workload = loaded(data_dir)
    spans = {}
    for question_id, paragraph, question_types in workload.dev:
        context, tokens, context_types = workload.dev_contexts[paragraph]
        answer = workload.gold[question_id][0]
        key = (
            tuple(workload.type_words[context_types.long()].tolist()),
            tuple(workload.type_words[question_types.long()].tolist()),
        )
        spans[key] = answer_span(tokens, context.index(answer), context.index(answer) + len(answer))
    assert len(spans) == len(workload.dev) == 5
    assert workload.evaluate(GoldPointer(spans), torch.device("cpu")) == 1.0
    assert workload.last_scores["exact_match"] == 100.0
