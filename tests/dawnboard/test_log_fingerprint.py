"""A training log's rows fingerprint (TrainingLog.rows_sha256, IngestResult.log_rows_sha256): the same run however
it is written, a different one as soon as a row up to the threshold differs."""

from __future__ import annotations

import numpy as np
import pytest

from dawnboard.documents import TrainingLog

ROWS = [(0, 0.01, 80.0), (1, 0.02, 90.5), (2, 0.03, 94.1), (3, 0.04, 94.5)]  # crosses cifar10's 94 on row 2


def log_bytes(rows, *, header="epoch\thours\ttop1Accuracy", newline="\n") -> bytes:
    return newline.join([header, *("\t".join(str(cell) for cell in row) for row in rows)]).encode() + b"\n"


def fingerprint(submit, log: bytes) -> str:
    result = submit(log=log)
    assert result.accepted, result.errors
    return result.runs[0].log_rows_sha256


def test_the_same_run_written_otherwise_has_the_same_fingerprint(submit):
    original = fingerprint(submit, log_bytes(ROWS))

    assert len(original) == 64
    assert fingerprint(submit, log_bytes(ROWS, newline="\r\n")) == original
    assert fingerprint(submit, log_bytes([(e, f"{h:.4f}", f"{m:.3f}") for e, h, m in ROWS])) == original
    assert (
        fingerprint(submit, log_bytes([(m, e, h) for e, h, m in ROWS], header="top1Accuracy\tepoch\thours")) == original
    )
    assert fingerprint(submit, log_bytes([*ROWS, (4, 0.05, 95.1)])) == original  # rows after the crossing


@pytest.mark.parametrize("row", range(3))
def test_any_row_up_to_the_crossing_changed_is_another_run(submit, row):
    changed = [list(cells) for cells in ROWS]
    changed[row][1] += 0.001

    assert fingerprint(submit, log_bytes(changed)) != fingerprint(submit, log_bytes(ROWS))


def test_the_fingerprint_reads_epoch_hours_and_quality_as_numbers_through_the_given_row():
    columns = np.array(ROWS).T
    log = TrainingLog(epochs=columns[0], hours=columns[1], metric=columns[2], line_numbers=np.arange(2, 6))
    moved = TrainingLog(epochs=columns[0], hours=columns[1] * 2, metric=columns[2], line_numbers=np.arange(2, 6))

    assert log.rows_sha256(through=2) != log.rows_sha256(through=3)
    assert log.rows_sha256(through=0) != moved.rows_sha256(through=0)
