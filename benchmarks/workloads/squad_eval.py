"""The official SQuAD v1.1 evaluation (exact match and F1), reimplemented with the same semantics.

The official `evaluate-v1.1.py` normalises an answer (lower case, no punctuation, no articles, single
spaces), scores a prediction against each gold answer of its question and keeps the best score, and
averages over every question of the dataset in percent; a question without a prediction scores 0. The
DAWNBench SQuAD threshold (F1 0.75) is this F1 divided by 100. Plain Python: no torch here.
"""

from __future__ import annotations

import logging
import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

logger = logging.getLogger(__name__)

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Lower case, ASCII punctuation removed, the articles a/an/the removed as whole words, spaces collapsed.

    The order matters and is the official one: punctuation goes before articles, so "the-end" becomes
    "theend" (no article left) while "the end" becomes "end".
    """
    without_punctuation = "".join(character for character in text.lower() if character not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", without_punctuation).split())


def exact_match(prediction: str, gold: str) -> bool:
    """Whether the two answers are equal once normalised."""
    return normalize_answer(prediction) == normalize_answer(gold)


def f1(prediction: str, gold: str) -> float:
    """The harmonic mean of token precision and recall between the normalised answers (tokens as a bag).

    0 when they share no token, which includes an empty prediction or an answer made only of articles
    and punctuation (as in the official v1.1 script).
    """
    predicted_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(gold).split()
    common = sum((Counter(predicted_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0
    precision = common / len(predicted_tokens)
    recall = common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def best_over_gold(metric: Callable[[str, str], float], prediction: str, gold_answers: Sequence[str]) -> float:
    """The best score of the prediction against any of the question's gold answers."""
    if not gold_answers:
        raise ValueError("a question needs at least one gold answer to be scored")
    return max(float(metric(prediction, gold)) for gold in gold_answers)


def gold_answers(articles: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The gold answer texts of each question id, from the `data` list of a SQuAD v1.1 file."""
    return {
        question["id"]: [answer["text"] for answer in question["answers"]]
        for article in articles
        for paragraph in article["paragraphs"]
        for question in paragraph["qas"]
    }


def evaluate(gold: Mapping[str, Sequence[str]], predictions: Mapping[str, str]) -> dict[str, float]:
    """Exact match and F1 in percent, averaged over every question in `gold`.

    Args:
        gold: the gold answer texts of each question id (see `gold_answers`).
        predictions: the predicted answer text of each question id; ids that are not in `gold` are ignored.

    Returns:
        {"exact_match": ..., "f1": ...}, both in percent, as the official script prints them. A question
        with no prediction scores 0 on both (the official script warns and counts it).
    """
    if not gold:
        raise ValueError("there are no questions to score")
    exact_total = 0.0
    f1_total = 0.0
    unanswered = 0
    for question_id, answers in gold.items():
        if question_id not in predictions:
            unanswered += 1
            continue
        prediction = predictions[question_id]
        exact_total += best_over_gold(exact_match, prediction, answers)
        f1_total += best_over_gold(f1, prediction, answers)
    if unanswered:
        logger.warning("%d of %d questions have no prediction and score 0", unanswered, len(gold))
    return {"exact_match": 100.0 * exact_total / len(gold), "f1": 100.0 * f1_total / len(gold)}
