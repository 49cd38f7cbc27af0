"""One envelope for every API error: {"status": "rejected", "errors": [{"code", "message", "field"?}]}."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent
from django.http import Http404, JsonResponse
from django.views.defaults import bad_request as django_bad_request
from django.views.defaults import page_not_found
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

API_PREFIX = "/api/"
# What to send instead, for a view that reads multipart forms and not JSON: the submission endpoint.
UPLOAD_HINT = (
    "Send multipart/form-data: the fields task (a task slug) and track (train or inference), the file entry "
    "(the DAWNBench entry JSON) and, for a training entry, the file log (its TSV log)."
)


def envelope_exception_handler(exc, context):
    # As DRF's own handler does, but before the issues are read off the exception: a view's Http404 (say from
    # get_object_or_404) is then `not_found` with its message, not `error` with the repr of DRF's answer.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = exception_handler(exc, context)
    if response is None:
        return None
    response.data = {"status": "rejected", "errors": _issues(exc, response.data, context.get("view"))}
    return response


def rejected_response(errors: list[dict], *, http_status: int = status.HTTP_400_BAD_REQUEST, **extra) -> Response:
    return Response({"status": "rejected", "errors": errors, **extra}, status=http_status)


# Django refuses these forms before any view runs (DATA_UPLOAD_MAX_NUMBER_FIELDS, DATA_UPLOAD_MAX_NUMBER_FILES).
FORM_LIMIT_CODES = {
    TooManyFieldsSent: (
        "too_many_fields",
        "The form has more than {limit:,} fields (DATA_UPLOAD_MAX_NUMBER_FIELDS); a submission sends two: task and "
        "track.",
        "DATA_UPLOAD_MAX_NUMBER_FIELDS",
    ),
    TooManyFilesSent: (
        "too_many_files",
        "The form has more than {limit:,} files (DATA_UPLOAD_MAX_NUMBER_FILES); a submission sends its entry and log "
        "files, one log per run (at most 40 runs).",
        "DATA_UPLOAD_MAX_NUMBER_FILES",
    ),
}


def bad_request(request, exception=None):
    """Django's handler400: under /api/ the envelope, with a code for a form over Django's limits."""
    if not request.path_info.startswith(API_PREFIX):
        return django_bad_request(request, exception)
    code, message = "bad_request", "The request could not be read."
    for kind, (kind_code, template, setting) in FORM_LIMIT_CODES.items():
        if isinstance(exception, kind):
            code, message = kind_code, template.format(limit=getattr(settings, setting))
    return rejected_json(code, message, http_status=400)


def not_found(request, exception=None):
    """Django's handler404: under /api/ the envelope (code `not_found`) instead of the HTML page."""
    if not request.path_info.startswith(API_PREFIX):
        return page_not_found(request, exception)
    return rejected_json(
        "not_found", f"No API endpoint is at {request.path}; GET /api/v1/ lists them.", http_status=404
    )


def rejected_json(code: str, message: str, *, http_status: int) -> JsonResponse:
    """The envelope of one error, outside DRF's views: Django's handlers, the middleware's refusals."""
    return JsonResponse({"status": "rejected", "errors": [{"code": code, "message": message}]}, status=http_status)


def _issues(exc, data, view) -> list[dict]:
    if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
        return [
            {"code": detail.code, "message": str(detail), "field": field}
            for field, details in exc.detail.items()
            for detail in (details if isinstance(details, list) else [details])
        ]
    detail = getattr(exc, "detail", None)
    code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
    message = str(detail if detail is not None else data)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        message = f"{message} {_media_type_hint(view)}"
    return [{"code": code, "message": message}]


def _media_type_hint(view) -> str:
    """What the view reads: a JSON body sent to the submission endpoint is the usual mistake."""
    media_types = [parser.media_type for parser in getattr(view, "parser_classes", [])]
    if "multipart/form-data" in media_types and "application/json" not in media_types:
        return UPLOAD_HINT
    return f"Send one of: {', '.join(media_types)}."
