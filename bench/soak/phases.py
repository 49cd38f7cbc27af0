"""The submission phases: load with replays, the worker SIGKILLed while judging, the broker down for 10 s."""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from bench.soak import client, verify
from bench.soak.payloads import Logical, batch
from bench.soak.stack import Stack, StackError, wait_for

CLIENTS = 16
JUDGING_TIMEOUT_SECONDS = 150  # the sweep's deadline (20 s) and visibility timeout (15 s), several times over
STOP = threading.Event()  # set on Ctrl-C or a failure: client threads send nothing more


@dataclass
class PhaseResult:
    name: str
    replies: list[client.Reply] = field(default_factory=list)  # every POST
    final_status: dict[str, int] = field(default_factory=dict)  # per logical label: 2xx if any answer was
    logicals: list[Logical] = field(default_factory=list)
    sending_seconds: float = 0.0
    judging_seconds: float = 0.0
    tally: verify.Tally = field(default_factory=verify.Tally)
    replays: Counter = field(default_factory=Counter)
    failed_reads: int = 0  # GET / not answered 200 while the broker was down
    notes: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, logical: Logical, reply: client.Reply) -> None:
        with self._lock:
            self.replies.append(reply)
            previous = self.final_status.get(logical.label, 0)
            if not 200 <= previous < 300:
                self.final_status[logical.label] = reply.status

    @property
    def statuses(self) -> Counter:
        return Counter(reply.status for reply in self.replies)

    @property
    def server_errors(self) -> int:
        """Answers of 5xx other than the intended 503 `queue_unavailable`, and requests with no answer."""
        return sum(
            reply.status == 0
            or (reply.status >= 500 and not (reply.status == 503 and "queue_unavailable" in reply.codes))
            for reply in self.replies
        )

    def sent(self) -> list[tuple[Logical, int]]:
        answered = self.final_status
        return [(logical, answered[logical.label]) for logical in self.logicals if logical.label in answered]


def post_logical(stack: Stack, logical: Logical) -> client.Reply:
    """Post one logical submission as its client, with its Idempotency-Key."""
    body, headers = logical_request(stack, logical)
    return client.request(
        stack.base_url, "POST", client.SUBMISSIONS_PATH, body=body, headers=headers, timeout_seconds=60
    )


def logical_request(stack: Stack, logical: Logical) -> tuple[bytes, dict[str, str]]:
    """The body and headers of one logical submission, as its client sends it."""
    return client.submission_request(
        token=stack.tokens[logical.client % len(stack.tokens)],
        task=logical.task,
        track=logical.track,
        entry=logical.entry,
        log=logical.log,
        idempotency_key=logical.key,
    )


def _send_one(stack: Stack, logical: Logical, result: PhaseResult) -> None:
    """Send a logical submission, and its replay with the same Idempotency-Key if it has one."""
    if STOP.is_set():
        return
    if logical.replay == "race":
        replies: list[client.Reply] = []
        twin = threading.Thread(target=lambda: replies.append(post_logical(stack, logical)))
        twin.start()
        first = post_logical(stack, logical)
        twin.join(timeout=90)
        replies.insert(0, first)
    else:
        replies = [post_logical(stack, logical)]
        if logical.replay == "after":
            replies.append(post_logical(stack, logical))
    for reply in replies:
        result.record(logical, reply)
    if len(replies) == 2:
        _compare_replay(logical, replies, result)


def _compare_replay(logical: Logical, replies: list[client.Reply], result: PhaseResult) -> None:
    ids = [reply.body.get("id") for reply in replies]
    statuses = [reply.status for reply in replies]
    with result._lock:
        if all(200 <= status < 300 for status in statuses):
            result.replays["same id" if ids[0] == ids[1] else "other id"] += 1
            if ids[0] != ids[1]:
                result.notes.append(f"replay of {logical.label} got id {ids[1]}, first {ids[0]}")
        elif statuses[0] == statuses[1] and 400 <= statuses[0] < 500:
            result.replays["both refused alike"] += 1
        else:
            result.replays[f"answers {statuses[0]}/{statuses[1]}"] += 1
            result.notes.append(f"replay of {logical.label}: {statuses} {replies[1].code or replies[1].error}")


def send_all(stack: Stack, logicals: list[Logical], result: PhaseResult, *, clients: int = CLIENTS) -> None:
    """Each client sends its own logical submissions one after another; the clients run at once."""
    result.logicals.extend(logicals)
    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        for n in range(clients):
            mine = [logical for logical in logicals if logical.client % clients == n]
            pool.submit(lambda mine=mine: [_send_one(stack, logical, result) for logical in mine])
    result.sending_seconds += time.perf_counter() - started


def _judge_and_count(stack: Stack, result: PhaseResult) -> None:
    answered = [logical.entry_sha256 for logical, status in result.sent() if 200 <= status < 300]
    with stack.connect() as connection:
        result.judging_seconds = verify.wait_until_judged(
            connection, answered, timeout_seconds=JUDGING_TIMEOUT_SECONDS, check=stack.assert_running
        )
        result.tally = verify.tally(connection, result.sent())


def warm_up(stack: Stack, run_id: str) -> float:
    """One valid submission judged before any phase starts: the worker is up and consuming."""
    result = PhaseResult("warm-up")
    send_all(stack, batch(run_id, "warm-up", 1, clients=1, invalid_share=0.0), result, clients=1)
    if result.final_status.get("warm-up-0") != 202:
        raise StackError(f"the warm-up submission was answered {result.replies[0].status} {result.replies[0].body}")
    started = time.monotonic()
    with stack.connect() as connection:
        shas = [result.logicals[0].entry_sha256]
        wait_for(
            lambda: verify.pending_count(connection, shas) == 0,
            what="the worker's first verdict",
            timeout_seconds=120,
            check=stack.assert_running,
        )
    return time.monotonic() - started


def load(stack: Stack, run_id: str, *, count: int) -> PhaseResult:
    """`count` submissions from 16 clients, a fifth invalid and a fifth replayed with their Idempotency-Key."""
    result = PhaseResult("load")
    send_all(stack, batch(run_id, "load", count, clients=CLIENTS, replay_share=0.2), result)
    _judge_and_count(stack, result)
    return result


def worker_kills(stack: Stack, run_id: str, *, count: int, kills: int = 3) -> PhaseResult:
    """Send `count` submissions and SIGKILL the worker's process group `kills` times while it judges them."""
    result = PhaseResult("worker SIGKILL x3")
    # Longer logs make each judging take a while, so a kill lands mid-judging.
    logicals = batch(run_id, "kill", count, clients=CLIENTS, replay_share=0.1, extra_rows=400)
    shas = [logical.entry_sha256 for logical in logicals]
    sender = threading.Thread(target=send_all, args=(stack, logicals, result))
    sender.start()
    try:
        with stack.connect() as connection:
            for kill in range(1, kills + 1):
                decided_before = _decided(connection, shas)
                # Kill only once this worker is judging: verdicts have come from it, and plenty is left.
                wait_for(
                    lambda before=decided_before: (
                        _decided(connection, shas) >= before + 3
                        and verify.pending_count(connection, shas) >= (1 if not sender.is_alive() else 20)
                    ),
                    what=f"the worker to judge before kill {kill}",
                    timeout_seconds=90,
                    interval_seconds=0.1,
                    check=stack.assert_running,
                )
                pending = verify.pending_count(connection, shas)
                stack.worker_kill()
                judging = _being_judged(connection, shas)
                result.notes.append(
                    f"kill {kill}: SIGKILL with {pending} of the batch pending, {judging} of them with judging started"
                )
                stack.worker_start()
    finally:
        sender.join(timeout=300)
    _judge_and_count(stack, result)
    with stack.connect() as connection:
        starts = _judging_starts(connection, shas)
    if starts:
        result.notes.append(f"judging started at most {max(starts)} times for one submission; {Counter(starts)}")
    return result


def broker_outage(stack: Stack, run_id: str, *, outage_seconds: float = 10, in_flight: int = 40) -> PhaseResult:
    """Stop the broker for `outage_seconds` while clients submit; then resend what was refused, same keys."""
    result = PhaseResult("broker down 10 s")
    with stack.connect() as connection:
        wait_for(
            lambda: verify.all_pending(connection) == 0,
            what="the queue to drain",
            timeout_seconds=120,
            check=stack.assert_running,
        )
    # Queued just before the stop: Redis keeps nothing on disk, so what it held is lost with it.
    send_all(stack, batch(run_id, "broker-before", in_flight, clients=CLIENTS, invalid_share=0.0), result)
    stack.broker_stop()
    stopped = time.monotonic()
    pool = iter(batch(run_id, "broker", 100_000, clients=CLIENTS, invalid_share=0.0))
    take = threading.Lock()
    refused: list[Logical] = []

    def client_loop() -> None:
        while time.monotonic() - stopped < outage_seconds and not STOP.is_set():
            with take:
                logical = next(pool)
                result.logicals.append(logical)
            reply = post_logical(stack, logical)
            result.record(logical, reply)
            if reply.status == 503:
                refused.append(logical)
                if not reply.headers.get("retry-after"):
                    result.tally.note(f"503 without Retry-After for {logical.label}")
                    result.replays["503 without Retry-After"] += 1

    reads = []
    with ThreadPoolExecutor(4) as clients:
        for _ in range(4):
            clients.submit(client_loop)
        while time.monotonic() - stopped < outage_seconds:  # reading needs no broker
            reads.append(client.get(stack.base_url, "/", timeout_seconds=10).status)
            time.sleep(0.5)
    result.failed_reads = sum(status != 200 for status in reads)
    outage_statuses = Counter(reply.status for reply in result.replies[in_flight:])
    result.notes.append(f"while down: POST answers {dict(outage_statuses)}; GET / answers {dict(Counter(reads))}")
    with stack.connect() as connection:
        stored = verify.rows_by_sha(connection, [logical.entry_sha256 for logical in refused])
    result.notes.append(f"rows stored for the {len(refused)} answered 503 (must be 0): {len(stored)}")
    result.tally.unexpected_rows += len(stored)
    stack.broker_start()
    resent = PhaseResult("resend")
    for logical in refused:
        logical.replay = ""
    send_all(stack, refused, resent)
    result.replies.extend(resent.replies)
    for label, status in resent.final_status.items():
        result.final_status[label] = status
    result.sending_seconds = outage_seconds + resent.sending_seconds
    unexpected = result.tally.unexpected_rows
    _judge_and_count(stack, result)
    result.tally.unexpected_rows += unexpected
    result.notes.append(f"resent {len(refused)} with their Idempotency-Key: {dict(resent.statuses)}")
    return result


def _decided(connection, shas: list[str]) -> int:
    rows = verify.rows_by_sha(connection, shas)
    return sum(row.status in verify.FINAL for sha_rows in rows.values() for row in sha_rows)


def _being_judged(connection, shas: list[str]) -> int | str:
    """Pending submissions whose judging has started (`judging_starts`): the ones a kill cut off."""
    try:
        return connection.execute(
            "SELECT count(*) FROM leaderboard_submission AS submission "
            "JOIN leaderboard_submittedfile AS file ON file.submission_id = submission.id AND file.role = 'entry' "
            "WHERE file.sha256 = ANY(%s) AND submission.status = 'pending' AND submission.judging_starts > 0",
            (shas,),
        ).fetchone()[0]
    except Exception:  # a schema without the column
        return "?"


def _judging_starts(connection, shas: list[str]) -> list[int]:
    try:
        return [
            starts
            for (starts,) in connection.execute(
                "SELECT submission.judging_starts FROM leaderboard_submission AS submission "
                "JOIN leaderboard_submittedfile AS file ON file.submission_id = submission.id AND file.role = 'entry' "
                "WHERE file.sha256 = ANY(%s)",
                (shas,),
            )
        ]
    except Exception:  # a schema without the column
        return []
