"""The one table `make soak` prints, and whether the run passed."""

from __future__ import annotations

from collections import Counter

from bench.soak import client
from bench.soak.copied import CopiedResult
from bench.soak.hostile import ANSWER_WITHIN_SECONDS, HOME_P99_UNDER_MS, HostileResult
from bench.soak.mlperf import MlperfResult
from bench.soak.mlperf import lines as mlperf_lines
from bench.soak.phases import PhaseResult
from bench.soak.reference import ReferenceKillResult
from bench.soak.reference import lines as reference_lines
from bench.soak.schema import SchemaResult
from bench.soak.slow import (
    DIRECT_SECONDS,
    READ_PATHS,
    READER_P99_UNDER_MS,
    TRICKLE_BYTES,
    TRICKLE_INTERVAL_SECONDS,
    TRICKLE_SECONDS,
    SlowResult,
)

PHASE_COLUMNS = (
    ("phase", "<", 18),
    ("sent", ">", 5),
    ("2xx", ">", 5),
    ("accepted", ">", 8),
    ("rejected", ">", 8),
    ("failed", ">", 6),
    ("400", ">", 4),
    ("503", ">", 4),
    ("413", ">", 4),
    ("429", ">", 4),
    ("lost", ">", 4),
    ("doubled", ">", 7),
    ("stuck", ">", 5),
    ("5xx", ">", 4),
    ("p50 ms", ">", 7),
    ("p99 ms", ">", 7),
    ("subs/s", ">", 6),
)


def _line(cells: list[str]) -> str:
    return "  ".join(f"{cell:{align}{width}}" for cell, (_, align, width) in zip(cells, PHASE_COLUMNS, strict=True))


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def phase_cells(result: PhaseResult) -> list[str]:
    statuses, tally = result.statuses, result.tally
    seconds = [reply.seconds for reply in result.replies]
    per_second = len(result.replies) / result.sending_seconds if result.sending_seconds else 0.0
    return [
        result.name,
        str(len(result.replies)),
        str(sum(count for status, count in statuses.items() if 200 <= status < 300)),
        str(tally.accepted),
        str(tally.rejected),
        str(tally.failed),
        str(statuses.get(400, 0)),
        str(statuses.get(503, 0)),
        str(statuses.get(413, 0)),
        str(statuses.get(429, 0)),
        str(tally.lost),
        str(tally.doubled),
        str(tally.stuck),
        str(result.server_errors),
        _ms(client.percentile_ms(seconds, 0.5)),
        _ms(client.percentile_ms(seconds, 0.99)),
        f"{per_second:.1f}",
    ]


def failures(
    phases: list[PhaseResult],
    hostile: HostileResult | None,
    throttle: HostileResult | None,
    schema: SchemaResult | None,
    stuck_at_end: int | None,
    slow: SlowResult | None = None,
    copied: CopiedResult | None = None,
    mlperf: MlperfResult | None = None,
    reference: ReferenceKillResult | None = None,
) -> list[str]:
    """Why the run failed; empty when it passed."""
    reasons = [f"slow uploads: {reason}" for reason in (slow.failures if slow else [])]
    if copied is not None and copied.failures:
        reasons.append(f"copied log: {copied.failures} checks missed")
    if mlperf is not None and mlperf.failures:
        reasons.append(f"import_mlperf: {mlperf.failures} checks missed")
    for result in phases:
        tally = result.tally
        for name in ("lost", "doubled", "stuck", "unexpected_rows", "wrong_verdict"):
            if getattr(tally, name):
                reasons.append(f"{result.name}: {name.replace('_', ' ')} {getattr(tally, name)}")
        if result.server_errors:
            reasons.append(f"{result.name}: {result.server_errors} server errors (5xx or no answer)")
        if result.failed_reads:
            reasons.append(f"{result.name}: {result.failed_reads} reads of / not answered 200 while it ran")
        if result.replays.get("503 without Retry-After"):
            reasons.append(f"{result.name}: {result.replays['503 without Retry-After']} 503s without Retry-After")
        if result.replays.get("other id"):
            reasons.append(f"{result.name}: {result.replays['other id']} replays answered with another id")
    if hostile is not None and hostile.failures:
        reasons.append(f"hostile: {hostile.failures} checks missed")
    if throttle is not None and throttle.failures:
        reasons.append("throttling: a flood of bad tokens was never answered 429 with Retry-After")
    if schema is not None and (not schema.ran or schema.server_errors or schema.other_failures):
        reasons.append(f"schemathesis: {schema.server_errors} server errors, {schema.other_failures} other")
    if stuck_at_end:
        reasons.append(f"{stuck_at_end} submissions still pending at the end")
    if reference is not None and not reference.killed:
        reasons.append("reference run: no run was still running when its worker was to be killed")
    elif reference is not None and not reference.ok:
        reasons.append(f"reference run: {reference.final_state or 'unknown'} after its worker was killed, not failed")
    return reasons


def table(
    *,
    header: str,
    phases: list[PhaseResult],
    hostile: HostileResult | None,
    throttle: HostileResult | None,
    schema: SchemaResult | None,
    stuck_at_end: int | None,
    slow: SlowResult | None = None,
    copied: CopiedResult | None = None,
    mlperf: MlperfResult | None = None,
    reference: ReferenceKillResult | None = None,
) -> str:
    lines = [header, "", _line([name for name, _, _ in PHASE_COLUMNS])]
    lines.append(_line(["-" * width for _, _, width in PHASE_COLUMNS]))
    lines += [_line(phase_cells(result)) for result in phases]
    for result in phases:
        replays = ", ".join(f"{name} {count}" for name, count in sorted(result.replays.items()))
        judged = f"judged {result.judging_seconds:.1f} s after the last answer"
        lines.append(f"  {result.name}: {judged}" + (f"; replays: {replays}" if replays else ""))
        lines += [f"    {note}" for note in [*result.notes, *result.tally.examples]]
    if hostile is not None:
        lines += ["", f"{'hostile input':<36}  {'status':>6}  {'code':<28}  {'answer s':>8}  {'code s':>6}  ok"]
        lines.append(f"{'-' * 36}  {'-' * 6}  {'-' * 28}  {'-' * 8}  {'-' * 6}  --")
        for row in [*hostile.rows, *(throttle.rows if throttle else [])]:
            mark = "yes" if row.ok else "NO"
            answer = "-" if row.answer_seconds is None else f"{row.answer_seconds:.2f}"
            line = f"{row.name:<36}  {row.status:>6}  {row.code[:28]:<28}  {answer:>8}  {row.seconds:>6.2f}  {mark}"
            lines.append(line + (f"  ({row.detail})" if row.detail else ""))
        non_200 = sum(status != 200 for status in hostile.home_statuses)
        lines.append(
            f"GET / while they ran: {len(hostile.home_seconds)} requests, p99 {_ms(hostile.home_p99_ms)} ms "
            f"(goal < {HOME_P99_UNDER_MS:.0f}), {non_200} not 200; each code known within "
            f"{ANSWER_WITHIN_SECONDS:.0f} s (code s: for a 202, when its verdict came)"
        )
    elif throttle is not None:
        row = throttle.rows[0]
        lines += ["", f"{row.name}: {row.status} {row.code} {'yes' if row.ok else 'NO'} {row.detail}"]
    if copied is not None:
        lines += ["", *copied_lines(copied)]
    if mlperf is not None:
        lines += ["", *mlperf_lines(mlperf)]
    if reference is not None:
        lines += ["", *reference_lines(reference)]
    if slow is not None:
        lines += ["", *slow_lines(slow)]
    if schema is not None:
        lines.append("")
        if schema.ran:
            lines.append(
                f"schemathesis (not_a_server_error, {schema.operations} operations, {schema.cases} cases): "
                f"{schema.server_errors} server "
                f"errors, {schema.other_failures} other failures, exit {schema.exit_code}"
            )
        else:
            lines.append(f"schemathesis: not run ({schema.detail})")
        if schema.detail and schema.ran:
            lines += [f"  {line}" for line in schema.detail.splitlines()[:20]]
    lines.append(f"pending anywhere at the end: {'not measured' if stuck_at_end is None else stuck_at_end}")
    return "\n".join(lines)


def slow_lines(result: SlowResult) -> list[str]:
    """The slow-upload rows: what became of the slow clients through nginx, and the readers meanwhile."""
    clients = len(result.finished) + len(result.stalled)
    rate = TRICKLE_BYTES / TRICKLE_INTERVAL_SECONDS
    lines = [
        f"{'slow upload, through nginx':<36}  {'answers':<48}  {'s':>5}  ok",
        f"{'-' * 36}  {'-' * 48}  {'-' * 5}  --",
    ]
    tally = result.tally
    finished_ok = all(reply.status == 202 for reply in result.finished) and tally.accepted == len(result.finished)
    finished = f"{_statuses(result.finished)}; judged: {tally.accepted} accepted, {tally.rejected} rejected"
    trickle = f"{TRICKLE_SECONDS:.0f} s at {rate:.0f} bytes/s"
    lines.append(
        _slow_row(f"{len(result.finished)} x {trickle}, then the rest", finished, result.finished, finished_ok)
    )
    timed_out = result.nginx_statuses[408]
    stalled_ok = not result.rows_left_by_stalled and timed_out == len(result.stalled)
    stalled = f"{_statuses(result.stalled)}; nginx logged 408 x{timed_out}; rows {result.rows_left_by_stalled}"
    lines.append(_slow_row(f"{len(result.stalled)} x {trickle}, then silence", stalled, result.stalled, stalled_ok))
    readers, direct = result.through_nginx, result.at_gunicorn
    lines.append(
        f"{' and '.join(READ_PATHS)} through nginx meanwhile ({clients} uploads of {result.body_bytes / 1000:.0f} KB "
        f"held open): {len(readers.seconds)} requests, p99 {_ms(readers.p99_ms)} ms "
        f"(goal < {READER_P99_UNDER_MS:.0f}), {readers.not_200} not 200"
    )
    lines.append(
        f"contrast, not a check: the same {clients} clients straight at gunicorn for {DIRECT_SECONDS:.0f} s: "
        f"readers {_count(len(direct.seconds), 'request')}, {direct.within_goal} within 1 s, slowest "
        f"{_ms(max(direct.seconds, default=0) * 1000)} ms, {direct.not_200} not 200; "
        f"rows {result.rows_left_at_gunicorn}"
    )
    return lines


def _slow_row(name: str, answers: str, replies: list[client.Reply], ok: bool) -> str:
    seconds = max((reply.seconds for reply in replies), default=0.0)
    return f"{name:<36}  {answers:<48}  {seconds:>5.1f}  {'yes' if ok else 'NO'}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _statuses(replies: list[client.Reply]) -> str:
    """ "202 x3", or "no answer x3" for connections closed without one."""
    counts = Counter(reply.status for reply in replies)
    return ", ".join(f"{status or 'no answer'} x{count}" for status, count in sorted(counts.items()))


def copied_lines(result: CopiedResult) -> list[str]:
    """The copied-log rows: each submission's verdict and codes, and what the database holds afterwards."""
    lines = [f"{'copied log':<36}  {'verdict':<10}  {'codes (errors, warnings)':<44}  {'s':>5}  ok"]
    lines.append(f"{'-' * 36}  {'-' * 10}  {'-' * 44}  {'-' * 5}  --")
    for row in result.rows:
        line = f"{row.name:<36}  {row.status:<10}  {row.codes[:44] or '-':<44}  {row.seconds:>5.2f}  "
        lines.append(line + ("yes" if row.ok else "NO") + (f"  ({row.detail})" if row.detail else ""))
    return lines
