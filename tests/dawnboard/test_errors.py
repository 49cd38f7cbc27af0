"""The per-code cap on the issues a verdict lists: the first few of each code, then how many more."""

from __future__ import annotations

from dawnboard.errors import MAX_ISSUES_PER_CODE, ErrorCode, Issue, IssueCounter, WarningCode, capped_per_code
from dawnboard.validation import IngestRejection


def issues(code: str, count: int) -> list[Issue]:
    return [Issue(code, f"problem {i}", line=i) for i in range(count)]


def test_a_rejection_lists_the_first_errors_of_each_code_and_counts_the_rest():
    # Any checker's errors, present or future, pass through the rejection.
    rejection = IngestRejection(errors=issues(ErrorCode.NON_NUMERIC_CELL, 1_000) + issues(ErrorCode.EMPTY_LOG, 3))

    codes = [issue.code for issue in rejection.errors]
    assert codes == [ErrorCode.NON_NUMERIC_CELL] * MAX_ISSUES_PER_CODE + [ErrorCode.EMPTY_LOG] * 3 + [
        ErrorCode.NON_NUMERIC_CELL
    ]
    assert rejection.errors[MAX_ISSUES_PER_CODE - 1].line == MAX_ISSUES_PER_CODE - 1
    assert rejection.errors[-1].message == "... and 980 more non_numeric_cell errors not listed."


def test_a_rejection_caps_its_warnings_too():
    rejection = IngestRejection(errors=issues(ErrorCode.EMPTY_LOG, 1), warnings=issues(WarningCode.BLANK_LINES, 25))

    assert len(rejection.warnings) == MAX_ISSUES_PER_CODE + 1
    assert rejection.warnings[-1].message == "... and 5 more blank_lines warnings not listed."


def test_capping_twice_keeps_the_count():
    once = capped_per_code(issues(ErrorCode.NON_FINITE_NUMBER, 100))

    assert capped_per_code(once) == once
    assert IngestRejection(errors=once).errors == once


def test_a_collector_that_stopped_early_adds_to_the_count_of_the_same_code():
    counter = IssueCounter()
    for issue in issues(ErrorCode.NON_FINITE_NUMBER, 30):
        counter.add(issue)

    rejection = IngestRejection(errors=counter.issues() + issues(ErrorCode.NON_FINITE_NUMBER, 2))

    assert len(rejection.errors) == MAX_ISSUES_PER_CODE + 1
    assert rejection.errors[-1].message == "... and 12 more non_finite_number errors not listed."


def test_a_short_list_is_left_as_it_is():
    errors = issues(ErrorCode.MISSING_FIELD, MAX_ISSUES_PER_CODE)

    assert IngestRejection(errors=errors).errors == errors
