"""CSV export: spreadsheet formulas are neutralised, everything else is left alone."""

import csv
import io

import pytest

from leaderboard.export import csv_lines, spreadsheet_safe


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", '=HYPERLINK("http://x")'])
def test_neutralises_cells_a_spreadsheet_would_run(text):
    assert spreadsheet_safe(text) == "'" + text


@pytest.mark.parametrize("value", ["ResNet-9", "1 V100", "", 3.5, -2.0, None])
def test_leaves_other_cells_alone(value):
    assert spreadsheet_safe(value) == value


def test_csv_text_writes_a_header_and_neutralised_rows():
    text = "".join(csv_lines(["model", "value"], [["=cmd|' /C calc'!A0", 1.5]]))

    assert list(csv.reader(io.StringIO(text))) == [["model", "value"], ["'=cmd|' /C calc'!A0", "1.5"]]
