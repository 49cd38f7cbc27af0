"""A tiny SQuAD v1.1 in the official file format, a tiny GloVe file, and settings that make a step fast."""

from __future__ import annotations

import json
from pathlib import Path

TINY_OVERRIDES = {
    "batch_size": 4,
    "word_dim": 8,
    "char_dim": 4,
    "char_filters": 6,
    "char_width": 3,
    "hidden_size": 5,
    "min_word_count": 1,
    "min_char_count": 1,
    "max_word_chars": 8,
    "eval_batch_size": 3,  # the five dev questions make two batches, one of them padded
}

# (context, [(question, [gold answers], ...)]); every answer_start is the answer's first occurrence.
TRAIN = [
    (
        "Super Bowl 50 was an American football game to determine the champion of the National Football League "
        "(NFL) for the 2015 season. The American Football Conference (AFC) champion Denver Broncos defeated the "
        "National Football Conference (NFC) champion Carolina Panthers 24\u201310 to earn their third Super Bowl "
        "title.",
        [
            ("Which team won Super Bowl 50?", ["Denver Broncos"]),
            ("What was the final score?", ["24\u201310"]),
            ("Which league's champion did the game determine?", ["National Football League"]),
        ],
    ),
    (
        "The Amazon rainforest covers 5,500,000 square kilometres of the Amazon basin. The majority of the forest "
        "is contained within Brazil, with 60% of the rainforest, followed by Peru with 13%.",
        [
            ("How many square kilometres does the rainforest cover?", ["5,500,000"]),
            ("Which country holds most of the forest?", ["Brazil"]),
            ("What share of the rainforest is in Peru?", ["13%"]),
        ],
    ),
    (
        "Nikola Tesla was born on 10 July 1856 in Smiljan, in the Austrian Empire. He moved to New York in 1884 "
        "and worked for Thomas Edison before founding his own laboratory.",
        [
            ("When was Tesla born?", ["10 July 1856"]),
            ("Where did Tesla move in 1884?", ["New York"]),
            ("For whom did Tesla work in New York?", ["Thomas Edison"]),
        ],
    ),
    (
        "Oxygen is a chemical element with symbol O and atomic number 8. It is a highly reactive nonmetal that "
        "readily forms oxides with most elements.",
        [
            ("What is the atomic number of oxygen?", ["8"]),
            ("What does oxygen readily form?", ["oxides"]),
        ],
    ),
]

DEV = [
    (
        "The Broncos won Super Bowl 50 in Santa Clara, California, on February 7, 2016. Peyton Manning was the "
        "quarterback of Denver; he retired after the season.",
        [
            ("Where was Super Bowl 50 played?", ["Santa Clara, California", "Santa Clara", "Santa Clara, California"]),
            ("Who was Denver's quarterback?", ["Peyton Manning", "Manning"]),
            ("When was Super Bowl 50 played?", ["February 7, 2016", "February 7"]),
        ],
    ),
    (
        "Photosynthesis converts light energy into chemical energy. Plants store this energy in sugars such as "
        "glucose.",
        [
            ("What does photosynthesis convert light energy into?", ["chemical energy", "chemical energy"]),
            ("In what do plants store energy?", ["sugars", "sugars such as glucose"]),
        ],
    ),
]


def squad_document(paragraphs: list[tuple[str, list[tuple[str, list[str]]]]], prefix: str) -> dict:
    """The official JSON structure of these paragraphs, one article each, answer_start found in the context."""
    data = []
    for p, (context, questions) in enumerate(paragraphs):
        qas = []
        for q, (question, answers) in enumerate(questions):
            for text in answers:
                assert text in context, (text, context)
            qas.append(
                {
                    "id": f"{prefix}{p}{q}",
                    "question": question,
                    "answers": [{"answer_start": context.index(text), "text": text} for text in answers],
                }
            )
        data.append({"title": f"Article_{p}", "paragraphs": [{"context": context, "qas": qas}]})
    return {"version": "1.1", "data": data}


def write_tiny_squad(directory: Path) -> Path:
    """train-v1.1.json (11 questions) and dev-v1.1.json (5 questions, several gold answers) in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "train-v1.1.json").write_text(json.dumps(squad_document(TRAIN, "train")), encoding="utf-8")
    (directory / "dev-v1.1.json").write_text(json.dumps(squad_document(DEV, "dev")), encoding="utf-8")
    return directory


# Six dimensions; "photosynthesis" appears only in the dev set, "zeppelin" nowhere.
GLOVE_WORDS = ("the", "broncos", "denver", "tesla", "photosynthesis", "zeppelin")
GLOVE_DIM = 6


def glove_vector(word: str) -> list[float]:
    index = GLOVE_WORDS.index(word)
    return [round(0.1 * (index + 1) - 0.05 * d, 4) for d in range(GLOVE_DIM)]


def write_tiny_glove(path: Path) -> Path:
    """A GloVe text file of GLOVE_WORDS in GLOVE_DIM dimensions."""
    lines = [" ".join([word, *(str(value) for value in glove_vector(word))]) for word in GLOVE_WORDS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
