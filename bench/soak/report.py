"""The one table `make soak` prints, and whether the run passed."""

from __future__ import annotations

from bench.soak import client
from bench.soak.hostile import ANSWER_WITHIN_SECONDS, HOME_P99_UNDER_MS, HostileResult
from bench.soak.phases import PhaseResult
from bench.soak.schema import SchemaResult

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
) -> list[str]:
    """Why the run failed; empty when it passed."""
    reasons = []
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
    return reasons


def table(
    *,
    header: str,
    phases: list[PhaseResult],
    hostile: HostileResult | None,
    throttle: HostileResult | None,
    schema: SchemaResult | None,
    stuck_at_end: int | None,
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
