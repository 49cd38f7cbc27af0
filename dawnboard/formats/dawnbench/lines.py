"""Where each line of a log starts and ends, and which lines hold more or fewer cells than the header.

Found with numpy over the raw bytes, without a Python loop over the lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LineTable:
    """Where each physical line starts and ends, and how many tabs it holds, found without a Python loop."""

    starts: np.ndarray
    ends: np.ndarray
    data_lines: np.ndarray  # 1-based physical line number of each data row, in order
    uneven_lines: np.ndarray  # data lines whose tab count differs from the header's
    max_tabs: int
    blank_count: int
    first_blank: int | None

    @property
    def data_count(self) -> int:
        return len(self.data_lines)

    @classmethod
    def of(cls, body: bytes, *, expected_tabs: int) -> LineTable:
        buffer = np.frombuffer(body, dtype=np.uint8)
        newlines = np.flatnonzero(buffer == ord("\n"))
        ends = np.append(newlines, len(body)) if (len(body) and body[-1:] != b"\n") else newlines
        starts = np.concatenate(([0], ends[:-1] + 1))
        tabs = np.flatnonzero(buffer == ord("\t"))
        lengths = ends - starts
        carriage = np.zeros(len(ends), dtype=bool)
        nonempty = lengths > 0
        carriage[nonempty] = buffer[ends[nonempty] - 1] == ord("\r")
        blank = (lengths - carriage) == 0
        blank[0] = False  # the header
        line_numbers = np.arange(1, len(ends) + 1)
        data = ~blank
        data[0] = False
        blank_lines = line_numbers[blank]
        data_lines = line_numbers[data]
        uneven_lines, max_tabs = find_uneven_lines(tabs, starts, ends, data_lines, expected_tabs)
        return cls(
            starts=starts,
            ends=ends,
            data_lines=data_lines,
            uneven_lines=uneven_lines,
            max_tabs=max_tabs,
            blank_count=len(blank_lines),
            first_blank=int(blank_lines[0]) if len(blank_lines) else None,
        )

    def text(self, body: bytes, line: int) -> str:
        return body[self.starts[line - 1] : self.ends[line - 1]].decode("utf-8").rstrip("\r")


def find_uneven_lines(
    tabs: np.ndarray, starts: np.ndarray, ends: np.ndarray, data_lines: np.ndarray, expected_tabs: int
) -> tuple[np.ndarray, int]:
    """The data lines whose tab count is not `expected_tabs`, and the most tabs on any line.

    The usual log is even: then its data tabs, taken `expected_tabs` at a time, fall each group in
    its own line, which a few vectorised comparisons prove. Otherwise every line's tabs are counted.
    """
    header_tabs = int(np.searchsorted(tabs, ends[0]))
    data_tabs = tabs[header_tabs:]
    rows = len(data_lines)
    if expected_tabs and rows and len(data_tabs) == expected_tabs * rows:
        groups = data_tabs.reshape(rows, expected_tabs)
        if np.all(groups[:, 0] > starts[data_lines - 1]) and np.all(groups[:, -1] < ends[data_lines - 1]):
            return data_lines[:0], max(expected_tabs, header_tabs)
    # A line starts just after the previous line's newline, so one search gives both bounds.
    tab_counts = np.diff(np.searchsorted(tabs, ends), prepend=0)
    return data_lines[tab_counts[data_lines - 1] != expected_tabs], int(tab_counts.max(initial=0))
