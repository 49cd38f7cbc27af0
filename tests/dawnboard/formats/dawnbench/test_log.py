"""The training log (TSV): what real logs get away with, with a warning, and what is rejected, by line and column.

The default log of the `training_log` fixture first reaches 94 % on line 5 (epoch 3, 0.04 hours).
"""

from __future__ import annotations

import pytest

from dawnboard.errors import ErrorCode, WarningCode
from dawnboard.formats.dawnbench.log import MAX_LOG_COLUMNS
from dawnboard.formats.dawnbench.numbers import NumberReader

HEADER = ("epoch", "hours", "top1Accuracy")
ROWS = [(0, 0.01, 60.5), (1, 0.02, 85.25), (2, 0.03, 93.5), (3, 0.04, 94.25), (4, 0.05, 94.75)]


def error_codes(result) -> list[str]:
    assert not result.accepted, "expected a rejection"
    return [issue.code for issue in result.errors]


def warning_codes(result) -> list[str]:
    return [issue.code for issue in result.warnings]


def assert_crosses_on_fourth_row(result, *, line: int = 5) -> None:
    """The default log's DAWNBench result, whatever its layout: epoch 3, 0.04 hours."""
    assert result.accepted, [issue.code for issue in getattr(result, "errors", [])]
    assert result.results.time_to_accuracy_seconds == pytest.approx(0.04 * 3600)
    assert result.results.time_to_accuracy_epoch == 3
    assert result.results.time_to_accuracy_line == line
    assert result.results.accuracy == 94.25
    assert result.runs[0].log_row_count == 5


def log_text(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


# Accepted, no warning --------------------------------------------------------------------------------------


def test_accepts_a_clean_log_without_warnings(submit, training_log):
    result = submit(log=training_log())

    assert result.warnings == []
    assert_crosses_on_fourth_row(result)


def test_accepts_a_log_without_a_final_newline(submit, training_log):
    result = submit(log=training_log().rstrip(b"\n"))

    assert result.warnings == []
    assert_crosses_on_fourth_row(result)


def test_accepts_numbers_in_exponent_notation(submit):
    result = submit(log=log_text("epoch\thours\ttop1Accuracy", "0\t1e-2\t6.05e1", "1\t4e-2\t9.425E1"))

    assert result.accepted
    assert result.results.time_to_accuracy_seconds == pytest.approx(144.0)


# Accepted with a warning -----------------------------------------------------------------------------------


def test_warns_about_a_byte_order_mark(submit, training_log):
    result = submit(log=training_log(bom=True))

    assert warning_codes(result) == [WarningCode.BYTE_ORDER_MARK]
    assert_crosses_on_fourth_row(result)


def test_warns_about_crlf_line_endings(submit, training_log):
    result = submit(log=training_log(line_end="\r\n"))

    assert warning_codes(result) == [WarningCode.CRLF_LINE_ENDINGS]
    assert_crosses_on_fourth_row(result)


def test_warns_about_a_byte_order_mark_and_crlf_together(submit, training_log):
    result = submit(log=training_log(bom=True, line_end="\r\n"))

    assert warning_codes(result) == [WarningCode.BYTE_ORDER_MARK, WarningCode.CRLF_LINE_ENDINGS]
    assert_crosses_on_fourth_row(result)


def test_matches_the_documented_columns_by_name_in_any_order_without_a_warning(submit, training_log):
    rows = [(accuracy, epoch, hours) for epoch, hours, accuracy in ROWS]

    result = submit(log=training_log(rows, columns=("top1Accuracy", "epoch", "hours")))

    assert warning_codes(result) == []
    assert_crosses_on_fourth_row(result)


def test_warns_about_spaces_around_cells(submit, training_log):
    rows = [(f" {epoch}", f"{hours}  ", f" {accuracy} ") for epoch, hours, accuracy in ROWS]

    result = submit(log=training_log(rows, columns=(" epoch", "hours ", "top1Accuracy")))

    assert warning_codes(result) == [WarningCode.WHITESPACE_TRIMMED]
    assert_crosses_on_fourth_row(result)


def test_accepts_trailing_empty_cells_with_a_warning(submit, training_log):
    rows = [(*row, "", "") for row in ROWS]

    result = submit(log=training_log(rows))

    assert warning_codes(result) == [WarningCode.WHITESPACE_TRIMMED]
    assert_crosses_on_fourth_row(result)


def test_accepts_a_trailing_tab_after_the_header_and_every_row(submit, training_log):
    rows = [(*row, "") for row in ROWS]

    result = submit(log=training_log(rows, columns=(*HEADER, "")))

    assert warning_codes(result) == [WarningCode.WHITESPACE_TRIMMED]
    assert_crosses_on_fourth_row(result)


def test_warns_about_extra_columns_and_ignores_them(submit, training_log):
    rows = [(*row, 0.1 / (row[0] + 1), "sgd") for row in ROWS]

    result = submit(log=training_log(rows, columns=(*HEADER, "learningRate", "optimizer")))

    assert warning_codes(result) == [WarningCode.EXTRA_COLUMNS]
    assert result.warnings[0].line == 1
    assert_crosses_on_fourth_row(result)


def test_warns_about_an_extra_column_before_the_required_ones(submit, training_log):
    rows = [("x", *row) for row in ROWS]

    result = submit(log=training_log(rows, columns=("note", *HEADER)))

    assert warning_codes(result) == [WarningCode.EXTRA_COLUMNS]
    assert_crosses_on_fourth_row(result)


def test_accepts_a_row_that_lacks_only_an_extra_column(submit, training_log):
    rows = [(*row, 0.5) for row in ROWS]
    rows[1] = ROWS[1]

    result = submit(log=training_log(rows, columns=(*HEADER, "trainLoss")))

    assert warning_codes(result) == [WarningCode.EXTRA_COLUMNS]
    assert_crosses_on_fourth_row(result)


def test_skips_blank_lines_with_a_warning_and_keeps_physical_line_numbers(submit):
    log = log_text(
        "epoch\thours\ttop1Accuracy",
        "",
        "0\t0.01\t60.5",
        "1\t0.02\t85.25",
        "",
        "",
        "2\t0.03\t93.5",
        "3\t0.04\t94.25",
        "4\t0.05\t94.75",
    )

    result = submit(log=log)

    assert warning_codes(result) == [WarningCode.BLANK_LINES]
    assert result.warnings[0].line == 2
    assert_crosses_on_fourth_row(result, line=8)
    assert [point.line for point in result.runs[0].curve] == [3, 4, 7, 8, 9]


def test_skips_blank_crlf_lines(submit, training_log):
    log = training_log(line_end="\r\n").replace(b"\r\n2\t", b"\r\n\r\n2\t")

    result = submit(log=log)

    assert warning_codes(result) == [WarningCode.CRLF_LINE_ENDINGS, WarningCode.BLANK_LINES]
    assert result.warnings[1].line == 4
    assert_crosses_on_fourth_row(result, line=6)


def test_reports_errors_after_blank_lines_at_their_physical_line(submit):
    log = log_text("epoch\thours\ttop1Accuracy", "", "0\t0.01\t60.5", "", "", "1\t0.005\t95")

    result = submit(log=log)

    assert error_codes(result) == [ErrorCode.HOURS_DECREASING]
    assert result.errors[0].line == 6


def test_accepts_a_repeated_epoch_while_hours_increase(submit, training_log):
    rows = [(0, 0.01, 60.5), (1, 0.02, 85.25), (1, 0.03, 93.5), (1, 0.04, 94.25), (2, 0.05, 94.75)]

    result = submit(log=training_log(rows))

    assert warning_codes(result) == [WarningCode.REPEATED_EPOCH]
    assert result.warnings[0].field == "epoch"
    assert result.warnings[0].line == 4
    assert result.accepted
    assert result.results.time_to_accuracy_seconds == pytest.approx(144.0)
    assert result.results.time_to_accuracy_epoch == 1
    assert result.results.time_to_accuracy_line == 5


def test_accepts_an_epoch_counter_restarting_while_hours_increase(submit, training_log):
    rows = [(0, 0.01, 60.5), (1, 0.02, 85.25), (0, 0.03, 93.5), (1, 0.04, 94.25)]

    result = submit(log=training_log(rows))

    assert warning_codes(result) == [WarningCode.REPEATED_EPOCH]
    assert result.warnings[0].line == 4
    assert result.results.time_to_accuracy_line == 5


def test_converts_a_squad_f1_log_written_as_a_percent(submit, training_log):
    rows = [(0, 0.5, 60.0), (1, 1.0, 74.9), (2, 1.5, 75.0), (3, 2.0, 81.0)]

    result = submit(task="squad", log=training_log(rows, columns=("epoch", "hours", "f1Score")))

    assert warning_codes(result) == [WarningCode.METRIC_PERCENT_CONVERTED]
    assert result.warnings[0].field == "f1Score"
    assert result.results.accuracy == pytest.approx(0.75)
    assert result.results.time_to_accuracy_seconds == pytest.approx(1.5 * 3600)
    assert result.results.time_to_accuracy_line == 4
    assert [point.metric for point in result.runs[0].curve] == pytest.approx([0.6, 0.749, 0.75, 0.81])


def test_reads_a_squad_f1_log_written_as_a_fraction_without_warning(submit, training_log):
    rows = [(0, 0.5, 0.6), (1, 1.0, 0.76)]

    result = submit(task="squad", log=training_log(rows, columns=("epoch", "hours", "f1Score")))

    assert result.warnings == []
    assert result.results.accuracy == 0.76
    assert result.results.time_to_accuracy_line == 3


# Rejected -------------------------------------------------------------------------------------------------


def test_rejects_a_log_that_is_not_utf8_naming_the_line(submit, training_log):
    log = training_log() + b"5\t0.06\t94.8\t\xe9t\xe9\n"  # Latin-1, as some editors save

    result = submit(log=log)

    assert error_codes(result) == [ErrorCode.NOT_UTF8]
    assert result.errors[0].line == 7
    assert result.errors[0].field == "log"


@pytest.mark.parametrize("missing", HEADER)
def test_rejects_a_missing_column(submit, training_log, missing):
    columns = [name for name in HEADER if name != missing]
    rows = [[cell for name, cell in zip(HEADER, row, strict=True) if name != missing] for row in ROWS]

    result = submit(log=training_log(rows, columns=columns))

    assert error_codes(result) == [ErrorCode.MISSING_COLUMN]
    assert result.errors[0].field == missing
    assert result.errors[0].line == 1


def test_rejects_a_metric_column_named_for_another_task(submit, training_log):
    result = submit(log=training_log(columns=("epoch", "hours", "top5Accuracy")))

    assert error_codes(result) == [ErrorCode.MISSING_COLUMN]
    assert result.errors[0].field == "top1Accuracy"


def test_rejects_an_empty_log_file(submit):
    result = submit(log=b"")

    assert error_codes(result) == [ErrorCode.MISSING_COLUMN] * 3


def test_rejects_a_duplicate_column(submit, training_log):
    rows = [(*row, row[1]) for row in ROWS]

    result = submit(log=training_log(rows, columns=(*HEADER, "hours")))

    assert error_codes(result) == [ErrorCode.DUPLICATE_COLUMN]
    assert result.errors[0].field == "hours"
    assert result.errors[0].line == 1


@pytest.mark.parametrize("cell", ["ninety", "94.2%", "1,5", "0x5f", "94.2.1", "9_4", "5e", "-"])
def test_rejects_a_non_numeric_cell_naming_line_and_column(submit, training_log, cell):
    rows = list(ROWS)
    rows[2] = (2, 0.03, cell)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.NON_NUMERIC_CELL]
    assert result.errors[0].line == 4
    assert result.errors[0].field == "top1Accuracy"


def test_rejects_a_non_numeric_hours_cell(submit, training_log):
    rows = list(ROWS)
    rows[0] = (0, "36s", 60.5)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.NON_NUMERIC_CELL]
    assert result.errors[0].line == 2
    assert result.errors[0].field == "hours"


@pytest.mark.parametrize("cell", ["NaN", "nan", "inf", "-inf", "Infinity", ""])
def test_rejects_a_nan_infinite_or_empty_cell(submit, training_log, cell):
    rows = list(ROWS)
    rows[1] = (1, cell, 85.25)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.NON_FINITE_CELL]
    assert result.errors[0].line == 3
    assert result.errors[0].field == "hours"


def test_rejects_a_row_of_empty_cells(submit, training_log):
    rows = list(ROWS)
    rows[1] = ("", "", "")

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.NON_FINITE_CELL] * 3
    assert {issue.line for issue in result.errors} == {3}


def test_rejects_negative_hours(submit, training_log):
    rows = list(ROWS)
    rows[0] = (0, -0.01, 60.5)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.NEGATIVE_HOURS]
    assert result.errors[0].line == 2
    assert result.errors[0].field == "hours"


def test_rejects_a_negative_epoch(submit, training_log):
    rows = list(ROWS)
    rows[0] = (-1, 0.01, 60.5)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.NEGATIVE_EPOCH]
    assert result.errors[0].line == 2
    assert result.errors[0].field == "epoch"


def test_rejects_hours_going_backwards(submit, training_log):
    rows = list(ROWS)
    rows[3] = (3, 0.025, 94.25)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.HOURS_DECREASING]
    assert result.errors[0].line == 5
    assert result.errors[0].field == "hours"


def test_accepts_hours_that_stay_equal_while_epochs_advance(submit, training_log):
    rows = list(ROWS)
    rows[3] = (3, 0.03, 94.25)

    result = submit(log=training_log(rows))

    assert result.accepted
    assert result.warnings == []
    assert result.results.time_to_accuracy_seconds == pytest.approx(0.03 * 3600)


def test_rejects_a_repeated_epoch_whose_hours_do_not_increase(submit, training_log):
    rows = list(ROWS)
    rows[2] = (1, 0.02, 93.5)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.AMBIGUOUS_REPEATED_EPOCH]
    assert result.errors[0].line == 4
    assert result.errors[0].field == "epoch"


def test_rejects_a_row_with_more_cells_than_the_header(submit, training_log):
    rows = list(ROWS)
    rows[1] = (*ROWS[1], 0.5)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.WRONG_CELL_COUNT]
    assert result.errors[0].line == 3


def test_rejects_a_row_with_fewer_cells_than_the_required_columns(submit, training_log):
    rows = list(ROWS)
    rows[2] = (2, 0.03)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.WRONG_CELL_COUNT]
    assert result.errors[0].line == 4


def test_rejects_a_line_of_spaces_as_a_row(submit, training_log):
    result = submit(log=training_log().replace(b"\n2\t", b"\n   \n2\t"))

    assert error_codes(result) == [ErrorCode.WRONG_CELL_COUNT]
    assert result.errors[0].line == 4


@pytest.mark.parametrize("accuracy", [101, 100.01, -1])
def test_rejects_an_accuracy_out_of_range(submit, training_log, accuracy):
    rows = list(ROWS)
    rows[1] = (1, 0.02, accuracy)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.METRIC_OUT_OF_RANGE]
    assert result.errors[0].line == 3
    assert result.errors[0].field == "top1Accuracy"


def test_accepts_an_accuracy_of_exactly_100(submit, training_log):
    rows = [*ROWS, (5, 0.06, 100)]

    result = submit(log=training_log(rows))

    assert result.accepted


def test_rejects_a_squad_f1_above_100(submit, training_log):
    rows = [(0, 0.5, 0.6), (1, 1.0, 175.0)]

    result = submit(task="squad", log=training_log(rows, columns=("epoch", "hours", "f1Score")))

    assert error_codes(result) == [ErrorCode.METRIC_OUT_OF_RANGE]
    assert result.errors[0].line == 3


def test_rejects_a_log_with_a_header_only(submit, training_log):
    result = submit(log=training_log([]))

    assert error_codes(result) == [ErrorCode.EMPTY_LOG]


def test_rejects_a_log_with_a_header_and_blank_lines_only(submit):
    result = submit(log=b"epoch\thours\ttop1Accuracy\n\n\r\n\n")

    assert error_codes(result) == [ErrorCode.EMPTY_LOG]


def test_reports_several_curve_errors_at_once(submit, training_log):
    rows = [(-1, 0.01, 60.5), (1, 0.02, 185.0), (2, 0.01, 94.5)]

    result = submit(log=training_log(rows))

    assert error_codes(result) == [
        ErrorCode.NEGATIVE_EPOCH,
        ErrorCode.HOURS_DECREASING,
        ErrorCode.METRIC_OUT_OF_RANGE,
    ]
    assert [issue.line for issue in result.errors] == [2, 4, 3]


def test_rejects_hours_beyond_any_real_run(submit, training_log):
    rows = list(ROWS)
    rows[2] = (2, 2e6, 93.5)
    rows[3:] = []

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.NUMBER_OUT_OF_RANGE]
    assert result.errors[0].line == 4
    assert result.errors[0].field == "hours"


def test_rejects_an_epoch_beyond_any_real_run(submit, training_log):
    rows = list(ROWS)
    rows[4] = ("5e9", 0.05, 94.75)

    result = submit(log=training_log(rows))

    assert error_codes(result) == [ErrorCode.NUMBER_OUT_OF_RANGE]
    assert result.errors[0].line == 6
    assert result.errors[0].field == "epoch"


def test_accepts_a_quote_in_an_extra_column_as_a_plain_character(submit, training_log):
    rows = [(*row, "") for row in ROWS]
    rows[0] = (*ROWS[0], '"lr warmup')

    result = submit(log=training_log(rows, columns=(*HEADER, "note")))

    assert warning_codes(result) == [WarningCode.EXTRA_COLUMNS]
    assert_crosses_on_fourth_row(result)


def test_accepts_two_unnamed_extra_columns(submit, training_log):
    rows = [(epoch, "", "", hours, accuracy) for epoch, hours, accuracy in ROWS]

    result = submit(log=training_log(rows, columns=("epoch", "", "", "hours", "top1Accuracy")))

    assert warning_codes(result) == [WarningCode.EXTRA_COLUMNS]
    assert_crosses_on_fourth_row(result)


@pytest.mark.parametrize("cell", ["Null", "NONE", "nAn", "+nan", "\u0663", "\uff19\uff15", "\u00a094.5"])
def test_names_the_line_of_a_cell_that_only_looks_numeric_or_missing(submit, training_log, cell):
    rows = list(ROWS)
    rows[1] = (1, 0.02, cell)

    result = submit(log=training_log(rows))

    assert error_codes(result) in ([ErrorCode.NON_NUMERIC_CELL], [ErrorCode.NON_FINITE_CELL])
    assert result.errors[0].line == 3
    assert result.errors[0].field == "top1Accuracy"


def test_names_the_line_of_a_lone_carriage_return_inside_a_row(submit, training_log):
    log = training_log().replace(b"1\t0.02\t85.25", b"1\t0.02\r\t85.25")

    result = submit(log=log)

    assert not result.accepted
    assert result.errors[0].line == 3


# Hostile shapes: refused (or read) at a cost in proportion to the file -------------------------------------


def wide_header(columns: int) -> str:
    return "\t".join((*HEADER, *(f"extra{i}" for i in range(columns - len(HEADER)))))


def test_refuses_a_header_of_a_hundred_thousand_columns(submit):
    result = submit(log=log_text(wide_header(100_001), "0\t0.5\t95"))

    assert error_codes(result) == [ErrorCode.TOO_MANY_COLUMNS]
    assert result.errors[0].line == 1
    assert "100,001" in result.errors[0].message


def test_refuses_a_two_megabyte_one_line_header(submit):
    header = wide_header(200_000)
    assert len(header) > 2_000_000

    result = submit(log=header.encode())

    assert error_codes(result) == [ErrorCode.TOO_MANY_COLUMNS]
    assert result.errors[0].line == 1


def test_refuses_a_header_of_a_thousand_trailing_tabs(submit):
    result = submit(log=log_text("\t".join(HEADER) + "\t" * 1_000, "0\t0.5\t95"))

    assert error_codes(result) == [ErrorCode.TOO_MANY_COLUMNS]


def test_accepts_a_header_of_exactly_the_column_limit(submit):
    result = submit(log=log_text(wide_header(MAX_LOG_COLUMNS), "0\t0.5\t60", "1\t1.0\t95"))

    assert result.accepted
    assert result.results.time_to_accuracy_line == 3


def test_refuses_a_row_of_a_million_trailing_tabs(submit):
    # Accepted once, after pandas had built a column for every empty cell (27 s).
    result = submit(log=log_text("\t".join(HEADER), "0\t0.5\t60" + "\t" * 1_000_000, "1\t1.0\t95"))

    assert error_codes(result) == [ErrorCode.TOO_MANY_COLUMNS]
    assert result.errors[0].line == 2


@pytest.mark.parametrize("row", [2, 4], ids=["first-row", "later-row"])
def test_refuses_a_row_of_half_a_million_cells(submit, training_log, row):
    lines = training_log().decode().splitlines()
    lines[row - 1] += "\t1" * 500_000

    result = submit(log=log_text(*lines))

    assert error_codes(result) == [ErrorCode.TOO_MANY_COLUMNS]
    assert result.errors[0].line == row


def test_lists_at_most_twenty_extra_column_names(submit):
    result = submit(log=log_text(wide_header(500), "0\t0.5\t60", "1\t1.0\t95"))

    assert warning_codes(result) == [WarningCode.EXTRA_COLUMNS]
    message = result.warnings[0].message
    assert "extra19 and 477 more." in message
    assert "extra20" not in message


def test_cuts_a_long_column_name_short_in_messages(submit):
    name = "x" * 100_000

    result = submit(log=log_text("\t".join((*HEADER, name, name)), "0\t0.5\t60\t1\t1", "1\t1.0\t95\t1\t1"))

    assert error_codes(result) == [ErrorCode.DUPLICATE_COLUMN]
    assert len(result.errors[0].message) < 200


def test_lists_twenty_duplicate_columns_and_counts_the_rest(submit):
    header = "\t".join((*HEADER, *(f"d{i}" for i in range(300)), *(f"d{i}" for i in range(300))))

    result = submit(log=log_text(header, "0\t0.5\t95"))

    assert error_codes(result) == [ErrorCode.DUPLICATE_COLUMN] * 21
    assert "280 more duplicate_column errors" in result.errors[-1].message


def test_reads_only_the_needed_cells_of_short_rows_under_a_wide_header(submit, monkeypatch):
    # pandas pads every row to the widest line: 1,000 cells a row for rows of three, once.
    widths = []
    read = NumberReader.read

    def spy(self, data, *args, **kwargs):
        widths.append(len(self.names))
        return read(self, data, *args, **kwargs)

    monkeypatch.setattr(NumberReader, "read", spy)
    rows = [f"{i}\t{(i + 1) / 1000}\t{60 + i / 100}" for i in range(3_500)]

    result = submit(log=log_text(wide_header(MAX_LOG_COLUMNS), *rows))

    assert result.accepted
    assert result.results.time_to_accuracy_line == 3_402  # 60 + 3400/100 = 94
    assert max(widths) == len(HEADER)


def test_names_the_file_line_of_a_bad_cell_in_short_rows_under_a_wide_header(submit):
    lines = [wide_header(50), "0\t0.1\t60\t1", "", "1\t0.2\t70", "2\t0.3\tninety\t5", "\r", "3\t0.4\t95"]

    result = submit(log=log_text(*lines))

    assert error_codes(result) == [ErrorCode.NON_NUMERIC_CELL]
    assert result.errors[0].line == 5
    assert result.errors[0].field == "top1Accuracy"
    assert "'ninety'" in result.errors[0].message


def test_reads_two_hundred_thousand_uneven_rows(submit):
    rows = [f"{i}\t{(i + 1) / 1e6}\t50" + "\t0.1" * (i % 3) for i in range(200_000)]

    result = submit(log=log_text("\t".join((*HEADER, "lr", "momentum")), *rows, "200000\t1\t95"))

    assert result.accepted
    assert result.runs[0].log_row_count == 200_001
    assert result.results.time_to_accuracy_line == 200_002
