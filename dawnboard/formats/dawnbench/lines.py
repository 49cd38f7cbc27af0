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
    widest_line: int  # a line with max_tabs tabs
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
        uneven_lines, max_tabs, widest_line = find_uneven_lines(tabs, starts, ends, data_lines, expected_tabs)
        return cls(
            starts=starts,
            ends=ends,
            data_lines=data_lines,
            uneven_lines=uneven_lines,
            max_tabs=max_tabs,
            widest_line=widest_line,
            blank_count=len(blank_lines),
            first_blank=int(blank_lines[0]) if len(blank_lines) else None,
        )

    def text(self, body: bytes, line: int) -> str:
        return body[self.starts[line - 1] : self.ends[line - 1]].decode("utf-8").rstrip("\r")

    def first_cells(self, body: bytes, cells: int) -> bytes:
        """The body with every line cut after its first `cells` cells, its line end kept.

        pandas pads every row to the widest line it has seen (the header, say), so a log of short rows
        under a header of a thousand names would cost a thousand cells a row; cut, it costs what it weighs.
        """
        buffer = np.frombuffer(body, dtype=np.uint8)
        tabs = np.flatnonzero(buffer == ord("\t"))
        first_tab = np.searchsorted(tabs, self.starts)
        longer = np.searchsorted(tabs, self.ends) - first_tab >= cells  # the line has more cells than kept
        last_kept_tab = np.minimum(first_tab + cells - 1, max(len(tabs) - 1, 0))
        cut = np.where(longer, tabs[last_kept_tab] if len(tabs) else self.ends, self.ends)
        # Kept: from each line's start to its cut (ranges never overlap), and every byte after a line's end.
        edges = np.zeros(len(body) + 1, dtype=np.int8)
        edges[self.starts] += 1
        edges[cut] -= 1  # a cut lies within its own line, so no two lines share an edge
        keep = np.cumsum(edges[:-1], dtype=np.int8) > 0
        keep[self.ends[self.ends < len(body)]] = True  # the newlines
        return buffer[keep].tobytes()


def find_uneven_lines(
    tabs: np.ndarray, starts: np.ndarray, ends: np.ndarray, data_lines: np.ndarray, expected_tabs: int
) -> tuple[np.ndarray, int, int]:
    """The data lines whose tab count is not `expected_tabs`, the most tabs on any line, and a line with that many.

    The usual log is even: then its data tabs, taken `expected_tabs` at a time, fall each group in
    its own line, which a few vectorised comparisons prove. Otherwise every line's tabs are counted.
    """
    header_tabs = int(np.searchsorted(tabs, ends[0]))
    data_tabs = tabs[header_tabs:]
    rows = len(data_lines)
    if expected_tabs and rows and len(data_tabs) == expected_tabs * rows:
        groups = data_tabs.reshape(rows, expected_tabs)
        if np.all(groups[:, 0] > starts[data_lines - 1]) and np.all(groups[:, -1] < ends[data_lines - 1]):
            widest = 1 if header_tabs >= expected_tabs else int(data_lines[0])
            return data_lines[:0], max(expected_tabs, header_tabs), widest
    # A line starts just after the previous line's newline, so one search gives both bounds.
    tab_counts = np.diff(np.searchsorted(tabs, ends), prepend=0)
    widest = int(np.argmax(tab_counts)) if len(tab_counts) else 0
    return data_lines[tab_counts[data_lines - 1] != expected_tabs], int(tab_counts.max(initial=0)), widest + 1
