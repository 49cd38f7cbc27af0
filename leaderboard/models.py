"""Tasks and their versions, submitters, submissions (the uploads and their verdicts), accepted entries and
the catalog instance each entry ran on."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from dawnboard.metrics import LEADERBOARD_METRICS
from dawnboard.rules import Scale, Track
from dawnboard.scoring.runs import Spread
from dawnboard.scoring.sensitivity import THRESHOLD_SHIFTS, shift_key
from dawnboard.verification import VERIFICATION_LEVELS, Evaluated, Verification

VERIFICATION_CHOICES = [(level.value, level.value) for level in Verification]
# An entry's column of its score at each shifted threshold, by the shift's key (-1, -0.5, +0.5, +1 point).
SHIFT_COLUMNS = dict(
    zip(
        (shift_key(delta) for delta in THRESHOLD_SHIFTS),
        (
            "seconds_at_minus_1_point",
            "seconds_at_minus_half_point",
            "seconds_at_plus_half_point",
            "seconds_at_plus_1_point",
        ),
        strict=True,
    )
)

TRACK_CHOICES = [(track.value, track.label) for track in Track]


class Task(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class TaskVersion(models.Model):
    """A task's rules at one version, seeded from `dawnboard.rules`. A threshold belongs here, never to the
    task, so it cannot drift."""

    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="versions")
    version = models.CharField(max_length=20, help_text="The `version` an entry names, e.g. v1.0.")
    metric_label = models.CharField(max_length=100)
    log_column = models.CharField(max_length=50)
    inference_fields = models.JSONField(help_text="Entry fields holding the metric, preferred first.")
    threshold = models.DecimalField(max_digits=14, decimal_places=6)  # MLPerf's DLRM AUC target: 0.80275
    scale = models.CharField(max_length=10, choices=[(scale.value, scale.label) for scale in Scale])
    is_current = models.BooleanField(default=True)
    source = models.URLField(blank=True, help_text="Where the threshold was published.")
    documented_log_columns = models.JSONField(
        default=list, blank=True, help_text="The log columns the task's format documents; none raises a warning."
    )
    documented_fields = models.JSONField(
        default=list, blank=True, help_text="Entry fields the task's format adds; none raises a warning."
    )

    class Meta:
        ordering = ["task__slug", "version"]
        constraints = [
            models.UniqueConstraint(fields=["task", "version"], name="unique_task_version"),
            models.UniqueConstraint(fields=["task"], condition=Q(is_current=True), name="one_current_version_per_task"),
            models.CheckConstraint(condition=Q(threshold__gt=0), name="threshold_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.task.slug} {self.version}"


class Submitter(models.Model):
    """A team or person allowed to submit; authenticates with the API token of its user."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submitter")
    name = models.CharField(max_length=100, unique=True)
    email = models.EmailField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Submission(models.Model):
    """One upload and its verdict. Its files are kept verbatim; an accepted one has exactly one Entry.

    With a broker, a worker judges it under a lease (`judging_lease_until`): a message lost with a killed
    worker is queued again by the sweep once the lease runs out, and a file whose judging starts
    SUBMISSION_JUDGE_MAX_TRIES times without a verdict (it kills its worker) ends `failed`.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        REJECTED = "rejected"
        FAILED = "failed", "judging failed"

    class Source(models.TextChoices):
        API = "api"
        COMMAND = "command", "submit command"
        IMPORT = "import", "DAWNBench import"
        REFERENCE = "reference", "reference run"
        MEASURED = "measured", "measured inference"

    submitter = models.ForeignKey(
        Submitter, null=True, blank=True, on_delete=models.PROTECT, related_name="submissions"
    )
    source = models.CharField(max_length=10, choices=Source.choices)
    task_slug = models.CharField(max_length=50)
    track = models.CharField(max_length=10)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    errors = models.JSONField(default=list, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    run_record = models.JSONField(
        null=True,
        blank=True,
        help_text="A reference run's record (run.json): config, machine, versions, curve; {'runs': [...]} for several.",
    )
    version = models.CharField(
        max_length=20,
        blank=True,
        help_text="The task version the files are judged by where no entry names it (an MLPerf round); else empty.",
    )
    files_digest = models.CharField(
        max_length=64,
        blank=True,
        help_text="SHA-256 over the task, the track, the entry as published and the log's bytes.",
    )
    idempotency_key = models.CharField(
        max_length=200, blank=True, help_text="The client's Idempotency-Key; kept 24 hours."
    )
    times_queued = models.PositiveSmallIntegerField(default=0)
    judging_starts = models.PositiveSmallIntegerField(default=0)
    queued_at = models.DateTimeField(null=True, blank=True)
    judging_lease_until = models.DateTimeField(
        null=True, blank=True, help_text="A worker judging it holds it until then; other deliveries leave it alone."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["status", "queued_at"], name="pending_by_queue_time"),
            models.Index(fields=["files_digest"], name="submission_files_digest"),
        ]
        constraints = [
            # A retried request replays its first submission instead of making a second.
            models.UniqueConstraint(
                fields=["submitter", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="one_submission_per_idempotency_key",
            ),
            # The same files are ranked once, whichever worker judges the second copy.
            models.UniqueConstraint(
                fields=["task_slug", "track", "files_digest"],
                condition=Q(status="accepted") & ~Q(files_digest=""),
                name="one_accepted_submission_per_files",
            ),
        ]

    def __str__(self) -> str:
        return f"submission {self.pk} ({self.status})"

    @staticmethod
    def digest_of(*, task_slug: str, track: str, entry_sha256: str, log_sha256s: list[str]) -> str:
        """What makes two submissions the same: the task, the track, the entry as published (its digest,
        `published_entry_sha256`: two uploads that differ in the author's address alone are the same, so that
        a duplicate's answer never says whether a guessed address is right) and the bytes of its logs, in order
        (one log: its digest alone, as before several runs)."""
        text = "\n".join((task_slug, track, entry_sha256, ",".join(log_sha256s) or "-"))
        return hashlib.sha256(text.encode()).hexdigest()


class SubmittedFile(models.Model):
    """A file exactly as uploaded. Kept in the database so any worker can read it and nothing is half-stored."""

    class Role(models.TextChoices):
        ENTRY = "entry"
        LOG = "log"

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="files")
    role = models.CharField(max_length=10, choices=Role.choices)
    position = models.PositiveSmallIntegerField(default=0, help_text="A log's run, from 0, in the order sent.")
    name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveBigIntegerField()
    content = models.BinaryField()

    class Meta:
        ordering = ["submission_id", "role", "position"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "role", "position"], name="one_file_per_role_and_run")
        ]

    def __str__(self) -> str:
        return f"{self.role} {self.name} ({self.sha256[:12]})"


CHART_FIGURES = [metric.field for metric in LEADERBOARD_METRICS.values()]  # what the charts page plots
BOARD_INDEXES = {  # the field a board ranks by: its index's name
    "time_to_accuracy_seconds": "board_training_time_order",
    "training_cost_usd": "board_training_cost_order",
    "latency_ms": "board_latency_order",
    "latency_p90_ms": "board_latency_p90_order",
    "latency_p99_ms": "board_latency_p99_order",
    "inference_cost_usd_per_10k": "board_inference_cost_order",
    "inference_cost_usd_per_10k_at_throughput": "board_throughput_cost_order",
}


class EntryQuerySet(models.QuerySet):
    def accepted(self) -> EntryQuerySet:
        return self.filter(status=Entry.Status.ACCEPTED)


class Entry(models.Model):
    """An accepted DAWNBench entry: the fields it claimed and the results Dawnboard recomputed from its files."""

    class Status(models.TextChoices):
        ACCEPTED = "accepted"
        WITHDRAWN = "withdrawn"

    submission = models.OneToOneField(Submission, on_delete=models.PROTECT, related_name="entry")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="entries")
    task_version = models.ForeignKey(TaskVersion, on_delete=models.PROTECT, related_name="entries")
    track = models.CharField(max_length=10, choices=TRACK_CHOICES)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACCEPTED)
    source_name = models.CharField(max_length=255, blank=True, help_text="File stem, for imported entries.")
    reproduces = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reproductions",
        help_text="The seed entry a reference run reproduces.",
    )

    # As submitted (DAWNBench v1.0 fields).
    version = models.CharField(max_length=20)
    author = models.CharField(max_length=500)
    author_email = models.CharField(max_length=500)
    framework = models.CharField(max_length=500)
    model = models.CharField(max_length=500)
    hardware = models.CharField(max_length=500)
    date = models.DateField(help_text="The entry's `timestamp`.")
    code_url = models.CharField(max_length=2000, blank=True)
    commit_hash = models.CharField(max_length=500, blank=True)
    log_filename = models.CharField(max_length=500, blank=True)
    cost_per_hour_usd = models.DecimalField(max_digits=20, decimal_places=6, null=True, blank=True)
    misc = models.JSONField(null=True, blank=True)
    extra_fields = models.JSONField(default=dict, blank=True)
    claimed = models.JSONField(help_text="The entry document as submitted.")
    warnings = models.JSONField(default=list, blank=True)

    # Recomputed by Dawnboard from the files.
    accuracy = models.FloatField(help_text="Quality at the time-to-accuracy row, or as claimed for inference.")
    time_to_accuracy_seconds = models.FloatField(null=True, blank=True)
    time_to_accuracy_epoch = models.FloatField(null=True, blank=True)
    time_to_accuracy_line = models.PositiveIntegerField(null=True, blank=True)
    training_cost_usd = models.DecimalField(max_digits=36, decimal_places=20, null=True, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    # Measured by the inference harness (`measure_inference --submit`), from the run record: None otherwise.
    latency_p50_ms = models.FloatField(null=True, blank=True)
    latency_p90_ms = models.FloatField(null=True, blank=True)
    latency_p99_ms = models.FloatField(null=True, blank=True)
    latency_max_ms = models.FloatField(null=True, blank=True)
    inference_cost_usd_per_10k = models.DecimalField(max_digits=36, decimal_places=20, null=True, blank=True)
    # Measured through MLPerf LoadGen, read from the LoadGen logs sent with the entry (`measure_inference --submit`
    # sends them): the scenario ("" for an entry without them); the offline samples per second, and 10,000 items'
    # cost at that rate (at the price of the entry's own cost: single-stream cost x single-stream rate / this
    # rate); the server's highest rate held (queries per second).
    loadgen_scenario = models.CharField(max_length=20, blank=True)
    samples_per_second = models.FloatField(null=True, blank=True)
    inference_cost_usd_per_10k_at_throughput = models.DecimalField(
        max_digits=36, decimal_places=20, null=True, blank=True
    )
    queries_per_second = models.FloatField(null=True, blank=True)
    # The spread of a training entry's runs (dawnboard.scoring.runs.Spread), its score being
    # time_to_accuracy_seconds: how many runs, how many reached the threshold, the fastest and slowest, the
    # coefficient of variation, and a seeded 95 % bootstrap interval of their median (high None: unbounded).
    run_count = models.PositiveSmallIntegerField(default=0)
    successful_run_count = models.PositiveSmallIntegerField(default=0)
    time_min_seconds = models.FloatField(null=True, blank=True)
    time_max_seconds = models.FloatField(null=True, blank=True)
    time_coefficient_of_variation = models.FloatField(null=True, blank=True)
    time_interval_low_seconds = models.FloatField(null=True, blank=True)
    time_interval_high_seconds = models.FloatField(null=True, blank=True)
    # How far to trust it (dawnboard.verification): its level, derived from what the site knows of it and kept
    # current by leaderboard.services.verification; the verdicts behind it, as their domain functions give them.
    verification = models.CharField(
        max_length=20, choices=VERIFICATION_CHOICES, default=Verification.SELF_REPORTED.value
    )
    reproduction = models.JSONField(
        null=True, blank=True, help_text="The verdict of its reproductions (dawnboard.verification); none: none."
    )
    compliance = models.JSONField(null=True, blank=True, help_text="MLCommons' compliance checker on its MLPerf logs.")
    convergence = models.JSONField(
        null=True,
        blank=True,
        help_text="Convergence plausibility: MLCommons' RCP check (MLPerf sets), or against our reference runs.",
    )
    # Threshold sensitivity, from its logs as read (dawnboard.scoring.sensitivity): its score at each shifted
    # threshold (SHIFT_COLUMNS; None: never reached there, or, at -1 point, which every entry reaches, not computed:
    # an MLPerf set), and whether its crossing is a single evaluation above it. Columns, not a document: a task's
    # sensitivity reads them for its whole board.
    seconds_at_minus_1_point = models.FloatField(null=True, blank=True)
    seconds_at_minus_half_point = models.FloatField(null=True, blank=True)
    seconds_at_plus_half_point = models.FloatField(null=True, blank=True)
    seconds_at_plus_1_point = models.FloatField(null=True, blank=True)
    single_crossing = models.BooleanField(default=False)
    # What it says was evaluated (dawnboard.verification.evaluation_statement).
    evaluation_split = models.CharField(max_length=500, blank=True)
    evaluation_exclusions = models.CharField(max_length=1100, blank=True)
    evaluated = models.CharField(
        max_length=20, choices=[(kind.value, kind.value) for kind in Evaluated], default=Evaluated.UNSTATED.value
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(
                fields=["task", "track", "source_name"], condition=~Q(source_name=""), name="unique_imported_entry"
            ),
            models.CheckConstraint(condition=Q(track__in=[track.value for track in Track]), name="entry_track_known"),
            models.CheckConstraint(
                condition=Q(track=Track.INFERENCE.value) | Q(time_to_accuracy_seconds__isnull=False),
                name="training_entry_has_time_to_accuracy",
            ),
            models.CheckConstraint(condition=Q(time_to_accuracy_seconds__gte=0), name="time_to_accuracy_not_negative"),
            models.CheckConstraint(condition=Q(training_cost_usd__gte=0), name="training_cost_not_negative"),
            models.CheckConstraint(condition=Q(latency_ms__gte=0), name="latency_not_negative"),
            models.CheckConstraint(
                condition=Q(latency_p50_ms__lte=F("latency_p90_ms"))
                & Q(latency_p90_ms__lte=F("latency_p99_ms"))
                & Q(latency_p99_ms__lte=F("latency_max_ms"))
                & Q(latency_p50_ms__gte=0),
                name="latency_percentiles_ordered",
            ),
            models.CheckConstraint(condition=Q(inference_cost_usd_per_10k__gte=0), name="inference_cost_not_negative"),
            models.CheckConstraint(
                condition=Q(samples_per_second__gt=0) & Q(inference_cost_usd_per_10k_at_throughput__gte=0),
                name="throughput_positive",
            ),
            models.CheckConstraint(condition=Q(queries_per_second__gt=0), name="server_rate_positive"),
            models.CheckConstraint(condition=Q(cost_per_hour_usd__gte=0), name="cost_per_hour_not_negative"),
            models.CheckConstraint(condition=Q(accuracy__gte=0), name="accuracy_not_negative"),
            models.CheckConstraint(condition=Q(verification__in=VERIFICATION_LEVELS), name="entry_verification_known"),
        ]
        # One index per board, in the board's own order (value, then date, then id) and holding the accuracy and
        # the verification level it is filtered by: a board's count, a window deep into it and a rank are read off
        # the index alone.
        indexes = [
            models.Index(
                fields=["task_version", "track", field, "date", "id", "accuracy", "verification"],
                condition=Q(status="accepted"),
                name=name,
            )
            for field, name in BOARD_INDEXES.items()
        ] + [
            models.Index(fields=["task", "track", "date"], name="entry_task_track_date"),
            # The task page's framework suggestions, read off the index rather than the table.
            models.Index(fields=["task", "status", "framework"], name="entry_task_frameworks"),
            # The API's entry list, newest first, of one task or of all.
            models.Index(fields=["task", "-date", "-id"], condition=Q(status="accepted"), name="entry_task_newest"),
            models.Index(fields=["-date", "-id"], condition=Q(status="accepted"), name="entry_newest"),
            # The charts page reads every board of a task at once: from this index alone, a sixth of the table's
            # size (100 ms to 20 ms at 100,000 entries a task).
            models.Index(
                fields=["task_version"],
                include=["id", "date", "track", "accuracy", *CHART_FIGURES],
                condition=Q(status="accepted"),
                name="entry_task_version_figures",
            ),
            # A task's threshold sensitivity reads every training entry's scores at the shifted thresholds: from this
            # index alone (21 ms for 60,000 entries where the table's pages took 73 ms).
            models.Index(
                fields=["task_version"],
                include=[
                    "id",
                    "date",
                    "accuracy",
                    "time_to_accuracy_seconds",
                    "single_crossing",
                    *SHIFT_COLUMNS.values(),
                ],
                condition=Q(status="accepted", track="train"),
                name="entry_sensitivity",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task.slug}/{self.track}: {self.model} ({self.author})"

    @property
    def is_training(self) -> bool:
        return self.track == Track.TRAIN

    @property
    def spread(self) -> Spread | None:
        """How the entry's runs spread around its score (a training entry's; None for inference)."""
        if not self.run_count:
            return None
        return Spread(
            runs=self.run_count,
            successful=self.successful_run_count,
            minimum=self.time_min_seconds,
            maximum=self.time_max_seconds,
            coefficient_of_variation=self.time_coefficient_of_variation,
            interval_low=self.time_interval_low_seconds,
            interval_high=self.time_interval_high_seconds,
        )

    @property
    def threshold_shift_seconds(self) -> dict[str, float | None] | None:
        """Its score at each shifted threshold by shift key (None where never reached); None: not computed."""
        if self.seconds_at_minus_1_point is None:
            return None
        return {key: getattr(self, column) for key, column in SHIFT_COLUMNS.items()}

    @staticmethod
    def shift_columns(shifts: dict[str, float | None]) -> dict:
        """The columns that hold an entry's scores at the shifted thresholds, by field name."""
        return {column: shifts.get(key) for key, column in SHIFT_COLUMNS.items()}

    @staticmethod
    def spread_columns(spread: Spread | None) -> dict:
        """The columns that hold a spread, by field name, as `spread` reads them back ({} for None)."""
        if spread is None:
            return {}
        return {
            "run_count": spread.runs,
            "successful_run_count": spread.successful,
            "time_min_seconds": spread.minimum,
            "time_max_seconds": spread.maximum,
            "time_coefficient_of_variation": spread.coefficient_of_variation,
            "time_interval_low_seconds": spread.interval_low,
            "time_interval_high_seconds": spread.interval_high,
        }


class Run(models.Model):
    """One run of an entry: its log, judged alone (dawnboard.validation.RunResult), and its own figures.

    A training entry holds one or more runs (an inference entry none); the entry holds their score. A run's log
    is on the board once, whoever sends it and however it is written: `log_rows_sha256` (its rows as read up to
    the crossing, dawnboard.documents.TrainingLog.rows_sha256) is unique among the runs `on_board` (of accepted
    entries) of a task (`log_already_submitted`); equal bytes read as equal rows, so this also holds a
    byte-identical copy out.
    """

    class Status(models.TextChoices):
        SUCCESS = "success"
        FAILED = "failed"

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="runs")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField(help_text="The run's place in the submission, from 0.")
    status = models.CharField(max_length=10, choices=Status.choices)
    errors = models.JSONField(default=list, blank=True, help_text="Why a failed run failed.")
    log_name = models.CharField(max_length=255, blank=True)
    log_sha256 = models.CharField(max_length=64, blank=True)
    log_rows_sha256 = models.CharField(max_length=64, blank=True)
    log_row_count = models.PositiveIntegerField(default=0)
    accuracy = models.FloatField(null=True, blank=True)
    time_to_accuracy_seconds = models.FloatField(null=True, blank=True)
    time_to_accuracy_epoch = models.FloatField(null=True, blank=True)
    time_to_accuracy_line = models.PositiveIntegerField(null=True, blank=True)
    # What the machine was doing while a reference run was timed (benchmarks.runner.load): None when unknown.
    machine_load = models.JSONField(null=True, blank=True)
    measured_while_busy = models.BooleanField(default=False)
    on_board = models.BooleanField(default=True, help_text="Whether its entry is accepted (not withdrawn).")

    class Meta:
        ordering = ["entry_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "position"], name="unique_run_position"),
            models.UniqueConstraint(
                fields=["task", "log_rows_sha256"],
                condition=Q(on_board=True) & ~Q(log_rows_sha256=""),
                name="one_accepted_run_per_log",
            ),
            models.CheckConstraint(
                condition=Q(status="failed")
                | Q(time_to_accuracy_seconds__isnull=False, time_to_accuracy_seconds__gte=0),
                name="run_success_has_time",
            ),
        ]
        indexes = [
            # A log's bytes looked up on its task's board (the rows' lookup is the constraint's index).
            models.Index(
                fields=["task", "log_sha256"],
                condition=Q(on_board=True) & ~Q(log_sha256=""),
                name="run_log_bytes",
            ),
        ]

    def __str__(self) -> str:
        return f"entry {self.entry_id} run {self.position + 1} ({self.status})"


class CurvePoint(models.Model):
    """One evaluation of a run's training log: quality against wall-clock hours, for the entry's chart."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="curve")
    position = models.PositiveIntegerField(help_text="Order in the log.")
    line = models.PositiveIntegerField(help_text="Line number in the submitted log.")
    epoch = models.FloatField()
    hours = models.FloatField()
    metric = models.FloatField()

    class Meta:
        ordering = ["run_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "position"], name="unique_curve_position_of_run"),
            models.CheckConstraint(condition=Q(hours__gte=0), name="curve_hours_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.hours:g} h: {self.metric:g}"


class HardwareMatch(models.Model):
    """Which catalog instance (and how many) an entry ran on, as resolved from its text or set by staff."""

    entry = models.OneToOneField(Entry, on_delete=models.CASCADE, related_name="hardware_match")
    instance = models.ForeignKey("pricing.InstanceType", null=True, blank=True, on_delete=models.PROTECT)
    instance_count = models.PositiveIntegerField(default=1)
    # A machine priced by its parts (no `instance`): [[catalog instance id, count], ...], e.g. a Google VM and its
    # GPUs; catalog reloads keep instance ids (instances are updated in place by provider and name).
    parts = models.JSONField(default=list, blank=True)
    reason = models.CharField(max_length=300)
    set_by_staff = models.BooleanField(default=False, help_text="A staff match is never overwritten by the resolver.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(instance_count__gte=1), name="match_at_least_one_instance"),
        ]

    def __str__(self) -> str:
        return f"entry {self.entry_id}: {self.instance or 'unresolved'}"


class BoardGeneration(models.Model):
    """A counter per task, and one for the whole site (`task` empty), that cached pages are keyed by.

    A change to a task's entries moves its task's counter once, after the change commits
    (leaderboard.page_cache.task_boards_changed); a price change moves the site's, which every page's key
    holds. So a new entry retires its task's cached pages, in every process, and no other task's.
    """

    task = models.OneToOneField(
        Task, null=True, blank=True, on_delete=models.CASCADE, related_name="board_generation"
    )  # fmt: skip
    value = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"board generation {self.value} of {self.task or 'the site'}"


# A policy's cost column: its index's name. The columns and their policies: leaderboard.selectors.boards.
CATALOG_COST_INDEXES = {
    "catalog_at_submission_usd": "policy_board_at_submission",
    "catalog_today_usd": "policy_board_today",
    "spot_today_usd": "policy_board_spot_today",
}


class EntryCatalogCost(models.Model):
    """An accepted entry's cost under each catalog price policy (pricing.domain.cost), priced when the entry, its
    hardware match or the catalog changes (leaderboard.services.policy_costs), so that a board by a catalog price
    is read along an index like the boards by the entries' own figures, never priced per request.

    One row per accepted entry matched to the catalog; a policy that cannot price it leaves its column empty. The
    entry's version, track, date and accuracy are copied here, so that one index per policy holds a board's
    filter and order (cost, date, entry): its count, a window deep into it and a rank are read off it alone.
    A cost is in the board's unit: USD for a training run, USD per 10,000 items for inference.
    """

    entry = models.OneToOneField(Entry, primary_key=True, on_delete=models.CASCADE, related_name="catalog_cost")
    task_version = models.ForeignKey(TaskVersion, on_delete=models.CASCADE, related_name="+")
    track = models.CharField(max_length=10, choices=TRACK_CHOICES)
    date = models.DateField()
    accuracy = models.FloatField()
    verification = models.CharField(max_length=20, default=Verification.SELF_REPORTED.value)
    catalog_at_submission_usd = models.DecimalField(max_digits=36, decimal_places=20, null=True, blank=True)
    catalog_today_usd = models.DecimalField(max_digits=36, decimal_places=20, null=True, blank=True)
    spot_today_usd = models.DecimalField(max_digits=36, decimal_places=20, null=True, blank=True)
    priced_on = models.DateField(help_text="The day the costs were priced: 'today' of the today policies.")
    prices_hold_until = models.DateField(
        null=True,
        blank=True,
        help_text="The first day a quote of the machine starts or ends after `priced_on`, when the costs are priced"
        " again; empty: no change is known.",
    )

    class Meta:
        indexes = [
            models.Index(
                fields=["task_version", "track", field, "date", "entry", "accuracy", "verification"],
                condition=Q(**{f"{field}__isnull": False}),
                name=name,
            )
            for field, name in CATALOG_COST_INDEXES.items()
        ] + [
            models.Index(
                fields=["prices_hold_until"], condition=Q(prices_hold_until__isnull=False), name="catalog_cost_expiry"
            ),
        ]

    def __str__(self) -> str:
        return f"catalog costs of entry {self.entry_id} on {self.priced_on}"


class AlgorithmResult(models.Model):
    """A training algorithm's results on a suite under a tuning ruleset (the algorithm track): a results bundle sent
    by a submitter and judged from its trial logs, or one submission of AlgoPerf's published results imported. Every
    time is recomputed from the logs (`dawnboard.algorithms`); the scores that compare results are computed when a
    board is read, over the results on it."""

    class Source(models.TextChoices):
        BUNDLE = "bundle", "results bundle"
        ALGOPERF = "algoperf", "AlgoPerf's published results"

    suite = models.CharField(max_length=40, help_text="cpu, gpu, or algoperf-<version>.")
    ruleset = models.CharField(max_length=10, choices=[("external", "external tuning"), ("self", "self-tuning")])
    name = models.CharField(max_length=100, help_text="The algorithm's name, as its logs' folder.")
    source = models.CharField(max_length=10, choices=Source.choices)
    submitter = models.ForeignKey(
        Submitter, on_delete=models.PROTECT, null=True, blank=True, related_name="algorithm_results"
    )
    reference = models.CharField(max_length=100, blank=True, help_text="The baseline run beside it (bundles).")
    times = models.JSONField(help_text="Workload -> seconds to target (null: never), before the comparing rules.")
    reference_times = models.JSONField(null=True, blank=True)
    held_out = models.JSONField(default=dict, blank=True, help_text="Held-out variant -> its base workload.")
    score_vs_reference = models.FloatField(null=True, blank=True)
    geomean_speedup = models.FloatField(null=True, blank=True)
    speedups = models.JSONField(default=dict, blank=True)
    curves = models.JSONField(default=list, blank=True, help_text="Each trial's evaluations (the algorithm page).")
    warnings = models.JSONField(default=list, blank=True)
    bundle_name = models.CharField(max_length=255, blank=True)
    bundle_sha256 = models.CharField(max_length=64, blank=True)
    bundle_content = models.BinaryField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["suite", "ruleset", "name", "id"]
        indexes = [models.Index(fields=["suite", "ruleset"], name="algorithm_board")]
        constraints = [
            models.UniqueConstraint(
                fields=["suite", "ruleset", "name"],
                condition=Q(source="algoperf"),
                name="one_import_per_algoperf_submission",
            ),
            models.CheckConstraint(condition=Q(ruleset__in=["external", "self"]), name="algorithm_ruleset_known"),
        ]

    def __str__(self) -> str:
        return f"{self.name} on {self.suite} ({self.ruleset})"
