"""API views: parse the request, call one service or selector, render."""

from __future__ import annotations

from django.urls import reverse
from django_filters import rest_framework as filters
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from dawnboard.rules import Track
from leaderboard import selectors
from leaderboard.api.errors import rejected_response
from leaderboard.api.serializers import (
    EntryDetailSerializer,
    EntrySerializer,
    LeaderboardSerializer,
    SubmissionRequestSerializer,
    SubmissionVerdictSerializer,
    TaskSerializer,
)
from leaderboard.models import Entry, Submission, Task
from leaderboard.services import (
    SubmissionOutcome,
    SubmissionRejected,
    submission_create,
    submission_outcome,
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


class SubmissionCreateView(APIView):
    """Submit an entry JSON (and, for training, its TSV log). `?dry_run=1` validates and stores nothing."""

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": SubmissionRequestSerializer},
        parameters=[OpenApiParameter("dry_run", bool, description="Validate only; store nothing.")],
        responses={
            201: SubmissionVerdictSerializer,
            202: SubmissionVerdictSerializer,
            400: SubmissionVerdictSerializer,
        },
    )
    def post(self, request):
        submitter = getattr(request.user, "submitter", None)
        if submitter is None:
            raise PermissionDenied("This account is not a submitter.", code="not_a_submitter")
        try:
            entry = _optional_upload(request, "entry")
            log = _optional_upload(request, "log")
        except SubmissionRejected as rejected:
            return rejected_response([issue.as_dict() for issue in rejected.issues], id=None)
        outcome = submission_create(
            task_slug=request.data.get("task", "").strip(),
            track=request.data.get("track", "").strip(),
            entry=entry,
            log=log,
            source=Submission.Source.API,
            submitter=submitter,
            dry_run=request.query_params.get("dry_run", "").lower() in TRUE_VALUES,
        )
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
    task = filters.CharFilter(field_name="task__slug")
    track = filters.ChoiceFilter(choices=[(track.value, track.value) for track in Track])
    framework = filters.CharFilter(lookup_expr="icontains")
    hardware = filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Entry
        fields = ["task", "track", "framework", "hardware"]


class EntryListView(generics.ListAPIView):
    serializer_class = EntrySerializer
    filterset_class = EntryFilter

    def get_queryset(self):
        return selectors.entries_list()


class EntryDetailView(generics.RetrieveAPIView):
    serializer_class = EntryDetailSerializer

    def get_object(self):
        try:
            return selectors.entry_detail(entry_id=self.kwargs["pk"])
        except Entry.DoesNotExist:
            raise NotFound("No entry has this id.", code="not_found") from None


class LeaderboardView(APIView):
    """A task's ranking by one metric; the same document as `manage.py leaderboard TASK METRIC --json`."""

    @extend_schema(
        parameters=[
            OpenApiParameter("limit", int, description="At most this many rows."),
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
        ],
        responses={200: LeaderboardSerializer},
    )
    def get(self, request, task: str, metric: str):
        limit = request.query_params.get("limit")
        if limit is not None and (not limit.isdigit() or int(limit) < 1):
            return rejected_response(
                [{"code": "invalid_limit", "message": "limit must be a positive whole number.", "field": "limit"}]
            )
        try:
            board = selectors.leaderboard(
                task_slug=task,
                metric_slug=metric,
                limit=int(limit) if limit else None,
                cost_basis=request.query_params.get("cost_basis"),
                latency_stat=request.query_params.get("latency_stat"),
            )
        except selectors.UnknownLeaderboard as unknown:
            # An unknown task or metric names no resource; an unknown cost basis or latency statistic is a bad
            # parameter.
            bad_parameter = unknown.code in ("unknown_cost_basis", "invalid_latency_stat")
            http_status = status.HTTP_400_BAD_REQUEST if bad_parameter else status.HTTP_404_NOT_FOUND
            issue = {"code": unknown.code, "message": unknown.message}
            if unknown.field is not None:
                issue["field"] = unknown.field
            return rejected_response([issue], http_status=http_status)
        return Response(board)


class TaskListView(generics.ListAPIView):
    serializer_class = TaskSerializer
    pagination_class = None
    queryset = Task.objects.prefetch_related("versions")


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
