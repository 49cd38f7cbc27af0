"""The official SQuAD v1.1 metric, on examples worked out by hand."""

from __future__ import annotations

import logging

import pytest

from benchmarks.workloads.squad_eval import best_over_gold, evaluate, exact_match, f1, gold_answers, normalize_answer


def test_normalisation_lowers_case_and_drops_punctuation_articles_and_extra_spaces():
    # "The  Denver Broncos!" -> lower "the  denver broncos!" -> no punctuation "the  denver broncos"
    # -> no articles " denver broncos" -> single spaces "denver broncos"
    assert normalize_answer("The  Denver Broncos!") == "denver broncos"


def test_articles_go_only_as_whole_words():
    # "theory" and "anthem" keep their letters; the lone "an" and "a" go.
    assert normalize_answer("an anthem, a theory") == "anthem theory"


def test_punctuation_goes_before_articles_so_joined_articles_stay():
    # "the-end" loses its hyphen first: "theend" is no article. "A.M." becomes "am", not an article either.
    assert normalize_answer("the-end") == "theend"
    assert normalize_answer("A.M.") == "am"


def test_exact_match_ignores_case_articles_and_punctuation():
    assert exact_match("the Denver Broncos.", "Denver Broncos")
    assert not exact_match("Denver", "Denver Broncos")


def test_partial_overlap_f1():
    # gold "the Denver Broncos" -> ["denver", "broncos"]; prediction "Broncos" -> ["broncos"]: one common token,
    # precision 1/1, recall 1/2, F1 = 2 * 1 * 0.5 / 1.5 = 2/3.
    assert f1("Broncos", "the Denver Broncos") == pytest.approx(2 / 3)


def test_f1_counts_repeated_tokens_as_a_bag():
    # prediction ["new", "york", "new"], gold ["new", "york"]: common = min counts = new 1 + york 1 = 2;
    # precision 2/3, recall 2/2, F1 = 2 * (2/3) * 1 / (5/3) = 4/5.
    assert f1("new york new", "New York") == pytest.approx(4 / 5)


def test_no_common_token_scores_zero():
    assert f1("Carolina Panthers", "Denver Broncos") == 0.0
    assert f1("", "Denver Broncos") == 0.0
    assert f1("the", "a") == 0.0  # both normalise to nothing: the official v1.1 script gives 0


def test_a_question_scores_its_best_gold_answer():
    # golds "Santa Clara, California" (F1 of "Santa Clara" = 2 * 1 * (2/3) / (5/3) = 0.8) and "Santa Clara" (1).
    golds = ["Santa Clara, California", "Santa Clara"]
    assert best_over_gold(f1, "Santa Clara", golds) == 1.0
    assert best_over_gold(exact_match, "Santa Clara", golds) == 1.0
    assert best_over_gold(f1, "Santa Clara", golds[:1]) == pytest.approx(0.8)


def test_dataset_scores_are_averages_in_percent():
    gold = {"q1": ["Denver Broncos"], "q2": ["the Denver Broncos"], "q3": ["Peyton Manning", "Manning"]}
    predictions = {"q1": "Denver Broncos", "q2": "Broncos", "q3": "Carolina"}
    # exact: 1 + 0 + 0 over 3 = 33.33%; F1: 1 + 2/3 + 0 over 3 = 5/9 = 55.56%.
    assert evaluate(gold, predictions) == {
        "exact_match": pytest.approx(100 / 3),
        "f1": pytest.approx(500 / 9),
    }


def test_a_missing_prediction_scores_zero_and_is_reported(caplog):
    gold = {"q1": ["Denver Broncos"], "q2": ["Manning"]}
    with caplog.at_level(logging.WARNING):
        scores = evaluate(gold, {"q1": "Denver Broncos", "not-a-question": "Manning"})
    # q1 right, q2 unanswered (the extra id is ignored): 1 / 2 = 50%.
    assert scores == {"exact_match": 50.0, "f1": 50.0}
    assert "1 of 2 questions have no prediction" in caplog.text


def test_gold_answers_are_read_from_the_official_structure():
    articles = [
        {
            "title": "T",
            "paragraphs": [
                {
                    "context": "Denver Broncos won.",
                    "qas": [
                        {
                            "id": "a",
                            "question": "Who won?",
                            "answers": [
                                {"answer_start": 0, "text": "Denver Broncos"},
                                {"answer_start": 7, "text": "Broncos"},
                            ],
                        }
                    ],
                }
            ],
        }
    ]
    assert gold_answers(articles) == {"a": ["Denver Broncos", "Broncos"]}
