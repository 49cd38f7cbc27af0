"""Public pages: parse the query string, call selectors, render. Figures come from `leaderboard.charts`."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.safestring import mark_safe

from dawnboard.documents import priced_as_parts
from dawnboard.errors import ERROR_DESCRIPTIONS, WARNING_DESCRIPTIONS, needs_attention
from dawnboard.metrics import (
    INFERENCE_COST,
    INFERENCE_LATENCY,
    LEADERBOARD_METRICS,
    TRAINING_COST,
    TRAINING_TIME,
    LeaderboardMetric,
)
from dawnboard.rules import Track
from dawnboard.scoring import hours_of
from dawnboard.scoring.sensitivity import point_of
from dawnboard.verification import Evaluated, Verification
from leaderboard import charts, selectors
from leaderboard.charts.sensitivity import sensitivity_figure
from leaderboard.downloads import attachment_disposition, file_download
from leaderboard.export import EXPORT_COLUMNS, csv_lines, export_record, json_document_lines
from leaderboard.forms import AsOfForm, BoardForm, CompareForm, TaskPageForm
from leaderboard.models import Entry, SubmittedFile, TaskVersion
from leaderboard.page_cache import cached_page
from leaderboard.selectors.charts import board_charts
from leaderboard.selectors.sensitivity import task_sensitivity as task_sensitivity_of

PAGE_SIZE = 50
BOARD_COLUMNS = [
    ("rank", "Rank"), ("value", "Value"), ("model", "Model"), ("team", "Team"),
    ("hardware", "Hardware"), ("framework", "Framework"), ("date", "Date"),
]  # fmt: skip


@cached_page
def home(request):
    return render(request, "leaderboard/home.html", {"tasks": selectors.home_boards(rows_per_board=5)})


@cached_page(query=TaskPageForm, per_task=True)
def task_detail(request, slug: str):
    form = TaskPageForm(request.GET)
    view = form.board_view()
    version = _task_version(slug, view.version)
    rows = selectors.board_rows(task_slug=slug, view=view)
    # The page's ids first (the board's index holds them in order), then only those rows.
    page = Paginator(rows.entries.values_list("id", flat=True), PAGE_SIZE).get_page(form.page_number())
    context = {
        "version": version,
        "versions": list(TaskVersion.objects.filter(task=version.task).order_by("id")),
        "rules": selectors.rules_of(version),
        "task": version.task,
        "form": form,
        "view": view,
        "metric": LEADERBOARD_METRICS[view.metric],
        "metrics": LEADERBOARD_METRICS.values(),
        "page": page,
        "rows": selectors.board_page_rows(
            rows,
            selectors.window_ids(page.paginator.object_list, start=page.start_index() - 1, end=page.end_index()),
            first_rank=page.start_index(),
        ),
        "frameworks": selectors.task_frameworks(task_slug=slug),
        "fill_commands": selectors.task_fill_commands(task_slug=slug),
        "query": _query_without(request, "page"),
        "sort_query": _query_without(request, "page", "sort", "order"),
        "latency_stats": selectors.LATENCY_STATS.values(),
        "latency_stat_query": _query_without(request, "page", "latency_stat"),
        "costs_at": selectors.COST_AT.values(),
        "cost_at_query": _query_without(request, "page", "cost_at"),
        "columns": _board_columns(view),
        "verification_levels": list(Verification),
        "evaluated_kinds": list(Evaluated),
    }
    response = render(request, "leaderboard/task.html", context)
    if page.number != form.page_number():  # past the end: the last page, under a key of its own; keep it out
        patch_cache_control(response, no_store=True)
    return response


@cached_page(query=BoardForm, per_task=True)
def task_export(request, slug: str, file_format: str):
    """The whole board as a file, streamed: rows are read and written a batch at a time, never all held."""
    version = _current_version(slug)
    view = BoardForm(request.GET).board_view()
    rows = selectors.board_rows(task_slug=slug, view=view)
    metric = LEADERBOARD_METRICS[view.metric]
    records = (export_record(row, unit=metric.unit) for row in selectors.board_rows_ranked(rows))
    stat = view.ranked_latency_stat
    stat = stat if stat is not None and stat.slug != "mean" else None  # the default export stays as it was
    cost = view.ranked_cost_at
    cost = cost if cost is not None and cost != selectors.SINGLE_STREAM_COST else None
    name = f"dawnboard-{version.task.slug}-{view.metric}" + (f"-{stat.slug}" if stat else "")
    name += f"-{cost.slug}" if cost else ""
    if file_format == "csv":
        response = StreamingHttpResponse(csv_lines(EXPORT_COLUMNS, records), content_type="text/csv; charset=utf-8")
    else:
        heading = {
            "task": version.task.slug,
            "metric": view.metric,
            "unit": metric.unit,
            **({"latency_stat": stat.slug} if stat else {}),
            **({"cost_at": cost.slug} if cost else {}),
        }
        response = StreamingHttpResponse(json_document_lines(heading, records), content_type="application/json")
    response["Content-Disposition"] = attachment_disposition(f"{name}.{file_format}", fallback="dawnboard")
    return response


@cached_page
def entry_detail(request, pk: int):
    try:
        entry = selectors.entry_detail(entry_id=pk)
    except Entry.DoesNotExist:
        raise Http404("No entry has this id.") from None
    version = entry.task_version
    figure = None
    if entry.is_training:
        figure = charts.curve_figure(
            _run_curves(entry),
            threshold=float(version.threshold),
            metric_label=version.metric_label,
            scale=version.scale,
        )
    accounting = selectors.entry_accounting(entry)
    board_ranks = selectors.entry_board_ranks(entry)
    latency = selectors.entry_latency_distribution(entry)
    latency_figure = None
    if latency is not None and latency.histogram_counts:
        latency_figure = charts.latency_histogram_figure(
            latency.histogram_edges_ms, latency.histogram_counts, percentiles_ms=latency.percentiles_ms
        )
    context = {
        "entry": entry,
        "permalink": request.build_absolute_uri(reverse("leaderboard:entry", args=[entry.id])),
        "withdrawn": entry.status == Entry.Status.WITHDRAWN,
        "version": version,
        "files": selectors.entry_files_shown(entry, original=False),  # the page is the same for every reader
        "runs": list(entry.runs.all()),
        "spread": entry.spread,
        "runs_rule": selectors.rules_of(version).runs,
        "figure": figure_json_text(figure),
        "claims": _claims(entry),
        "priced_as": priced_as_parts(entry.hardware),  # (machine, instance) of a run priced as a catalog instance
        "warnings": _warnings(entry),
        "board_url": _board_url(version.task.slug, TRAINING_TIME if entry.is_training else INFERENCE_LATENCY),
        "ranks": [
            {"place": place, "url": _board_url(entry.task.slug, place.metric, rank=place.rank, stat=place.latency_stat)}
            for place in board_ranks
        ],
        "costs": _costs_with_ranks(entry, accounting.costs, board_ranks=board_ranks),
        "price_warning": accounting.price_warning,
        "footprint": accounting.footprint,
        "match": accounting.match,
        "model_prices": accounting.model_prices,
        "earlier_price": accounting.earlier_price,
        "reproduce_commands": selectors.reproduction_commands(entry),
        "reproductions": selectors.entry_reproductions(entry) if entry.is_training else [],
        "latency": latency,
        "latency_figure": figure_json_text(latency_figure),
    }
    return render(request, "leaderboard/entry.html", context)


def entry_file(request, pk: int, role: str):
    """An entry's file: the log as uploaded; the entry JSON as published (without the author's e-mail address),
    or as uploaded to the site's staff and its submitter."""
    try:
        shown = selectors.entry_file_shown(entry_id=pk, role=role, user=request.user)
    except SubmittedFile.DoesNotExist:
        raise Http404("This entry has no such file.") from None
    return file_download(shown.content, name=shown.name, role=shown.role)


@cached_page(query=AsOfForm, per_task=True)
def task_charts(request, slug: str):
    version = _current_version(slug)
    form = AsOfForm(request.GET)
    board = board_charts(task_slug=slug, as_of=form.as_of_date())
    sections = [
        {
            "name": points.tradeoff.slug,
            "figure": figure_json_text(charts.tradeoff_figure(points.entries, points.tradeoff)),
            "front": points.front.to_dict("records"),
            "thinning": charts.thinning_note(drawn=points.drawn_count, entries=len(points.entries)),
        }
        for points in board.tradeoffs
    ]
    records = [
        {
            "metric": progression.metric,
            "figure": figure_json_text(charts.record_figure(progression.steps, metric=progression.metric)),
            "records": progression.records.to_dict("records"),
        }
        for progression in board.records
    ]
    context = {"version": version, "task": version.task, "form": form, "sections": sections, "records": records}
    return render(request, "leaderboard/charts.html", context)


@cached_page(per_task=True)
def task_sensitivity(request, slug: str):
    """How the task's training board moves when its threshold moves (`leaderboard.selectors.sensitivity`)."""
    try:
        found = task_sensitivity_of(task_slug=slug)
    except selectors.UnknownLeaderboard:
        raise Http404("No task has this name.") from None
    rules = selectors.rules_of(found.version)
    shifts = [shift.as_dict() for shift in found.sensitivity.shifts]
    context = {
        "version": found.version,
        "task": found.version.task,
        "sensitivity": found.sensitivity,
        "shifts": shifts,
        "without_shifts": found.without_shifts,
        "models": found.models,
        "point": point_of(rules.scale),
        "figure": figure_json_text(sensitivity_figure(shifts, point_label=f"points of {rules.scale.value}")),
    }
    return render(request, "leaderboard/sensitivity.html", context)


@cached_page(query=CompareForm)
def compare(request):
    asked = CompareForm(request.GET).compared()
    entries = selectors.entries_for_comparison(entry_ids=asked.ids)
    found = {entry.id for entry in entries}
    missing = [entry_id for entry_id in asked.ids if entry_id not in found]
    problems = asked.problems + [("no_entry", f"entry {number} does not exist or was withdrawn") for number in missing]
    # Curves share an axis only within one task version: the first training entry's decides.
    trained = [entry for entry in entries if entry.is_training]
    trained = [entry for entry in trained if entry.task_version_id == trained[0].task_version_id]
    figure = None
    if trained:
        version = trained[0].task_version
        figure = charts.curve_figure(
            [_curve(entry) for entry in trained],
            threshold=float(version.threshold),
            metric_label=version.metric_label,
            scale=version.scale,
        )
    context = {
        "entries": entries,
        "problems": problems,
        "max_entries": CompareForm.MAX_ENTRIES,
        "figure": figure_json_text(figure),
        "rows": _comparison_rows(entries),
    }
    return render(request, "leaderboard/compare.html", context)


@cached_page
def submit_help(request):
    context = {
        "versions": selectors.current_task_versions(),
        "errors": ERROR_DESCRIPTIONS.items(),
        "warnings": WARNING_DESCRIPTIONS.items(),
        "api_url": request.build_absolute_uri("/api/v1/submissions/"),
        "token_ttl_days": settings.TOKEN_TTL_DAYS,
    }
    return render(request, "leaderboard/submit.html", context)


def _current_version(slug: str) -> TaskVersion:
    return get_object_or_404(TaskVersion.objects.select_related("task"), task__slug=slug, is_current=True)


def _task_version(slug: str, version: str) -> TaskVersion:
    """The task version a page asks for (`?version=`), by default the current one; 404 when it has none."""
    if not version:
        return _current_version(slug)
    return get_object_or_404(TaskVersion.objects.select_related("task"), task__slug=slug, version=version)


def _board_columns(view: selectors.BoardView) -> list[tuple[str, str]]:
    """The board's columns; on the latency board the value column names the statistic it ranks by, on the
    inference-cost board at throughput the cost it ranks by."""
    stat, cost = view.ranked_latency_stat, view.ranked_cost_at
    if stat is not None:
        heading = f"Latency, {stat.label} (ms)"
    elif cost is not None and cost != selectors.SINGLE_STREAM_COST:
        heading = "Cost per 10,000 items at throughput ($)"
    else:
        return BOARD_COLUMNS
    return [(column, heading if column == "value" else label) for column, label in BOARD_COLUMNS]


def _curve(entry: Entry) -> charts.Curve:
    """The entry's curve on a comparison: the run nearest its score (its only run, most often)."""
    runs = list(entry.runs.all())
    nearest = min(
        (run for run in runs if run.time_to_accuracy_seconds is not None),
        key=lambda run: (abs(run.time_to_accuracy_seconds - entry.time_to_accuracy_seconds), run.position),
    )
    name = f"#{entry.id} {charts.plotly_text(entry.model)} ({charts.plotly_text(entry.author)})"
    if len(runs) > 1:
        name += f", run {nearest.position + 1} of {len(runs)}"
    return _run_curve(nearest, name=name)


def _run_curves(entry: Entry) -> list[charts.Curve]:
    """Every run of the entry on one chart, each named by its number."""
    runs = list(entry.runs.all())
    name = f"#{entry.id} {charts.plotly_text(entry.model)} ({charts.plotly_text(entry.author)})"
    if len(runs) == 1:
        return [_run_curve(runs[0], name=name)]
    return [_run_curve(run, name=f"{name}, run {run.position + 1} ({run.status})") for run in runs]


def _run_curve(run, *, name: str) -> charts.Curve:
    points = list(run.curve.all())
    seconds = run.time_to_accuracy_seconds
    crossing_hours = hours_of(seconds) if seconds is not None else None
    return charts.Curve(
        name=name,
        hours=[point.hours for point in points],
        metric=[point.metric for point in points],
        crossing_hours=crossing_hours,
        crossing_metric=run.accuracy if crossing_hours is not None else None,
    )


def _costs_with_ranks(entry: Entry, costs: list, *, board_ranks: list) -> list[dict]:
    """Each policy's cost of the entry, with the entry's rank on the cost board that policy prices (the API's
    `?cost_basis=` board); `board_ranks` already hold the as-submitted one."""
    ranks = (
        selectors.entry_policy_ranks(entry, board_ranks=board_ranks) if entry.status == Entry.Status.ACCEPTED else {}
    )
    metric = TRAINING_COST if entry.is_training else INFERENCE_COST
    board_api = reverse("api:leaderboard", args=[entry.task.slug, metric.slug])
    return [
        {"cost": cost, "place": ranks.get(cost.policy), "board_url": f"{board_api}?cost_basis={cost.policy}"}
        for cost in costs
    ]


def _claims(entry: Entry) -> list[tuple[str, object, object, str]]:
    """(what, as claimed in the entry, as Dawnboard recomputed it, the kind of figure: a display.FIGURE_KINDS key)
    for the entry page."""
    claimed = entry.claimed
    if entry.is_training:
        return [
            ("costPerHour (USD per hour)", claimed.get("costPerHour"), entry.cost_per_hour_usd, "plain"),
            ("time to accuracy", "not claimed: read off the log", entry.time_to_accuracy_seconds, "time"),
            ("training cost", "not claimed", entry.training_cost_usd, "usd"),
        ]
    accuracy_field = next((f for f in entry.task_version.inference_fields if f in claimed), "accuracy")
    return [
        (accuracy_field, claimed.get(accuracy_field), entry.accuracy, entry.task_version.scale),
        ("latency per item", claimed.get("latency"), entry.latency_ms, "ms"),
        ("cost per item", claimed.get("cost"), None, "usd"),
        ("cost per 10,000 items", "not claimed", entry.inference_cost_usd_per_10k, "usd"),
    ]


def _warnings(entry: Entry) -> dict[str, list[dict]]:
    """The entry's warnings in two groups: those that question a figure (a person should look), and notes on
    the files that changed no figure; each in the order stored."""
    return {
        "attention": [warning for warning in entry.warnings if needs_attention(warning["code"])],
        "notes": [warning for warning in entry.warnings if not needs_attention(warning["code"])],
    }


def _board_url(
    task_slug: str, metric: LeaderboardMetric, *, rank: int | None = None, stat: selectors.LatencyStat | None = None
) -> str:
    """The task's board by `metric` (on the latency board, by `stat`), at the page that holds `rank` when given."""
    query = {"metric": metric.slug}
    if stat is not None and stat != selectors.MEAN_LATENCY:
        query["latency_stat"] = stat.slug
    if rank is not None and rank > PAGE_SIZE:
        query["page"] = (rank - 1) // PAGE_SIZE + 1
    return f"{reverse('leaderboard:task', args=[task_slug])}?{urlencode(query)}"


# (label, how the page writes it, the track it applies to or None for both, how to read it off an entry)
COMPARISON_FIELDS = [
    ("Task", "text", None, lambda e: e.task.slug), ("Track", "text", None, lambda e: e.get_track_display()),
    ("Model", "text", None, lambda e: e.model), ("Team", "text", None, lambda e: e.author),
    ("Hardware", "text", None, lambda e: e.hardware), ("Framework", "text", None, lambda e: e.framework),
    ("Date", "date", None, lambda e: e.date),
    ("Time to accuracy", "time", Track.TRAIN, lambda e: e.time_to_accuracy_seconds),
    ("Epoch reached", "epoch", Track.TRAIN, lambda e: e.time_to_accuracy_epoch),
    ("Training cost", "usd", Track.TRAIN, lambda e: e.training_cost_usd),
    ("Latency", "ms", Track.INFERENCE, lambda e: e.latency_ms),
    ("Cost per 10,000 items", "usd", Track.INFERENCE, lambda e: e.inference_cost_usd_per_10k),
    ("Accuracy", "plain", None, lambda e: e.accuracy),
]  # fmt: skip


def _comparison_rows(entries: list[Entry]) -> list[dict]:
    """The rows that apply to the tracks compared: training entries alone get no latency rows, and so on."""
    tracks = {entry.track for entry in entries}
    return [
        {"label": label, "kind": kind, "values": [read(entry) for entry in entries]}
        for label, kind, track, read in COMPARISON_FIELDS
        if track is None or track in tracks
    ]


def figure_json_text(figure: charts.Figure | None) -> str | None:
    """A figure as the JSON text of its `<script type="application/json">` element: written once, escaped for
    the element by `charts.figure_json`, so the template puts it in as it is."""
    return None if figure is None else mark_safe(charts.figure_json(figure))


def _query_without(request, *names: str) -> str:
    query = request.GET.copy()
    for name in names:
        query.pop(name, None)
    return query.urlencode()
