"""The soak's own arithmetic (bench/soak): how rows in the database become lost, doubled and stuck."""

from __future__ import annotations

from bench.soak.client import percentile_ms
from bench.soak.payloads import batch
from bench.soak.verify import Row, count


def _logical(label: str = "a", expected: str = "accepted"):
    logical = batch("test", label, 1, clients=1, invalid_share=0.0)[0]
    logical.expected = expected
    return logical


def test_a_2xx_without_a_row_is_lost():
    logical = _logical()

    tally = count([(logical, 202)], {})

    assert (tally.lost, tally.doubled, tally.stuck) == (1, 0, 0)


def test_two_rows_for_one_submission_are_doubled():
    logical = _logical()
    rows = {logical.entry_sha256: [Row(1, "accepted", 10, []), Row(2, "accepted", 11, [])]}

    tally = count([(logical, 202)], rows)

    assert (tally.lost, tally.doubled) == (0, 1)


def test_a_row_still_pending_is_stuck():
    logical = _logical()

    tally = count([(logical, 202)], {logical.entry_sha256: [Row(1, "pending", None, [])]})

    assert (tally.stuck, tally.accepted) == (1, 0)


def test_a_row_left_by_a_503_is_counted():
    logical = _logical()

    tally = count([(logical, 503)], {logical.entry_sha256: [Row(1, "pending", None, [])]})

    assert (tally.unexpected_rows, tally.lost, tally.stuck) == (1, 0, 0)


def test_a_valid_entry_rejected_is_a_wrong_verdict():
    logical = _logical()

    tally = count([(logical, 202)], {logical.entry_sha256: [Row(1, "rejected", None, ["invalid_url"])]})

    assert (tally.rejected, tally.wrong_verdict) == (1, 1)
    assert tally.verdict_codes == {"invalid_url": 1}


def test_an_accepted_submission_with_its_entry_counts_once():
    logical = _logical()

    tally = count([(logical, 200)], {logical.entry_sha256: [Row(1, "accepted", 7, [])]})

    assert (tally.accepted, tally.lost, tally.doubled, tally.stuck, tally.wrong_verdict) == (1, 0, 0, 0, 0)


def test_every_submission_of_a_batch_has_content_of_its_own():
    logicals = batch("test", "load", 300, clients=16, replay_share=0.2)

    assert len({logical.entry_sha256 for logical in logicals}) == 300
    assert sum(bool(logical.replay) for logical in logicals) == 60


def test_percentiles_in_milliseconds():
    seconds = [n / 1000 for n in range(1, 101)]

    assert round(percentile_ms(seconds, 0.5)) == 50
    assert round(percentile_ms(seconds, 0.99)) == 99
    assert percentile_ms([], 0.99) is None
