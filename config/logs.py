"""Structured logs: one JSON object a line (LOG_FORMAT=json, production's default) or one readable line
(LOG_FORMAT=plain, `make run`'s), in the web processes and the Celery workers alike.

Every line carries the time (UTC, ISO 8601), the level, the logger and the event; within a request, its
`request_id` (the client's or proxy's X-Request-ID where it sends one, else a new UUID; django-structlog's
RequestMiddleware) and the user's id; within a Celery task, its `task_id` and the `request_id` of the request that
queued it (django-structlog carries it in the message's headers); and wherever a submission is stored or judged,
its `submission_id`, so one submission can be followed from the web process to the worker that judged it:

    {"event": "submission_stored", "submission_id": 41, "request_id": "...", "level": "info", ...}
    {"event": "task_started", "task_id": "...", "request_id": "...", "task": "leaderboard.submission_judge", ...}
    {"event": "submission_judged", "submission_id": 41, "status": "accepted", "request_id": "...", ...}

Django's, Celery's and the libraries' own log records (the standard `logging` module) go through the same
formatter, with the same context.
"""

from __future__ import annotations

import structlog

LOG_FORMATS = ("json", "plain")

_SHARED = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


def logging_settings(*, log_format: str, level: str, celery_trace_level: str) -> dict:
    """Django's LOGGING: every record, structlog's and the standard library's, rendered by structlog."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT is {log_format!r}; it is one of: {', '.join(LOG_FORMATS)}.")
    renderer = (
        structlog.processors.JSONRenderer(sort_keys=False)
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "structured": {
                "()": structlog.stdlib.ProcessorFormatter,
                "processors": [
                    structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    *([structlog.processors.dict_tracebacks] if log_format == "json" else []),
                    renderer,
                ],
                "foreign_pre_chain": [*_SHARED, structlog.stdlib.ExtraAdder()],
            }
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "structured"}},
        "root": {"handlers": ["console"], "level": level},
        # In-process (eager) task runs would otherwise log a line per submission on every command.
        "loggers": {"celery.app.trace": {"level": celery_trace_level}},
    }


def gunicorn_logging(*, log_format: str, level: str) -> dict:
    """gunicorn's own lines (its error log; its access log is off, Django's request lines carry more) through the
    same formatter: `logconfig_dict` in deploy/gunicorn.conf.py."""
    settings = logging_settings(log_format=log_format, level=level, celery_trace_level=level)
    settings["loggers"] = {
        "gunicorn.error": {"handlers": ["console"], "level": level, "propagate": False},
        "gunicorn.access": {"handlers": [], "level": level, "propagate": False},
    }
    return settings


def structlog_configure() -> None:
    """structlog's own loggers hand their events to the standard library, which LOGGING renders."""
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *_SHARED,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
