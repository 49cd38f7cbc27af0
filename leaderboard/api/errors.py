"""One envelope for every API error: {"status": "rejected", "errors": [{"code", "message", "field"?}]}."""

from __future__ import annotations

from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


def envelope_exception_handler(exc, context):
    response = exception_handler(exc, context)
    if response is None:
        return None
    response.data = {"status": "rejected", "errors": _issues(exc, response.data)}
    return response


def rejected_response(errors: list[dict], *, http_status: int = status.HTTP_400_BAD_REQUEST, **extra) -> Response:
    return Response({"status": "rejected", "errors": errors, **extra}, status=http_status)


def _issues(exc, data) -> list[dict]:
    if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
        return [
            {"code": detail.code, "message": str(detail), "field": field}
            for field, details in exc.detail.items()
            for detail in (details if isinstance(details, list) else [details])
        ]
    detail = getattr(exc, "detail", None)
    code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
    return [{"code": code, "message": str(detail if detail is not None else data)}]
