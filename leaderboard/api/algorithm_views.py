"""The algorithm track's API: send a results bundle (logs only; the server never runs submitted code), read a board
and a result. Thin: parse, call one service or selector, answer."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from dawnboard.errors import ErrorCode
from leaderboard.api.errors import rejected_response
from leaderboard.models import AlgorithmResult
from leaderboard.selectors import algorithms as selectors
from leaderboard.services import SubmissionRejected, upload_read
from leaderboard.services.algorithms import BundleRejected, algorithm_bundle_submit

TRUE_VALUES = {"1", "true", "yes", "on"}


def result_payload(result: AlgorithmResult, request, *, status_word: str) -> dict:
    """A judged bundle as the API and `run_algorithm --submit` answer it."""
    return {
        "status": status_word,
        "id": result.id,
        "url": request.build_absolute_uri(reverse("leaderboard:algorithm", args=[result.id])) if result.id else None,
        "suite": result.suite,
        "ruleset": result.ruleset,
        "algorithm": result.name,
        "reference": result.reference,
        "score_vs_reference": result.score_vs_reference,
        "geomean_speedup_vs_reference": result.geomean_speedup,
        "times": result.times,
        "reference_times": result.reference_times,
        "held_out": result.held_out,
        "bundle_sha256": result.bundle_sha256,
        "warnings": result.warnings,
        "errors": [],
    }


class AlgorithmResultCreateView(APIView):
    """Send a results bundle (`bundle`: the zip or tar archive of the folder `run_algorithm` writes). Every time and
    score is recomputed from its trial logs; a bundle missing a workload, study, trial or log of the suite's ruleset,
    or with times that run backwards, is refused with its code and nothing is stored. `?dry_run=1` stores nothing."""

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser]
    throttle_scope = "submissions"

    @extend_schema(
        request={
            "multipart/form-data": {"type": "object", "properties": {"bundle": {"type": "string", "format": "binary"}}}
        },
        parameters=[OpenApiParameter("dry_run", bool, description="Judge only; store nothing.")],
        responses={201: OpenApiTypes.OBJECT, 200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
    )
    def post(self, request):
        submitter = getattr(request.user, "submitter", None)
        if submitter is None:
            raise PermissionDenied("This account is not a submitter.", code="not_a_submitter")
        file = request.FILES.get("bundle")
        if file is None:
            return rejected_response(
                [
                    {
                        "code": ErrorCode.MISSING_FILE,
                        "message": "Send the results bundle as the file bundle.",
                        "field": "bundle",
                    }
                ]
            )
        dry_run = request.query_params.get("dry_run", "").lower() in TRUE_VALUES
        try:
            result = algorithm_bundle_submit(
                bundle=upload_read(file, field_name="bundle"), submitter=submitter, dry_run=dry_run
            )
        except (SubmissionRejected, BundleRejected) as rejected:
            return rejected_response([issue.as_dict() for issue in rejected.issues], id=None)
        word = "valid" if dry_run else "accepted"
        return Response(
            result_payload(result, request, status_word=word),
            status=status.HTTP_200_OK if dry_run else status.HTTP_201_CREATED,
        )


class AlgorithmBoardView(APIView):
    """A board of the algorithm track: its results ranked by their benchmark score over the board."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, suite: str, ruleset: str):
        rules = selectors.suite_rules(suite)
        if rules is None or ruleset not in selectors.RULESET_LABELS:
            raise NotFound("No such suite or ruleset.", code="not_found")
        return Response(selectors.algorithm_board(suite=rules, ruleset=ruleset).as_dict())


class AlgorithmResultView(APIView):
    """One result: its times, scores and every trial's evaluations."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, pk: int):
        try:
            result = selectors.algorithm_result(pk)
        except AlgorithmResult.DoesNotExist:
            raise NotFound("No algorithm result has this id.", code="not_found") from None
        return Response({**result_payload(result, request, status_word=result.source), "curves": result.curves})
