"""Many accepted entries, fast, for the page-query tests, `bench/pages.py` and `bench/http_bench.py`.

Every entry is a complete DAWNBench import as the pages see one: its Submission (accepted, source import),
its entry file (and log file for training), and for training a curve that crosses the task's threshold.
Values come from a seeded generator, so the same calls build the same boards.

Why not `bulk_create`: it spends about 40 us building each model instance and 5 us preparing each value;
10,000 entries per task (30,000 entries and submissions, 48,000 files, 360,000 curve points) took 62 s that
way, and still 21 s with only the curve points and files inserted directly. Here every row goes in with
`executemany` in batches, with explicit ids (sequences are reset afterwards, for PostgreSQL): about 8 s. On
PostgreSQL the rows are streamed with COPY instead, the same rows: executemany waits on the server for each
one, which took 49 s for 9,000 per task where COPY takes about 10 s (100,000 per task: 90 to 120 s).
Submission and Entry rows are built from the model's fields, so a field added later gets its default; values
that are not plain scalars (JSON, decimals, dates) are prepared by their field for the database in use.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import random
from decimal import Decimal

from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction
from django.utils import timezone

from dawnboard.rules import TASKS, Scale, Track
from dawnboard.scoring.runs import median_of_runs, spread_of_runs
from leaderboard.models import (
    CurvePoint,
    Entry,
    EntryCatalogCost,
    HardwareMatch,
    Run,
    Submission,
    SubmittedFile,
    TaskVersion,
)
from leaderboard.services import hardware_match_entry

TASK_SLUGS = tuple(task.slug for task in TASKS if task.dawnbench_folder)  # the DAWNBench-format tasks
SOURCE_PREFIX = "bulk-"
TRAIN_SHARE = 0.6
COSTED_TRAIN_SHARE = 0.9  # the others give no costPerHour, so they have no training cost
BATCH_SIZE = 5000
PLAIN_TYPES = (str, int, float, bytes, bool)

FRAMEWORKS = (
    "PyTorch 0.4", "PyTorch 1.0", "PyTorch 2.1", "TensorFlow 1.8", "TensorFlow 2.15", "MXNet 1.3",
    "JAX 0.4", "Caffe2", "Chainer 4", "PaddlePaddle 2.5", "ONNX Runtime 1.16",
)  # fmt: skip
HARDWARE = (
    ("1 x V100 (AWS p3.2xlarge)", Decimal("3.06")),
    ("8 x V100 (AWS p3.16xlarge)", Decimal("24.48")),
    ("1 x K80 (AWS p2.xlarge)", Decimal("0.90")),
    ("TPUv2 (GCP)", Decimal("6.50")),
    ("TPUv3 Pod slice (GCP)", Decimal("32.00")),
    ("1 x A100 (GCP a2-highgpu-1g)", Decimal("3.67")),
    ("8 x A100 (Azure ND96asr)", Decimal("27.20")),
    ("1 x T4 (GCP n1-standard-8)", Decimal("0.73")),
    ("Intel Xeon Platinum 8180 (1 socket)", Decimal("1.60")),
)
MODELS = ("ResNet 9", "ResNet 18", "ResNet 50", "ResNet 164", "AmoebaNet-D", "DenseNet 121", "BiDAF", "QANet")
FIRST_DATE = datetime.date(2017, 10, 1)
DATE_SPAN_DAYS = 2600


def create_entries(count_per_task: int, *, curve_points: int = 20, seed: int = 0, runs_per_entry: int = 1) -> None:
    """Create `count_per_task` accepted entries for each DAWNBench-format task (cifar10, imagenet, squad, digits).

    60 % are training entries of `runs_per_entry` runs each (every run its own log and `curve_points` curve
    points; the entry's time their median, with their spread; a training cost for 90 % of them), 40 % inference
    entries (latency and cost per 10,000 items; those with an even id also latency percentiles, as a measured
    entry has, for the p90 and p99 boards). Every accuracy meets the current version's threshold, so every entry
    is on its boards. Calling it again adds more entries.
    """
    versions = TaskVersion.objects.filter(is_current=True, task__slug__in=TASK_SLUGS).select_related("task")
    with transaction.atomic():
        rng = random.Random(f"{seed}-{count_per_task}-{Entry.objects.count()}")
        for version in versions.order_by("task__slug"):
            _create_for_version(version, count_per_task, curve_points, runs_per_entry, rng)
        with connection.cursor() as cursor:
            models_made = [Submission, Entry, SubmittedFile, Run, CurvePoint]
            for sql in connection.ops.sequence_reset_sql(no_style(), models_made):
                cursor.execute(sql)


def match_all_entries() -> int:
    """Match every entry with no hardware match yet as the resolver does: one entry per distinct hardware text
    resolved (and priced) by the service, its match then written in bulk for the others of that text. Returns how
    many entries were matched to something in the catalog (the bench's boards by a catalog price rank those)."""
    matched = 0
    unmatched = Entry.objects.filter(hardware_match__isnull=True)
    for hardware in unmatched.order_by().values_list("hardware", flat=True).distinct():
        entries = unmatched.filter(hardware=hardware).order_by("id")
        first = entries.first()
        hardware_match_entry(entry=first)
        match = HardwareMatch.objects.get(entry=first)
        values = {"instance_id": match.instance_id, "instance_count": match.instance_count, "parts": match.parts}
        ids = list(entries.exclude(id=first.id).values_list("id", flat=True))
        for start in range(0, len(ids), BATCH_SIZE):
            HardwareMatch.objects.bulk_create(
                HardwareMatch(entry_id=entry_id, reason=match.reason, **values)
                for entry_id in ids[start : start + BATCH_SIZE]
            )
        matched += len(ids) + 1 if match.instance_id or match.parts else 0
    return matched


def delete_entries() -> None:
    """Remove what `create_entries` made, and nothing else."""
    entries = Entry.objects.filter(source_name__startswith=SOURCE_PREFIX)
    with transaction.atomic():
        entry_ids = list(entries.values_list("id", flat=True))
        submission_ids = list(entries.values_list("submission_id", flat=True))
        CurvePoint.objects.filter(run__entry__in=entries).delete()  # no dependants: one DELETE
        HardwareMatch.objects.filter(entry__in=entries).delete()
        EntryCatalogCost.objects.filter(entry__in=entries).delete()
        Run.objects.filter(entry__in=entries).delete()
        SubmittedFile.objects.filter(submission__in=entries.values("submission_id")).delete()
        # The ORM would load every entry and submission to look for dependants; the only ones are gone.
        _delete_ids(Entry, entry_ids)
        _delete_ids(Submission, submission_ids)


def _create_for_version(
    version: TaskVersion, count: int, curve_points: int, runs_per_entry: int, rng: random.Random
) -> None:
    train_count = round(count * TRAIN_SHARE)
    tracks = [Track.TRAIN] * train_count + [Track.INFERENCE] * (count - train_count)
    now = timezone.now()
    first_submission_id = _next_id(Submission)
    first_entry_id = _next_id(Entry)
    submissions = [
        {
            "id": first_submission_id + index,
            "source": Submission.Source.IMPORT,
            "task_slug": version.task.slug,
            "track": track,
            "status": Submission.Status.ACCEPTED,
            "decided_at": now,
        }
        for index, track in enumerate(tracks)
    ]
    entries = [_entry(first_entry_id + index, version, submission, rng) for index, submission in enumerate(submissions)]
    files = []
    runs = []
    points = []
    next_run_id = _next_id(Run)
    for entry in entries:
        name = entry["source_name"]
        files.append(_file(entry["submission_id"], SubmittedFile.Role.ENTRY, 0, f"{name}.json", entry["claimed"]))
        if entry["track"] != Track.TRAIN:
            continue
        # Every run within 20 % of the first; the entry's time is their median (its cost with it).
        times = [entry["time_to_accuracy_seconds"]] + [
            round(entry["time_to_accuracy_seconds"] * rng.uniform(0.8, 1.2), 3) for _ in range(runs_per_entry - 1)
        ]
        if runs_per_entry > 1:
            entry["time_to_accuracy_seconds"] = median_of_runs(times, failed=0)
            if entry.get("cost_per_hour_usd") is not None:
                hours = Decimal(repr(entry["time_to_accuracy_seconds"])) / 3600
                entry["training_cost_usd"] = (hours * entry["cost_per_hour_usd"]).quantize(Decimal("1e-9"))
        entry |= Entry.spread_columns(spread_of_runs(times, failed=0))
        for position, seconds in enumerate(times):
            run = _run(next_run_id, entry, position, seconds)
            curve = _curve(entry, run, version, curve_points)  # also sets the crossing line, epoch, row count
            points.extend((run["id"], *point) for point in curve)
            log = "epoch\thours\t" + version.log_column + "\n"
            log += "".join(f"{epoch:g}\t{hours:.6f}\t{metric:g}\n" for _, _, epoch, hours, metric in curve)
            log_file = _file(entry["submission_id"], SubmittedFile.Role.LOG, position, run["log_name"], log)
            files.append(log_file)
            # Two bulk logs can read alike (same rounded hours): each run is its own, as a real run's rows are.
            run["log_sha256"] = log_file[4]
            run["log_rows_sha256"] = hashlib.sha256(f"bulk-run-{run['id']}".encode()).hexdigest()
            runs.append(run)
            next_run_id += 1
    _insert_records(Submission, submissions, now)
    _insert_records(Entry, entries, now)
    _insert_rows(SubmittedFile, ["submission", "role", "position", "name", "sha256", "size_bytes", "content"], files)
    _insert_records(Run, runs, now)
    _insert_rows(CurvePoint, ["run", "position", "line", "epoch", "hours", "metric"], points)


def _run(run_id: int, entry: dict, position: int, seconds: float) -> dict:
    return {
        "id": run_id,
        "entry_id": entry["id"],
        "task_id": entry["task_id"],
        "position": position,
        "status": Run.Status.SUCCESS,
        "log_name": f"{entry['source_name']}-{position + 1}.tsv",
        "accuracy": entry["accuracy"],
        "time_to_accuracy_seconds": seconds,
        "on_board": True,
    }


def _entry(entry_id: int, version: TaskVersion, submission: dict, rng: random.Random) -> dict:
    """An entry's fields by attribute name; the model's defaults fill in the rest."""
    team = rng.randrange(400)
    hardware, cost_per_hour = rng.choice(HARDWARE)
    date = FIRST_DATE + datetime.timedelta(days=rng.randrange(DATE_SPAN_DAYS))
    threshold = float(version.threshold)
    ceiling = Scale(version.scale).upper_bound
    accuracy = round(threshold + rng.uniform(0, (ceiling - threshold) * 0.3), 4)
    track = submission["track"]
    claimed = {
        "version": version.version,
        "author": f"Team {team}",
        "authorEmail": f"team{team}@example.org",
        "framework": rng.choice(FRAMEWORKS),
        "model": rng.choice(MODELS),
        "hardware": hardware,
        "timestamp": date.isoformat(),
    }
    entry = {
        "id": entry_id,
        "submission_id": submission["id"],
        "task_id": version.task_id,
        "task_version_id": version.id,
        "track": track,
        "status": Entry.Status.ACCEPTED,
        "source_name": f"{SOURCE_PREFIX}{track}-{submission['id']}",
        "version": version.version,
        "author": claimed["author"],
        "author_email": claimed["authorEmail"],
        "framework": claimed["framework"],
        "model": claimed["model"],
        "hardware": hardware,
        "date": date,
        "code_url": f"https://github.com/team{team}/dawnbench" if team % 3 else "",
        "commit_hash": f"{rng.getrandbits(160):040x}",
        "claimed": claimed,
        "accuracy": accuracy,
    }
    if track == Track.TRAIN:
        seconds = round(rng.lognormvariate(8, 1.5), 3)  # from seconds to weeks, most of them hours
        entry["time_to_accuracy_seconds"] = seconds
        entry["log_filename"] = f"{entry['source_name']}.tsv"
        # How far to trust it, drawn from the id (no random draw, so every other value is as it was before):
        # a tenth measured by reference runs; the time at each shifted threshold a multiple of the official one,
        # the harder shifts reached by some entries only (the sensitivity page's work, at a board's size).
        entry["verification"] = "measured" if entry_id % 10 == 0 else "log-verified"
        entry["seconds_at_minus_1_point"] = round(seconds * (0.7 + entry_id % 5 / 50), 3)
        entry["seconds_at_minus_half_point"] = round(seconds * (0.85 + entry_id % 3 / 50), 3)
        entry["seconds_at_plus_half_point"] = round(seconds * (1.1 + entry_id % 4 / 20), 3) if entry_id % 3 else None
        entry["seconds_at_plus_1_point"] = round(seconds * 1.5, 3) if entry_id % 7 == 0 else None
        entry["single_crossing"] = entry_id % 50 == 0
        if rng.random() < COSTED_TRAIN_SHARE:
            claimed["costPerHour"] = float(cost_per_hour)
            entry["cost_per_hour_usd"] = cost_per_hour
            entry["training_cost_usd"] = (Decimal(str(seconds)) / 3600 * cost_per_hour).quantize(Decimal("1e-9"))
    else:
        latency_ms = round(rng.lognormvariate(2, 1), 4)
        cost_per_item = Decimal(str(round(rng.lognormvariate(-13, 1), 12)))
        claimed |= {"latency": latency_ms, "cost": float(cost_per_item), version.inference_fields[0]: accuracy}
        entry |= {"latency_ms": latency_ms, "inference_cost_usd_per_10k": cost_per_item * 10_000}
        if entry_id % 2 == 0:  # no random draw, so every other value is as it was before percentiles existed
            entry |= {
                f"latency_{name}_ms": round(latency_ms * factor, 4)
                for name, factor in (("p50", 0.9), ("p90", 1.3), ("p99", 1.8), ("max", 3.0))
            }
    return entry


def _curve(
    entry: dict, run: dict, version: TaskVersion, curve_points: int
) -> list[tuple[int, int, float, float, float]]:
    """(position, line, epoch, hours, metric) of a rising curve that reaches the entry's accuracy at the run's time
    to accuracy, the last fifth of the points beyond it. Sets the crossing line, epoch and the run's row count.
    """
    if curve_points <= 0:
        return []
    crossing = curve_points - 1 - curve_points // 5
    threshold = float(version.threshold)
    start = threshold * 0.5
    crossing_hours = run["time_to_accuracy_seconds"] / 3600
    for record in (entry, run):
        record["time_to_accuracy_epoch"] = float(crossing)
        record["time_to_accuracy_line"] = crossing + 2  # line 1 is the header
    run["log_row_count"] = curve_points
    points = []
    for position in range(curve_points):
        below = round(start + (threshold - start) * 0.98 * position / crossing, 4) if crossing else threshold
        metric = below if position < crossing else entry["accuracy"]
        hours = crossing_hours * (position + 1) / (crossing + 1)
        points.append((position, position + 2, float(position), hours, metric))
    return points


def _file(submission_id: int, role: str, position: int, name: str, content) -> tuple:
    data = (content if isinstance(content, str) else json.dumps(content, indent=2)).encode()
    return (submission_id, role, position, name, hashlib.sha256(data).hexdigest(), len(data), data)


def _next_id(model: type[models.Model]) -> int:
    return (model.objects.aggregate(last=models.Max("id"))["last"] or 0) + 1


def _insert_records(model: type[models.Model], records: list[dict], now: datetime.datetime) -> None:
    """INSERT records (values by attribute name); a field a record leaves out gets its default, prepared once."""
    database = connections[DEFAULT_DB_ALIAS]
    fields = model._meta.concrete_fields
    defaults = []
    for field in fields:
        automatic = getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        defaults.append(_prepared(field, now if automatic else field.get_default(), database))
    rows = [
        [
            _prepared(field, record[field.attname], database) if field.attname in record else default
            for field, default in zip(fields, defaults, strict=True)
        ]
        for record in records
    ]
    _insert_rows(model, [field.name for field in fields], rows)


def _prepared(field: models.Field, value, database):
    """Plain scalars go to the driver as they are; JSON, decimals and dates are prepared by their field."""
    if value is None or (isinstance(value, PLAIN_TYPES) and not isinstance(field, models.JSONField)):
        return value
    return field.get_db_prep_save(value, database)


def _insert_rows(model: type[models.Model], field_names: list[str], rows: list) -> None:
    database = connections[DEFAULT_DB_ALIAS]
    quote = database.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(model._meta.get_field(name).column) for name in field_names)
    with database.cursor() as cursor:
        if database.vendor == "postgresql":
            # COPY streams the rows in one statement, where executemany waits on the server row by row.
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        placeholders = ", ".join(["%s"] * len(field_names))
        sql = f"INSERT INTO {table} ({columns}) VALUES ({placeholders})"
        for start in range(0, len(rows), BATCH_SIZE):
            cursor.executemany(sql, rows[start : start + BATCH_SIZE])


def _delete_ids(model: type[models.Model], ids: list[int]) -> None:
    quote = connection.ops.quote_name
    table, primary_key = quote(model._meta.db_table), quote(model._meta.pk.column)
    with connection.cursor() as cursor:
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            cursor.execute(f"DELETE FROM {table} WHERE {primary_key} IN ({', '.join(['%s'] * len(batch))})", batch)
