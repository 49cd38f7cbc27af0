"""Serializers: shapes of the API's JSON. No logic beyond naming fields."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from dawnboard.documents import published
from dawnboard.verification import VERIFICATION_LEVELS
from leaderboard import selectors
from leaderboard.models import CurvePoint, Entry, Run, Submission, SubmittedFile, Task, TaskVersion
from leaderboard.services import entry_results
from pricing.domain.cost import usd_text


class SubmissionRequestSerializer(serializers.Serializer):
    """The multipart form of POST /api/v1/submissions/ (validated by the ingest, not here)."""

    task = serializers.CharField(help_text="Task slug, e.g. cifar10 (an MLPerf benchmark's task, e.g. bert).")
    track = serializers.CharField(help_text="train or inference (format=mllog: train, the default).")
    format = serializers.ChoiceField(
        choices=["dawnbench", "mllog"],
        required=False,
        help_text="dawnbench (the default): a DAWNBench v1.0 entry and TSV logs; mllog: MLPerf Training logs.",
    )
    round = serializers.CharField(required=False, help_text="format=mllog: the MLPerf Training round, e.g. v4.0.")
    entry = serializers.FileField(
        required=False, help_text="The DAWNBench v1.0 entry JSON (format=mllog: the system JSON, optional)."
    )
    log = serializers.ListField(
        child=serializers.FileField(),
        required=False,
        help_text="One file per run, the field repeated: a TSV log (training entries) or an MLLOG result file.",
    )


class IssueSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    field = serializers.CharField(required=False)
    line = serializers.IntegerField(required=False)


SUBMISSION_STATUSES = ["pending", "accepted", "rejected", "failed", "valid"]


class SubmissionVerdictSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=SUBMISSION_STATUSES)
    warnings = IssueSerializer(many=True)
    errors = IssueSerializer(many=True, required=False)
    results = serializers.DictField(allow_null=True)
    url = serializers.CharField(allow_null=True)
    entry_url = serializers.CharField(allow_null=True, required=False)


class SubmissionListItemSerializer(serializers.ModelSerializer):
    """One of the caller's submissions in `GET /api/v1/submissions/`: its state and its verdict's codes."""

    task = serializers.CharField(source="task_slug")
    url = serializers.HyperlinkedIdentityField(view_name="api:submission-detail")
    entry_url = serializers.SerializerMethodField()
    error_codes = serializers.SerializerMethodField()
    warning_codes = serializers.SerializerMethodField()

    class Meta:
        model = Submission
        fields = [
            "id", "status", "task", "track", "source", "created_at", "decided_at",
            "url", "entry_url", "error_codes", "warning_codes",
        ]  # fmt: skip

    def get_entry_url(self, submission) -> str | None:
        entry = getattr(submission, "entry", None) if submission.status == Submission.Status.ACCEPTED else None
        if entry is None:
            return None
        return self.context["request"].build_absolute_uri(reverse("api:entry-detail", kwargs={"pk": entry.id}))

    def get_error_codes(self, submission) -> list[str]:
        return sorted({issue.get("code", "") for issue in submission.errors})

    def get_warning_codes(self, submission) -> list[str]:
        return sorted({issue.get("code", "") for issue in submission.warnings})


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    tied_with_above = serializers.BooleanField(
        allow_null=True,
        help_text="Its runs' 95 % interval reaches the one of the entry ranked just above: not told apart from it "
        "(null: not in rank order).",
    )
    entry_id = serializers.IntegerField()
    source_name = serializers.CharField()
    value = serializers.FloatField(help_text="In the board's unit: the score of the entry's runs.")
    runs = serializers.IntegerField(help_text="How many runs the entry holds (0 for inference).")
    interval_95 = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        allow_null=True,
        help_text="[low, high]: a seeded 95 % bootstrap interval of the runs' median, in the board's unit (high null: "
        "unbounded, failed runs); null for inference.",
    )
    model = serializers.CharField()
    team = serializers.CharField()
    hardware = serializers.CharField()
    framework = serializers.CharField()
    date = serializers.DateField()
    verification = serializers.ChoiceField(choices=VERIFICATION_LEVELS, help_text="How far to trust it.")


class LeaderboardSerializer(serializers.Serializer):
    """The document of `manage.py leaderboard TASK METRIC --json`; for the schema only."""

    task = serializers.CharField()
    version = serializers.CharField(help_text="The task version whose board this is.")
    metric = serializers.CharField()
    unit = serializers.CharField()
    latency_stat = serializers.ChoiceField(
        choices=list(selectors.LATENCY_STATS),
        required=False,
        help_text="The latency statistic ranking the inference-latency board, when one was asked for.",
    )
    cost_at = serializers.ChoiceField(
        choices=list(selectors.COST_AT),
        required=False,
        help_text="How the inference-cost board prices 10,000 items, when asked for: single-stream or throughput.",
    )
    verification = serializers.ListField(
        child=serializers.ChoiceField(choices=VERIFICATION_LEVELS),
        required=False,
        help_text="The verification levels whose board this is, when asked for.",
    )
    count = serializers.IntegerField(help_text="Rows on the whole board.")
    offset = serializers.IntegerField(help_text="Rows skipped from the top.")
    limit = serializers.IntegerField(allow_null=True, help_text="At most this many rows here.")
    next = serializers.URLField(allow_null=True, help_text="The next window of rows; null at the end.")
    previous = serializers.URLField(allow_null=True, help_text="The previous window of rows; null at the top.")
    results = LeaderboardRowSerializer(many=True)


class RankMoveSerializer(serializers.Serializer):
    entry = serializers.IntegerField()
    official_rank = serializers.IntegerField()
    shifted_rank = serializers.IntegerField()
    move = serializers.IntegerField(help_text="Official rank less shifted rank: positive, it moved up.")


class ShiftSerializer(serializers.Serializer):
    delta = serializers.FloatField(help_text="The shift, in points of the task's scale.")
    threshold = serializers.FloatField(help_text="The shifted threshold.")
    kendall_tau = serializers.FloatField(
        allow_null=True, help_text="Between the official order and this one, over the entries in both."
    )
    entries_ranked = serializers.IntegerField(help_text="Entries reaching the shifted threshold.")
    largest_moves = RankMoveSerializer(many=True)


class SensitivitySerializer(serializers.Serializer):
    """`GET /api/v1/tasks/{task}/sensitivity/`; for the schema only."""

    task = serializers.CharField()
    version = serializers.CharField()
    threshold = serializers.FloatField()
    shifts = ShiftSerializer(many=True)
    single_crossings = serializers.ListField(
        child=serializers.IntegerField(), help_text="Entries whose crossing is a single evaluation above the threshold."
    )


class ApiEndpointsSerializer(serializers.Serializer):
    submissions = serializers.URLField()
    submission = serializers.CharField(help_text="With {id} to fill in.")
    entries = serializers.URLField()
    entry = serializers.CharField(help_text="With {id} to fill in.")
    entry_file = serializers.CharField(help_text="With {id} and {role} (entry or log) to fill in.")
    leaderboard = serializers.CharField(help_text="With {task} and {metric} to fill in.")
    tasks = serializers.URLField()
    reference_runs = serializers.URLField()
    instances = serializers.URLField()
    algorithm_results = serializers.URLField(help_text="POST a results bundle of the algorithm track.")
    algorithm_result = serializers.CharField(help_text="With {id} to fill in.")
    algorithm_board = serializers.CharField(help_text="With {suite} and {ruleset} to fill in.")
    sensitivity = serializers.CharField(help_text="A task's threshold sensitivity, with {task} to fill in.")


class ApiRootSerializer(serializers.Serializer):
    """`GET /api/v1/`; for the schema only."""

    endpoints = ApiEndpointsSerializer()
    schema = serializers.URLField(help_text="The OpenAPI schema.")
    docs = serializers.URLField(help_text="The schema as Swagger UI.")


class TaskVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = TaskVersion
        fields = [
            "version",
            "metric_label",
            "log_column",
            "inference_fields",
            "threshold",
            "scale",
            "is_current",
            "source",
            "documented_log_columns",
            "documented_fields",
        ]


class TaskSerializer(serializers.ModelSerializer):
    versions = TaskVersionSerializer(many=True, read_only=True)

    class Meta:
        model = Task
        fields = ["slug", "name", "description", "versions"]


class EntrySerializer(serializers.ModelSerializer):
    task = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    task_version = serializers.CharField(source="task_version.version", read_only=True)
    results = serializers.SerializerMethodField()
    url = serializers.HyperlinkedIdentityField(view_name="api:entry-detail")
    submitter = serializers.CharField(
        source="submitter_name",
        read_only=True,
        allow_null=True,
        help_text="The account that submitted the entry (the files' `author` is beside it); null for an entry "
        "imported from the DAWNBench archive.",
    )
    submission_source = serializers.ChoiceField(
        choices=Submission.Source.choices,
        read_only=True,
        help_text="How it came: api, command (manage.py submit), import (DAWNBench archive), reference (a "
        "reference run), measured (the inference harness).",
    )

    verification = serializers.ChoiceField(
        choices=VERIFICATION_LEVELS,
        read_only=True,
        help_text="How far to trust it: self-reported, log-verified, compliance-checked, measured or reproduced.",
    )
    evaluation = serializers.SerializerMethodField(
        help_text="What it says was evaluated: the split and exclusions it states (null: none), and `evaluated`: "
        "whole, with-exclusions or unstated."
    )

    class Meta:
        model = Entry
        fields = [
            "id", "url", "task", "task_version", "track", "status", "source_name", "version", "author",
            "submitter", "submission_source", "framework", "model", "hardware", "date", "code_url", "commit_hash",
            "cost_per_hour_usd", "results", "warnings", "created_at", "verification", "evaluation",
        ]  # fmt: skip

    def get_results(self, entry: Entry) -> dict:
        return entry_results(entry)

    @extend_schema_field(serializers.DictField())
    def get_evaluation(self, entry: Entry) -> dict:
        return {
            "split": entry.evaluation_split or None,
            "exclusions": entry.evaluation_exclusions or None,
            "evaluated": entry.evaluated,
        }


class CurvePointSerializer(serializers.ModelSerializer):
    class Meta:
        model = CurvePoint
        fields = ["position", "line", "epoch", "hours", "metric"]


class RunSerializer(serializers.ModelSerializer):
    """One run of an entry: its log's name and digests, its own figures, why it failed, its curve."""

    run = serializers.SerializerMethodField(help_text="The run's number in the entry, from 1.")
    curve = CurvePointSerializer(many=True, read_only=True)

    class Meta:
        model = Run
        fields = [
            "run", "status", "errors", "log_name", "log_sha256", "log_row_count", "accuracy",
            "time_to_accuracy_seconds", "time_to_accuracy_epoch", "time_to_accuracy_line", "measured_while_busy",
            "machine_load", "curve",
        ]  # fmt: skip

    def get_run(self, run: Run) -> int:
        return run.position + 1


class ShownFileSerializer(serializers.Serializer):
    """An entry's file as the reader is given it (leaderboard.selectors.ShownFile)."""

    role = serializers.ChoiceField(choices=SubmittedFile.Role.choices)
    name = serializers.CharField()
    sha256 = serializers.CharField(help_text="Of the file this reader downloads from `url`.")
    size_bytes = serializers.IntegerField()
    as_published = serializers.BooleanField(
        help_text="true: the entry JSON as published, without the author's e-mail address (written afresh, so "
        "that neither its digest nor its size tells anything of the address); false: the file as uploaded, which "
        "only staff and the entry's submitter are given of an entry JSON."
    )
    url = serializers.URLField(
        allow_null=True, help_text="Download it (the API takes your token here); null for a withdrawn entry."
    )


class LatencyPercentilesSerializer(serializers.Serializer):
    """An entry's measured latency percentiles in milliseconds; for the schema only."""

    p50 = serializers.FloatField(allow_null=True)
    p90 = serializers.FloatField(allow_null=True)
    p99 = serializers.FloatField(allow_null=True)
    max = serializers.FloatField(allow_null=True)


class EntryDetailSerializer(EntrySerializer):
    runs = RunSerializer(many=True, read_only=True)
    cost_policies = serializers.SerializerMethodField(
        help_text="The cost under every price policy, with its arithmetic."
    )
    price_warning = serializers.SerializerMethodField()
    hardware_match = serializers.SerializerMethodField()
    pricing_models = serializers.SerializerMethodField(
        help_text="The machine on the entry's date under each pricing model, and which is the entry's own price."
    )
    pricing_model_before_date = serializers.SerializerMethodField(
        help_text="When no pricing model gives the entry's own price on its date: the latest earlier price period "
        "(within a year) in which one does, with its first and last day; else null."
    )
    footprint = serializers.SerializerMethodField(help_text="Estimated training energy and carbon, with sources.")
    latency_percentiles_ms = serializers.SerializerMethodField(
        help_text="Latency percentiles measured by Dawnboard's inference harness; null for other entries."
    )
    samples_per_second = serializers.FloatField(
        read_only=True, help_text="Offline throughput measured through MLPerf LoadGen; null for other entries."
    )
    inference_cost_usd_per_10k_at_throughput = serializers.FloatField(
        read_only=True,
        help_text="10,000 items' cost at that throughput, at the entry's own price; null without a throughput.",
    )
    queries_per_second = serializers.FloatField(
        read_only=True, help_text="The highest server rate LoadGen judged VALID; null for other entries."
    )
    files = serializers.SerializerMethodField(help_text="The entry's files as this reader is given them.")
    threshold = serializers.DecimalField(
        source="task_version.threshold", max_digits=14, decimal_places=6, read_only=True
    )
    author_email = serializers.CharField(
        read_only=True, required=False, help_text="Only to staff and to the entry's own submitter."
    )
    claimed = serializers.JSONField(
        read_only=True, help_text="The entry document as submitted; `authorEmail` only to staff and its submitter."
    )
    reproduces = serializers.PrimaryKeyRelatedField(
        read_only=True, help_text="The entry this one reproduces (a reference run's seed, or as its submitter marked)."
    )
    reproduction = serializers.JSONField(
        read_only=True,
        help_text="The verdict of its reproductions: status (reproduced or not reproduced), the original's epochs, "
        "the spread of the recipe's runs, the epochs allowed, each reproduction and the reason; null: none.",
    )
    compliance = serializers.JSONField(
        read_only=True, help_text="MLCommons' compliance checker on an MLPerf set's logs: passed, failures, ruleset."
    )
    convergence = serializers.JSONField(
        read_only=True,
        help_text="Convergence plausibility: kind rcp (MLCommons' reference convergence points: pass, fail or "
        "missing, with the scaling factor) or reference-runs (against Dawnboard's reference runs of its recipe: "
        "plausible, faster or missing); null where neither applies.",
    )
    single_crossing = serializers.BooleanField(
        read_only=True, help_text="Its crossing is a single evaluation above the threshold (the next falls below)."
    )
    threshold_shift_seconds = serializers.SerializerMethodField(
        help_text="Its score at the threshold shifted by -1, -0.5, +0.5 and +1 point, by shift (-1.0, -0.5, +0.5, "
        "+1.0; null: never reached there); null where none was computed (an MLPerf set)."
    )

    class Meta(EntrySerializer.Meta):
        fields = [
            *EntrySerializer.Meta.fields,
            "author_email", "log_filename", "misc", "extra_fields", "claimed", "threshold",
            "time_to_accuracy_line", "files", "hardware_match", "cost_policies", "pricing_models",
            "pricing_model_before_date", "price_warning", "footprint", "latency_percentiles_ms", "runs",
            "samples_per_second", "inference_cost_usd_per_10k_at_throughput", "queries_per_second",
            "reproduces", "reproduction", "compliance", "convergence", "single_crossing", "threshold_shift_seconds",
        ]  # fmt: skip

    def to_representation(self, entry: Entry) -> dict:
        data = super().to_representation(entry)
        if not self._email_visible(entry):
            del data["author_email"]
            data["claimed"] = published(data["claimed"])
        return data

    @extend_schema_field(serializers.DictField(child=serializers.FloatField(allow_null=True), allow_null=True))
    def get_threshold_shift_seconds(self, entry: Entry) -> dict | None:
        return entry.threshold_shift_seconds

    @extend_schema_field(ShownFileSerializer(many=True))
    def get_files(self, entry: Entry) -> list[dict]:
        request = self.context.get("request")
        absolute = request.build_absolute_uri if request is not None else str
        withdrawn = entry.status == Entry.Status.WITHDRAWN
        return [
            {
                "role": shown.role,
                "name": shown.name,
                "sha256": shown.sha256,
                "size_bytes": shown.size_bytes,
                "as_published": shown.as_published,
                "url": None if withdrawn else absolute(reverse("api:entry-file", args=[entry.id, shown.role])),
            }
            for shown in selectors.entry_files_shown(entry, original=self._email_visible(entry))
        ]

    def get_cost_policies(self, entry: Entry) -> list[dict]:
        return [
            {
                "policy": cost.policy,
                "usd": None if cost.usd is None else usd_text(cost.usd),
                "arithmetic": cost.arithmetic,
            }
            for cost in self._accounting(entry).costs
        ]

    def get_price_warning(self, entry: Entry) -> str | None:
        return self._accounting(entry).price_warning

    def get_pricing_models(self, entry: Entry) -> list[dict]:
        return [
            {
                "model": price.model,
                "usd_per_hour": None if price.usd_per_hour is None else str(price.usd_per_hour),
                "arithmetic": price.arithmetic,
                "reproduces_cost_per_hour": price.reproduces,
            }
            for price in self._accounting(entry).model_prices
        ]

    def get_pricing_model_before_date(self, entry: Entry) -> dict | None:
        earlier = self._accounting(entry).earlier_price
        if earlier is None:
            return None
        return {
            "model": earlier.price.model,
            "usd_per_hour": str(earlier.price.usd_per_hour),
            "arithmetic": earlier.price.arithmetic,
            "first_day": earlier.first_day.isoformat(),
            "last_day": earlier.last_day.isoformat(),
        }

    def get_hardware_match(self, entry: Entry) -> dict | None:
        match = self._accounting(entry).match
        if match is None:
            return None
        instance = match.instance
        return {
            "provider": instance.provider.slug if instance else None,
            "instance": instance.name if instance else None,
            "instance_id": instance.id if instance else None,
            "count": match.instance_count if instance else None,
            "parts": [{"instance_id": instance_id, "count": count} for instance_id, count in match.parts],
            "reason": match.reason,
            "set_by_staff": match.set_by_staff,
        }

    def get_footprint(self, entry: Entry) -> dict | None:
        return self._accounting(entry).footprint

    @extend_schema_field(LatencyPercentilesSerializer(allow_null=True))
    def get_latency_percentiles_ms(self, entry: Entry) -> dict | None:
        return selectors.entry_latency_percentiles(entry)

    def _email_visible(self, entry: Entry) -> bool:
        """Whether this reader may read the author's address (and the upload that holds it): asked once."""
        cache = self.context.setdefault("email_visible", {})
        if entry.id not in cache:
            request = self.context.get("request")
            cache[entry.id] = selectors.author_email_visible(entry=entry, user=getattr(request, "user", None))
        return cache[entry.id]

    def _accounting(self, entry: Entry) -> selectors.EntryAccounting:
        """The entry's costs, composed once for the four fields that show them (the page uses the same)."""
        cache = self.context.setdefault("accounting", {})
        if entry.id not in cache:
            cache[entry.id] = selectors.entry_accounting(entry)
        return cache[entry.id]
