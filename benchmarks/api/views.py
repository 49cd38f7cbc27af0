"""Reference runs over the API: staff start one; anyone reads its state."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmarks.api.serializers import ReferenceRunRequestSerializer, ReferenceRunSerializer
from benchmarks.models import ReferenceRun
from benchmarks.services import NoReferenceWorker, reference_run_request
from leaderboard.api.errors import rejected_response


class ReferenceRunCreateView(APIView):
    """Queue a reference run on the `reference` queue (staff only); 202 with the run to poll."""

    permission_classes = [IsAdminUser]

    @extend_schema(request=ReferenceRunRequestSerializer, responses={202: ReferenceRunSerializer})
    def post(self, request):
        asked = ReferenceRunRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        try:
            run = reference_run_request(requested_by=request.user, **asked.as_options())
        except NoReferenceWorker as refused:
            return rejected_response(
                [{"code": "no_reference_worker", "message": str(refused)}],
                http_status=status.HTTP_503_SERVICE_UNAVAILABLE,
            )
        run.refresh_from_db()  # without a broker it has run already
        return Response(ReferenceRunSerializer(run, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)


class ReferenceRunDetailView(generics.RetrieveAPIView):
    """A reference run's state: queued, running (with epoch, step and the latest quality), succeeded or failed."""

    queryset = ReferenceRun.objects.all()
    serializer_class = ReferenceRunSerializer
    pagination_class = None  # one object: neither paged nor filtered, in the browsable API too
    filter_backends = []
