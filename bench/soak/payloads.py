"""What the clients send: logical submissions with unique content, and the hostile inputs.

Every logical submission's entry names a model of its own, so no two are byte-identical (which the site would
refuse as `duplicate_submission`) and its entry file's SHA-256 finds its rows in the database. Every valid log
is a run of its own too (`run_rows`), since a log already on the board is refused (`log_already_submitted`).
A fifth of each batch is invalid on purpose, so the rejections are exercised too: a log that never reaches the
threshold (stored, then rejected by the worker) or a training entry with no log (refused before anything is
stored).
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from dataclasses import dataclass, field

from bench.soak.client import Part
from tests.dawnboard.mllog_runs import START_MS, raw_record
from tests.dawnboard.mllog_trees import ROUND, ssd_logs

TASK, TRACK = "cifar10", "train"
# Crosses cifar10's 94.0 on its third row.
VALID_ROWS = [(0, 0.01, 80.0), (1, 0.02, 90.5), (2, 0.03, 94.1), (3, 0.04, 94.5)]
SHORT_ROWS = [(0, 0.1, 50.0), (1, 0.2, 60.0)]


@dataclass
class Logical:
    """One submission a client means to make once, however often it sends it (an Idempotency-Key replay)."""

    label: str
    entry: bytes
    log: bytes | None
    expected: str  # accepted, rejected (by the worker), refused (answered 400, nothing stored)
    key: str = field(default_factory=lambda: str(uuid.uuid4()))
    client: int = 0
    replay: str = ""  # "", "after" (once the first answer is in) or "race" (at the same time)
    task: str = TASK
    track: str = TRACK

    @property
    def entry_sha256(self) -> str:
        return hashlib.sha256(self.entry).hexdigest()


def entry_document(model: str, **overrides) -> dict:
    document = {
        "version": "v1.0",
        "author": "Soak Team",
        "authorEmail": "soak@example.org",
        "framework": "PyTorch 2.13",
        "model": model,
        "hardware": "1 V100 (AWS p3.2xlarge)",
        "costPerHour": 3.06,
        "timestamp": "2019-05-07",
    }
    document.update(overrides)
    return document


def run_rows(model: str) -> list[tuple[int, float, float]]:
    """VALID_ROWS with the first row's hours drawn from `model`: a run of its own, as the board tells runs apart
    (by the rows up to the one crossing the threshold), with the same time to accuracy."""
    fraction = int(hashlib.sha256(model.encode()).hexdigest()[:12], 16) / 16**12
    first_epoch, _, first_accuracy = VALID_ROWS[0]
    return [(first_epoch, round(0.001 + 0.008 * fraction, 15), first_accuracy), *VALID_ROWS[1:]]


def training_log(rows, *, header: str = "epoch\thours\ttop1Accuracy", extra_rows: int = 0) -> bytes:
    """A TSV log; `extra_rows` rows above the threshold follow, to make judging take longer."""
    last_epoch, last_hours, _ = rows[-1]
    more = [(last_epoch + n, round(last_hours + 0.01 * n, 4), 94.5) for n in range(1, extra_rows + 1)]
    lines = [header, *("\t".join(str(cell) for cell in row) for row in [*rows, *more])]
    return ("\n".join(lines) + "\n").encode()


def batch(
    run_id: str,
    phase: str,
    count: int,
    *,
    clients: int,
    invalid_share: float = 0.2,
    replay_share: float = 0.0,
    race_share_of_replays: float = 0.2,
    extra_rows: int = 0,
    seed: int = 0,
) -> list[Logical]:
    """`count` logical submissions, spread over `clients`, with the given shares invalid and replayed."""
    rng = random.Random(f"{run_id}-{phase}-{seed}")
    logicals = []
    for n in range(count):
        model = f"soak {run_id} {phase} {n:05d}"
        roll = rng.random()
        if roll < invalid_share * 0.8:
            logical = Logical(f"{phase}-{n}", _json(entry_document(model)), training_log(SHORT_ROWS), "rejected")
        elif roll < invalid_share:
            logical = Logical(f"{phase}-{n}", _json(entry_document(model)), None, "refused")
        else:
            log = training_log(run_rows(model), extra_rows=extra_rows)
            logical = Logical(f"{phase}-{n}", _json(entry_document(model)), log, "accepted")
        logical.client = n % clients
        logicals.append(logical)
    for logical in rng.sample(logicals, round(count * replay_share)):
        logical.replay = "race" if rng.random() < race_share_of_replays else "after"
    return logicals


def _json(document: dict) -> bytes:
    return json.dumps(document).encode()


# -- hostile inputs ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hostile:
    """One hostile request and what must come back: one of `codes` with one of `statuses`, within 2 s."""

    name: str
    statuses: tuple[int, ...]
    codes: tuple[str, ...]
    entry: bytes | None = None
    log: bytes | None = None
    path: str = ""  # a GET instead of a submission
    content_length: int = 0  # a POST of headers only, announcing this many bytes
    post_path: str = "/api/v1/submissions/"  # where the headers-only POST goes
    extra_parts: tuple[Part, ...] = ()  # form parts after the submission's own
    at_gunicorn: bool = False  # straight at gunicorn, around nginx: the site's own limit, not the proxy's
    anonymous: bool = False  # sent without a token
    task: str = TASK


def _wide_header(target_bytes: int) -> bytes:
    columns = ["epoch", "hours", "top1Accuracy"]
    size = sum(len(column) + 1 for column in columns)
    while size < target_bytes:
        columns.append(f"column{len(columns):07d}")
        size += len(columns[-1]) + 1
    header = "\t".join(columns)
    row = "\t".join(["0", "0.03", "94.1"] + ["0"] * (len(columns) - 3))
    return f"{header}\n{row}\n".encode()


def _many_misc_keys(count: int) -> bytes:
    head = _json(entry_document("hostile misc keys"))[:-1] + b', "misc": {'
    keys = b", ".join(b'"key%08d": 0' % n for n in range(count))
    return head + keys + b"}}"


def form_fields(count: int) -> tuple[Part, ...]:
    return tuple((f"field{n:04d}", b"x", None) for n in range(count))


def small_files(count: int) -> tuple[Part, ...]:
    return tuple((f"file{n:04d}", b"x\n", f"file{n:04d}.txt") for n in range(count))


def _mllog_hostile(name: str, codes: tuple[str, ...], first_record: bytes) -> Hostile:
    """An MLPerf v4.1 ssd set of five runs sent as `format=mllog`, its first log opening with `first_record`."""
    logs = ssd_logs([20.0, 21.0, 22.0, 23.0, 24.0], offset=11)
    others = tuple(("log", log, f"result_{index}.txt") for index, log in enumerate(logs[1:], start=2))
    fields = (("format", b"mllog", None), ("round", ROUND.encode(), None))
    return Hostile(name, (400, 413), codes, None, first_record + logs[0], extra_parts=fields + others, task="ssd")


def _nested_value(depth: int) -> bytes:
    return (
        b':::MLLOG {"namespace": "", "time_ms": 1700000000000, "event_type": "POINT_IN_TIME", "key": "deep", '
        b'"metadata": {}, "value": ' + b"[" * depth + b"]" * depth + b"}\n"
    )


def hostile_inputs() -> list[Hostile]:
    """The inputs the hardening refuses, each with the answer it must get."""
    log = training_log(VALID_ROWS)
    entry = _json(entry_document("hostile"))
    submission_refused = (400, 413)
    too_large = ("entry_too_large", "request_too_large", "file_too_large")
    limit_path = "/api/v1/leaderboards/cifar10/training-time/?limit="
    wide_codes = ("too_many_columns", *too_large)
    return [
        Hostile("log header 439 KB", submission_refused, ("too_many_columns",), entry, _wide_header(439_000)),
        Hostile("log header 1.9 MB", submission_refused, wide_codes, entry, _wide_header(1_900_000)),
        Hostile("entry of 2.6 M misc keys, 47 MB", submission_refused, too_large, _many_misc_keys(2_600_000), log),
        Hostile(
            "costPerHour 1e1000000",
            submission_refused,
            ("number_out_of_range",),
            entry[:-1] + b', "costPerHour": 1e1000000}',
            log,
        ),
        Hostile(
            "codeURL javascript:alert(1)",
            submission_refused,
            ("invalid_url",),
            _json(entry_document("hostile url", codeURL="javascript:alert(1)")),
            log,
        ),
        Hostile(
            "entry of a million NaNs, 4 MB",
            submission_refused,
            too_large,
            entry[:-1] + b', "misc": [' + b",".join([b"NaN"] * 1_000_000) + b"]}",
            log,
        ),
        Hostile("Content-Length 4 GB, headers only", (413,), ("request_too_large",), content_length=4 * 1024**3),
        Hostile(
            "Content-Length 4 GB, at gunicorn",
            (413,),
            ("request_too_large",),
            content_length=4 * 1024**3,
            at_gunicorn=True,
        ),
        # Past DATA_UPLOAD_MAX_MEMORY_SIZE (2 MiB), the limit of every path but the submissions endpoint.
        Hostile(
            "/admin/login/ Content-Length 30 MB",
            (413,),
            ("request_too_large",),
            content_length=30_000_000,
            post_path="/admin/login/",
        ),
        Hostile(
            "/admin/login/ 30 MB, at gunicorn",
            (413,),
            ("request_too_large",),
            content_length=30_000_000,
            post_path="/admin/login/",
            at_gunicorn=True,
        ),
        # Under the submissions limit, but without a token: nginx refuses it before reading (and spooling) a byte.
        Hostile(
            "no token, Content-Length 100 MB",
            (401,),
            ("not_authenticated",),
            content_length=100_000_000,
            anonymous=True,
        ),
        # The task, track, entry and log, then 1,000 more fields; the entry and log, then 148 more files.
        Hostile("1,002 form fields", (400,), ("too_many_fields",), entry, log, extra_parts=form_fields(1000)),
        Hostile("150 files", (400,), ("too_many_files",), entry, log, extra_parts=small_files(148)),
        Hostile("?limit=99999999999999999999999", (400,), ("invalid_limit",), path=limit_path + "9" * 23),
        Hostile("?limit=\u00b2", (400,), ("invalid_limit",), path=limit_path + "%C2%B2"),
        Hostile("/entries/1/files/%00/", (400, 404), ("",), path="/entries/1/files/%00/"),
        # MLPerf logs through the API (format=mllog): one bad run refuses the set.
        _mllog_hostile("MLLOG time_ms as a string", ("invalid_time",), raw_record("weird", 1, '"1700000000000"')),
        _mllog_hostile("MLLOG time_ms NaN", ("invalid_time",), raw_record("weird", 1, "NaN")),
        _mllog_hostile("MLLOG time_ms 1e400", ("invalid_time",), raw_record("weird", 1, "1e400")),
        _mllog_hostile("MLLOG value nested 100,000 deep", ("nested_too_deep",), _nested_value(100_000)),
        _mllog_hostile(
            "MLLOG record line of 10 MB",
            ("line_too_long", *too_large),
            raw_record("padding", "x" * 10_000_000, START_MS),
        ),
    ]
