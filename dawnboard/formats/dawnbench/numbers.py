"""Reading a log's numbers with pandas' C parser, and finding the line it refused."""

from __future__ import annotations

import csv
import tempfile
import warnings as python_warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dawnboard.errors import ErrorCode, Issue
from dawnboard.formats.dawnbench.lines import LineTable
from dawnboard.rules import EPOCH


@dataclass(frozen=True)
class NumberReader:
    """pandas' C parser set up for a DAWNBench log: the required columns, as float64, nothing else."""

    names: list[str]
    required: list[str]

    def read(
        self, data: bytes, columns: list[str] | None = None, *, strict: bool = False
    ) -> dict[str, np.ndarray] | None:
        """The parsed columns as float64 arrays, or None when a cell is not a number.

        The types are inferred rather than forced to float64, because a forced conversion would
        quietly read the words True and False as 1 and 0. `strict` reads every column and refuses a
        row with more cells than there are names.
        """
        columns = columns or self.required
        # pandas' C parser reads a file by its path about 1.5x faster than from an in-memory buffer,
        # and that read is most of the ingest's time: spool the bytes to a temporary file first.
        with tempfile.NamedTemporaryFile(prefix="dawnboard-log-", suffix=".tsv") as spool:
            spool.write(data)
            spool.flush()
            with python_warnings.catch_warnings():
                python_warnings.simplefilter("error" if strict else "ignore", pd.errors.ParserWarning)
                python_warnings.simplefilter("ignore", pd.errors.DtypeWarning)  # a mixed column reads as None
                try:
                    frame = pd.read_csv(
                        spool.name,
                        sep="\t",
                        header=0,
                        names=self.names,
                        usecols=None if strict else columns,
                        engine="c",
                        quoting=csv.QUOTE_NONE,  # TSV logs have no quoting: a '"' is just a character
                        index_col=False,
                        skip_blank_lines=True,
                    )
                except (ValueError, pd.errors.ParserError, pd.errors.ParserWarning):
                    return None
        if not all(is_number_column(frame[name]) for name in columns):
            return None
        return {name: frame[name].to_numpy(dtype=np.float64) for name in columns}


def is_number_column(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def unique_names(names: list[str], *, width: int) -> list[str]:
    """Column names for pandas: unnamed header cells (and cells past the header) get unique placeholders."""
    named = [name or f"_unnamed_{i}" for i, name in enumerate(names)]
    return named + [f"_unnamed_{i}" for i in range(len(names), width)]


def locate_unreadable_line(body: bytes, reader: NumberReader, lines: LineTable) -> Issue:
    """The slow path, for a log pandas refused: bisect with pandas itself to the first line it cannot read.

    Asking the same parser (rather than imitating it) keeps the verdict and the line it names in
    agreement; halving costs about one more pass over the file. Each try gets a header of as many
    (empty) names as the real one, which pandas skips anyway, rather than a copy of a long header.
    """
    header = b"\t" * body.count(b"\t", 0, int(lines.ends[0])) + b"\n"
    data_lines = lines.data_lines

    def chunk(first: int, stop: int) -> bytes:
        return header + body[lines.starts[data_lines[first] - 1] : lines.ends[data_lines[stop - 1] - 1]]

    def readable(first: int, stop: int) -> bool:
        columns = reader.read(chunk(first, stop))
        return columns is not None and len(columns[EPOCH]) == stop - first

    first, stop = 0, len(data_lines)
    while stop - first > 1:
        middle = (first + stop) // 2
        if readable(first, middle):
            first = middle
        else:
            stop = middle
    line = int(data_lines[first])
    text = lines.text(body, line)
    if "\r" in text:
        return Issue(
            ErrorCode.NON_NUMERIC_CELL,
            f"Line {line} holds a carriage return inside the row, which splits it in two.",
            line=line,
            field=reader.required[0],
        )
    for name in reader.required:
        if reader.read(chunk(first, first + 1), columns=[name]) is None:
            cell = text.split("\t")[reader.names.index(name)] if name in reader.names else ""
            return Issue(
                ErrorCode.NON_NUMERIC_CELL,
                f"Line {line}, column '{name}': '{cell[:40]}' is not a number.",
                field=name,
                line=line,
            )
    return Issue(
        ErrorCode.NON_NUMERIC_CELL, f"Line {line} cannot be read as numbers.", field=reader.required[0], line=line
    )
