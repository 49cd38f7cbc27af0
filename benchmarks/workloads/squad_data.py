"""Reading SQuAD v1.1 and GloVe files, and the tokenizer that keeps character offsets (for `squad.py`).

Text is split by a small regular expression (words, numbers, single punctuation marks) that keeps each
token's character offsets, so a predicted token span is cut from the context exactly as written.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

# A number with inner separators ("1,000", "3.5"), a run of letters and digits, or one other visible character.
TOKEN = re.compile(r"\d+(?:[.,]\d+)+|\w+|[^\w\s]")


_KINDS = {str: "a string", int: "an integer", list: "a list"}


class SquadFormatError(ValueError):
    """A SQuAD or GloVe file that cannot be read; the message names the file and the item or line."""


class Token(NamedTuple):
    text: str
    start: int  # context[start:end] == text
    end: int


def tokenize(text: str) -> list[Token]:
    return [Token(match.group(), match.start(), match.end()) for match in TOKEN.finditer(text)]


def answer_span(tokens: Sequence[Token], start: int, end: int) -> tuple[int, int] | None:
    """The first and last tokens overlapping the characters [start, end), or None when no token does."""
    first = bisect_right([token.end for token in tokens], start)  # the first token ending after `start`
    last = bisect_left([token.start for token in tokens], end) - 1  # the last token starting before `end`
    return (first, last) if first <= last else None


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    answers: tuple[tuple[str, int], ...]  # (text, answer_start), the first one the training target


@dataclass(frozen=True)
class Paragraph:
    context: str
    questions: tuple[Question, ...]


def read_squad(path: Path) -> list[Paragraph]:
    """The paragraphs of a SQuAD v1.1 file. Raises SquadFormatError naming the file and the faulty item."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise SquadFormatError(f"{path} is not valid JSON: {error.msg} at line {error.lineno}.") from error
    except UnicodeDecodeError as error:
        raise SquadFormatError(f"{path} is not UTF-8 text: {error}.") from error

    def field(item: Any, key: str, kind: type, where: str) -> Any:
        if not isinstance(item, dict) or key not in item:
            raise SquadFormatError(f"{path}: {where} has no {key!r}.")
        if not isinstance(item[key], kind) or isinstance(item[key], bool):
            raise SquadFormatError(f"{path}: {where}.{key} is not {_KINDS[kind]}.")
        return item[key]

    paragraphs = []
    for a, article in enumerate(field(document, "data", list, "the file")):
        for p, paragraph in enumerate(field(article, "paragraphs", list, f"data[{a}]")):
            where = f"data[{a}].paragraphs[{p}]"
            context = field(paragraph, "context", str, where)
            if not context.strip():
                raise SquadFormatError(f"{path}: {where} has an empty context.")
            questions = []
            for q, qa in enumerate(field(paragraph, "qas", list, where)):
                question_id = field(qa, "id", str, f"{where}.qas[{q}]")
                named = f"{where}.qas[{q}] (id {question_id!r})"
                answers = field(qa, "answers", list, named)
                if not answers:
                    raise SquadFormatError(f"{path}: {named} has no answers (SQuAD v2.0 files are not supported).")
                questions.append(
                    Question(
                        id=question_id,
                        text=field(qa, "question", str, named),
                        answers=tuple(
                            (
                                field(answer, "text", str, f"{named}.answers[{n}]"),
                                field(answer, "answer_start", int, f"{named}.answers[{n}]"),
                            )
                            for n, answer in enumerate(answers)
                        ),
                    )
                )
            paragraphs.append(Paragraph(context, tuple(questions)))
    return paragraphs


def read_glove(path: Path, wanted: Collection[str]) -> tuple[dict[str, list[float]], int]:
    """The vectors of the `wanted` words from a GloVe text file (`word v1 ... vd` a line), and d.

    Words are matched lower-cased; where a cased file has several forms, the lower-case one wins. Only the
    wanted words are parsed, so a 5 GB file costs little memory. Lines holding more than d + 1 fields are
    multi-word tokens (840B has some) and are skipped. Raises SquadFormatError naming a malformed line.
    """
    vectors: dict[str, list[float]] = {}
    dimension = 0
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            line = line.rstrip()
            spaces = line.count(" ")
            if number == 1 and spaces == 1 and line.replace(" ", "").isdigit():
                dimension = int(line.split()[1])  # a word2vec header, "count dimension"
                continue
            if not dimension:
                dimension = spaces
            if spaces < dimension or not dimension:
                raise SquadFormatError(
                    f"{path}, line {number}: expected a word and {dimension or 'some'} numbers, found {spaces}."
                )
            word, _, values = line.partition(" ")
            key = word.lower()
            if spaces > dimension or key not in wanted or (key in vectors and word != key):
                continue
            try:
                vectors[key] = [float(value) for value in values.split(" ")]
            except ValueError as error:
                raise SquadFormatError(f"{path}, line {number}: {error}.") from error
    return vectors, dimension
