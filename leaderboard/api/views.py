"""API views: parse the request, call one service or selector, render."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

from django.http import HttpResponse
from django.urls import reverse
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status, throttling
from rest_framework.exceptions import ErrorDetail, NotFound, PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from dawnboard.rules import Track
from dawnboard.verification import VERIFICATION_LEVELS, Evaluated, verification_levels_asked
from leaderboard import selectors
from leaderboard.api.errors import rejected_response
from leaderboard.api.serializers import (
    ApiRootSerializer,
    EntryDetailSerializer,
    EntrySerializer,
    LeaderboardSerializer,
    SensitivitySerializer,
    SubmissionListItemSerializer,
    SubmissionRequestSerializer,
    SubmissionVerdictSerializer,
    TaskSerializer,
)
from leaderboard.downloads import file_download
from leaderboard.forms import whole_number
from leaderboard.models import Entry, Submission, SubmittedFile, Task
from leaderboard.page_cache import cached_value
from leaderboard.selectors.sensitivity import task_sensitivity
from leaderboard.services import (
    IdempotencyKeyReused,
    QueueUnavailable,
    SubmissionOutcome,
    SubmissionRejected,
    submission_create,
    submission_outcome,
    submission_version,
    upload_read,
)
from pricing.domain.cost import COST_POLICIES

HTTP_STATUS_OF = {
    "accepted": status.HTTP_201_CREATED,
    "pending": status.HTTP_202_ACCEPTED,
    "valid": status.HTTP_200_OK,
    "rejected": status.HTTP_400_BAD_REQUEST,
}
TRUE_VALUES = {"1", "true", "yes", "on"}
LEADERBOARD_LIMIT = 100  # rows of a leaderboard unless ?limit= says otherwise
LEADERBOARD_MAX_LIMIT = 1000
LEADERBOARD_MAX_OFFSET = 100_000_000
IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,200}")


class SubmissionCreateView(generics.ListAPIView):
    """Submit an entry JSON (and, for training, the TSV log of each run: `log` repeated); list your own
    submissions, newest first. `format=mllog` takes an MLPerf Training result set instead: its result files as
    repeated `log`, the system JSON as `entry` (optional) and the `round` (e.g. v4.0).

    `?dry_run=1` validates and stores nothing. An `Idempotency-Key` header makes a retried POST safe: the same
    key with the same files answers the first submission again (200, same id) instead of making a second.
    """

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser]
    serializer_class = SubmissionListItemSerializer
    throttle_scope = "submissions"  # THROTTLE_SUBMISSION_RATE per submitter, on top of the user and IP rates

    def get_throttles(self):
        """The submissions rate counts submissions: reading your own list is only under the user rate."""
        throttles = super().get_throttles()
        if self.request.method == "POST":
            return throttles
        return [throttle for throttle in throttles if not isinstance(throttle, throttling.ScopedRateThrottle)]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "status", str, enum=list(Submission.Status.values), description="Only submissions in this state."
            )
        ],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reads the model; there is no caller
            return Submission.objects.none()
        wanted = self.request.query_params.get("status")
        if wanted is not None and wanted not in Submission.Status.values:
            raise ValidationError(
                {"status": ErrorDetail(f"status is one of {', '.join(Submission.Status.values)}.", "invalid_status")}
            )
        return selectors.submissions_of(user=self.request.user, status=wanted)

    @extend_schema(
        request={"multipart/form-data": SubmissionRequestSerializer},
        parameters=[
            OpenApiParameter("dry_run", bool, description="Validate only; store nothing."),
            OpenApiParameter(
                IDEMPOTENCY_HEADER,
                str,
                location=OpenApiParameter.HEADER,
                description="Any unique string up to 200 visible ASCII characters (a UUID, say); kept 24 h.",
            ),
        ],
        responses={
            200: SubmissionVerdictSerializer,
            201: SubmissionVerdictSerializer,
            202: SubmissionVerdictSerializer,
            400: SubmissionVerdictSerializer,
            422: SubmissionVerdictSerializer,
            503: SubmissionVerdictSerializer,
        },
    )
    def post(self, request):
        submitter = getattr(request.user, "submitter", None)
        if submitter is None:
            raise PermissionDenied("This account is not a submitter.", code="not_a_submitter")
        idempotency_key = request.headers.get(IDEMPOTENCY_HEADER, "")
        if idempotency_key and not IDEMPOTENCY_KEY_PATTERN.fullmatch(idempotency_key):
            return rejected_response(
                [
                    {
                        "code": "invalid_idempotency_key",
                        "message": "Idempotency-Key is 1 to 200 visible ASCII characters (a UUID, say).",
                        "field": IDEMPOTENCY_HEADER,
                    }
                ]
            )
        try:
            version = submission_version(
                log_format=request.POST.get("format", "").strip(), round_name=request.POST.get("round", "").strip()
            )
            entry = _optional_upload(request, "entry")
            logs = [upload_read(file, field_name="log") for file in request.FILES.getlist("log")]
        except SubmissionRejected as rejected:
            return rejected_response([issue.as_dict() for issue in rejected.issues], id=None)
        try:
            outcome = submission_create(
                task_slug=request.POST.get("task", "").strip(),  # form fields only: a file part named task is absent
                track=request.POST.get("track", "").strip() or ("train" if version else ""),
                entry=entry,
                logs=logs,
                version=version,
                source=Submission.Source.API,
                submitter=submitter,
                dry_run=request.query_params.get("dry_run", "").lower() in TRUE_VALUES,
                idempotency_key=idempotency_key,
            )
        except IdempotencyKeyReused as reused:
            return rejected_response(
                [{"code": "idempotency_key_reused", "message": str(reused), "field": IDEMPOTENCY_HEADER}],
                http_status=status.HTTP_422_UNPROCESSABLE_ENTITY,
                id=reused.submission_id,
            )
        except QueueUnavailable as unavailable:
            response = rejected_response(
                [{"code": "queue_unavailable", "message": str(unavailable)}],
                http_status=status.HTTP_503_SERVICE_UNAVAILABLE,
                id=None,
            )
            response["Retry-After"] = str(unavailable.retry_after_seconds)
            return response
        if outcome.replayed:
            response = Response(verdict_payload(outcome, request), status=status.HTTP_200_OK)
            response["Idempotent-Replayed"] = "true"
            return response
        return Response(verdict_payload(outcome, request), status=HTTP_STATUS_OF[outcome.status])


class SubmissionDetailView(APIView):
    """The verdict of one of your submissions (`pending` until a worker has judged it)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: SubmissionVerdictSerializer})
    def get(self, request, pk: int):
        try:
            submission = selectors.submission_for(submission_id=pk, user=request.user)
        except Submission.DoesNotExist:
            raise NotFound("No submission of yours has this id.", code="not_found") from None
        return Response(verdict_payload(submission_outcome(submission=submission), request))


class EntryFilter(filters.FilterSet):
    task = filters.CharFilter(method="of_task")
    track = filters.ChoiceFilter(choices=[(track.value, track.value) for track in Track])
    framework = filters.CharFilter(lookup_expr="icontains")
    hardware = filters.CharFilter(lookup_expr="icontains")
    verification = filters.CharFilter(
        method="of_levels",
        help_text="One verification level or several, comma-separated: " + ", ".join(VERIFICATION_LEVELS),
    )
    evaluated = filters.ChoiceFilter(choices=[(kind.value, kind.value) for kind in Evaluated])

    class Meta:
        model = Entry
        fields = ["task", "track", "framework", "hardware", "verification", "evaluated"]

    def of_levels(self, queryset, name, value):
        try:
            return queryset.filter(verification__in=verification_levels_asked(value))
        except ValueError as error:
            raise ValidationError({"verification": [ErrorDetail(str(error), code="invalid_verification")]}) from None

    def of_task(self, queryset, name, value):
        """By the task's id, read first (a constant to PostgreSQL): the list and its count then walk the index of
        the task's newest entries rather than join every entry to its task."""
        return queryset.filter(task_id=Task.objects.filter(slug=value).values("id")[:1])


class EntryListView(generics.ListAPIView):
    """Accepted entries, newest first, a page at a time; cached like the pages until the board changes."""

    serializer_class = EntrySerializer
    filterset_class = EntryFilter

    def get_queryset(self):
        return selectors.entries_list()

    def list(self, request, *args, **kwargs):
        asked = {name: request.query_params.get(name) for name in (*EntryFilter.Meta.fields, "page")}
        return cached_document(
            request,
            kind="entries",
            parameters=asked,
            compute=lambda: super(EntryListView, self).list(request, *args, **kwargs).data,
            task_slug=asked["task"],  # a list of one task moves only with that task
        )


class EntryDetailView(generics.RetrieveAPIView):
    """One entry; cached for anonymous readers until the board changes (staff and the entry's submitter see
    its author's e-mail too, so theirs is read afresh)."""

    serializer_class = EntryDetailSerializer
    # One object, neither paged nor filtered: with a paginator, the browsable API takes a document with a
    # `results` key for a page of a list and asks for a queryset to draw a filter form (a 500 under text/html).
    pagination_class = None
    filter_backends = []

    def get_object(self):
        try:
            return selectors.entry_detail(entry_id=self.kwargs["pk"])
        except Entry.DoesNotExist:
            raise NotFound("No entry has this id.", code="not_found") from None

    def retrieve(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            return super().retrieve(request, *args, **kwargs)
        compute = lambda: super(EntryDetailView, self).retrieve(request, *args, **kwargs).data  # noqa: E731
        return cached_document(request, kind="entry", parameters={"id": self.kwargs["pk"]}, compute=compute)


class EntryFileView(APIView):
    """An accepted entry's file, `entry` (its JSON) or `log` (its TSV log), as the site's page serves it but with
    your token: the entry JSON as uploaded to its submitter and the site's staff, and as published (without
    the author's e-mail address) to everyone else; the log as uploaded to anyone."""

    @extend_schema(
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.BINARY, description="The entry JSON."),
            (200, "text/tab-separated-values"): OpenApiResponse(OpenApiTypes.BINARY, description="The log."),
            404: OpenApiResponse(description="No accepted entry has this id, or it has no such file."),
        }
    )
    def get(self, request, pk: int, role: str):
        try:
            shown = selectors.entry_file_shown(entry_id=pk, role=role, user=request.user)
        except SubmittedFile.DoesNotExist:
            raise NotFound(
                f"No accepted entry {pk} has a file `{role}`: the files are `entry` and, for training, `log`.",
                code="not_found",
            ) from None
        return file_download(shown.content, name=shown.name, role=shown.role)

    def perform_content_negotiation(self, request, force=False):
        """A file is sent whatever the reader accepts; an error in the envelope, as JSON."""
        return super().perform_content_negotiation(request, force=True)


class LeaderboardView(APIView):
    """A task's ranking by one metric, a window of `limit` rows from `offset` at a time (`count` rows in all);
    the same document as `manage.py leaderboard TASK METRIC --json`."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "limit",
                int,
                description=f"At most this many rows: 1 to {LEADERBOARD_MAX_LIMIT} (default {LEADERBOARD_LIMIT}).",
            ),
            OpenApiParameter(
                "offset",
                int,
                description="Rows to skip from the top of the board (default 0); `next` and `previous` in the answer"
                " hold the neighbouring windows.",
            ),
            OpenApiParameter(
                "cost_basis",
                str,
                enum=list(COST_POLICIES),
                description="Price policy ranking the cost boards (default: as-submitted).",
            ),
            OpenApiParameter(
                "latency_stat",
                str,
                enum=list(selectors.LATENCY_STATS),
                description="Latency statistic ranking the inference-latency board (default: mean); with p90 or"
                " p99, entries without measured percentiles are left out. Other boards ignore it.",
            ),
            OpenApiParameter(
                "cost_at",
                str,
                enum=list(selectors.COST_AT),
                description="How the inference-cost board prices 10,000 items (default: single-stream, DAWNBench's:"
                " one item at a time); throughput ranks entries measured offline through LoadGen, at their own"
                " prices, leaving out the others. Other boards ignore it.",
            ),
            OpenApiParameter(
                "version",
                str,
                description="The task version whose board to read, e.g. mlperf-v4.0 (default: the current one).",
            ),
            OpenApiParameter(
                "verification",
                str,
                description="The board of the entries of these verification levels only, comma-separated: "
                + ", ".join(VERIFICATION_LEVELS)
                + " (default: every entry).",
            ),
        ],
        responses={200: LeaderboardSerializer},
    )
    def get(self, request, task: str, metric: str):
        limit, offset = _page_window(request)
        if limit is None or offset is None:
            return rejected_response([_WINDOW_ISSUES["limit" if limit is None else "offset"]])
        asked = {
            "task_slug": task,
            "metric_slug": metric,
            "limit": limit,
            "offset": offset,
            "cost_basis": request.query_params.get("cost_basis"),
            "latency_stat": request.query_params.get("latency_stat"),
            "version": request.query_params.get("version") or None,
            "cost_at": request.query_params.get("cost_at"),
            "verification": request.query_params.get("verification"),
        }
        try:  # cached under what decides the document, as parsed, and nothing else
            return cached_document(
                request,
                kind="leaderboard",
                parameters=asked,
                compute=lambda: _windowed(request, selectors.leaderboard(**asked)),
                task_slug=task,
            )
        except selectors.UnknownLeaderboard as unknown:
            # An unknown task or metric names no resource; an unknown cost basis or latency statistic is a bad
            # parameter.
            bad_parameter = unknown.code in (
                "unknown_cost_basis",
                "invalid_latency_stat",
                "unknown_version",
                "invalid_cost_at",
                "unsupported_cost_at",
                "invalid_verification",
            )
            http_status = status.HTTP_400_BAD_REQUEST if bad_parameter else status.HTTP_404_NOT_FOUND
            issue = {"code": unknown.code, "message": unknown.message}
            if unknown.field is not None:
                issue["field"] = unknown.field
            return rejected_response([issue], http_status=http_status)


def cached_document(request, *, kind: str, parameters: dict, compute, task_slug: str | None = None) -> HttpResponse:
    """The JSON document `compute()` returns, rendered once and kept like the pages (leaderboard.page_cache).

    Kept as the bytes sent: a reader asking for JSON gets them as they are, with no serialising, rendering or
    unpickling of objects per request; a reader of the browsable API gets them parsed and rendered as usual.
    The key holds the address the reader used, since documents hold absolute links.
    """
    body = cached_value(
        kind=kind,
        parameters={**parameters, "site": request.build_absolute_uri("/")},
        compute=lambda: JSONRenderer().render(compute()),
        task_slug=task_slug,
    )
    if request.accepted_renderer.format == JSONRenderer.format:
        return HttpResponse(body, content_type=JSONRenderer.media_type)
    return Response(json.loads(body))


_WINDOW_ISSUES = {
    "limit": {
        "code": "invalid_limit",
        "message": f"limit is a whole number from 1 to {LEADERBOARD_MAX_LIMIT} (default {LEADERBOARD_LIMIT}).",
        "field": "limit",
    },
    "offset": {
        "code": "invalid_offset",
        "message": f"offset is a whole number from 0 to {LEADERBOARD_MAX_OFFSET:,} (default 0).",
        "field": "offset",
    },
}


def _page_window(request) -> tuple[int | None, int | None]:
    """`?limit` and `?offset` as parsed (their defaults when absent); None for a value out of range."""
    given_limit, given_offset = request.query_params.get("limit"), request.query_params.get("offset")
    limit = LEADERBOARD_LIMIT if given_limit is None else whole_number(given_limit, maximum=LEADERBOARD_MAX_LIMIT)
    offset = 0 if given_offset is None else whole_number(given_offset, minimum=0, maximum=LEADERBOARD_MAX_OFFSET)
    return limit, offset


def _windowed(request, board: dict) -> dict:
    """The board document with `next` and `previous`: its address with the window moved, or None at either end.
    The links carry only the parameters the board read (the document is cached under those alone)."""
    count, limit, offset = board["count"], board["limit"], board["offset"]
    kept = {name: board[name] for name in ("cost_basis", "latency_stat", "cost_at") if name in board}
    if request.query_params.get("version"):
        kept["version"] = board["version"]

    def window(moved_offset: int) -> str:
        query = urlencode({**kept, "limit": limit, "offset": moved_offset})
        return request.build_absolute_uri(f"{request.path}?{query}")

    return {
        **board,
        "next": window(offset + limit) if offset + limit < count else None,
        "previous": window(max(offset - limit, 0)) if offset > 0 else None,
    }


class SensitivityView(APIView):
    """A task's threshold sensitivity: the Kendall tau between its training board's order and the order at the
    threshold shifted by -1, -0.5, +0.5 and +1 point of its scale, the entries that move most, and those whose
    crossing is a single evaluation above the threshold; cached like the pages."""

    @extend_schema(
        parameters=[OpenApiParameter("version", str, description="The task version (default: the current one).")],
        responses={200: SensitivitySerializer},
    )
    def get(self, request, task: str):
        version = request.query_params.get("version") or None
        compute = lambda: task_sensitivity(task_slug=task, version=version).document()  # noqa: E731
        try:
            return cached_document(
                request,
                kind="sensitivity",
                parameters={"task": task, "version": version},
                compute=compute,
                task_slug=task,
            )
        except selectors.UnknownLeaderboard as unknown:
            http_status = (
                status.HTTP_400_BAD_REQUEST if unknown.code == "unknown_version" else status.HTTP_404_NOT_FOUND
            )
            issue = {
                "code": unknown.code,
                "message": unknown.message,
                **({"field": unknown.field} if unknown.field else {}),
            }
            return rejected_response([issue], http_status=http_status)


class TaskListView(generics.ListAPIView):
    """Tasks with their versions and thresholds; cached like the pages."""

    serializer_class = TaskSerializer
    pagination_class = None
    queryset = Task.objects.prefetch_related("versions")

    def list(self, request, *args, **kwargs):
        compute = lambda: super(TaskListView, self).list(request, *args, **kwargs).data  # noqa: E731
        return cached_document(request, kind="tasks", parameters={}, compute=compute)


class ApiRootView(APIView):
    """What the API offers: each endpoint's address ({braces} mark a part to fill in), the schema, the docs."""

    @extend_schema(responses={200: ApiRootSerializer})
    def get(self, request):
        def absolute(view_name: str, suffix: str = "") -> str:
            return request.build_absolute_uri(reverse(view_name)) + suffix

        return Response(
            {
                "endpoints": {
                    "submissions": absolute("api:submission-create"),
                    "submission": absolute("api:submission-create", "{id}/"),
                    "entries": absolute("api:entry-list"),
                    "entry": absolute("api:entry-list", "{id}/"),
                    "entry_file": absolute("api:entry-list", "{id}/files/{role}/"),
                    "leaderboard": absolute("api:root", "leaderboards/{task}/{metric}/"),
                    "tasks": absolute("api:task-list"),
                    "reference_runs": absolute("benchmarks-api:reference-run-create"),
                    "instances": absolute("pricing-api:instance-list"),
                    "algorithm_results": absolute("api:algorithm-result-create"),
                    "algorithm_result": absolute("api:algorithm-result-create", "{id}/"),
                    "algorithm_board": absolute("api:root", "algorithms/{suite}/{ruleset}/"),
                    "sensitivity": absolute("api:root", "tasks/{task}/sensitivity/"),
                },
                "schema": absolute("schema"),
                "docs": absolute("api-docs"),
            }
        )


def verdict_payload(outcome: SubmissionOutcome, request) -> dict:
    payload = {
        "id": outcome.submission_id,
        "status": outcome.status,
        "warnings": outcome.warnings,
        "results": outcome.results,
        "url": _absolute(request, "api:submission-detail", outcome.submission_id),
        "entry_url": _absolute(request, "api:entry-detail", outcome.entry_id),
    }
    if outcome.errors:
        payload["errors"] = outcome.errors
    if outcome.dry_run:
        payload["dry_run"] = True
    return payload


def _absolute(request, view_name: str, pk: int | None) -> str | None:
    return None if pk is None else request.build_absolute_uri(reverse(view_name, kwargs={"pk": pk}))


def _optional_upload(request, field_name: str):
    file = request.FILES.get(field_name)
    return None if file is None else upload_read(file, field_name=field_name)
