"""The public pages in a real browser: they load cleanly, draw their charts, sort, filter, export and escape.

Headless Debian chromium through Playwright, against pytest-django's live server holding the real
DAWNBench CIFAR10 sample. Full-page screenshots land in test-artifacts/screenshots/.
"""

from __future__ import annotations

import csv
import re

import pytest

from tests.browser.conftest import CHROMIUM, HOSTILE_AUTHOR
from tests.browser.database import DATABASE

if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing: the browser tests need Debian's chromium (`make test` installs it with apt)",
        allow_module_level=True,
    )

# The live server reads the test database from another thread, so each test commits for real; the
# task definitions come from a data migration, so the flush after each test must put them back.
pytestmark = DATABASE

EXPORT_HEADER = [
    "rank", "value", "unit", "model", "team", "hardware", "framework", "date", "entry_id", "code_url", "submitter",
    "verification",
]  # fmt: skip
ROWS = "table.board tbody tr[data-entry-id]"
VALUE_CELLS = f"{ROWS} td:nth-child(2)"
HARDWARE_CELLS = f"{ROWS} td:nth-child(5)"
DATE_CELLS = f"{ROWS} td:nth-child(7)"


def _pages(board) -> dict[str, str]:
    """Every kind of page, by the name of its screenshot."""
    first, second = board.train_ids[:2]
    return {
        "home": "/",
        "task": "/tasks/cifar10/",
        "charts": "/tasks/cifar10/charts/",
        "entry-train": f"/entries/{first}/",
        "entry-inference": f"/entries/{board.inference_ids[0]}/",
        "compare": f"/compare/?entries={first},{second}",
        "submit": "/submit/",
    }


def _open(page, path: str):
    """Go to a page and, where it has charts, wait until plotly has drawn every one of them."""
    response = page.goto(path)
    if page.locator("[data-chart]").count():
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-chart]')].every(chart => chart.querySelector('.main-svg'))"
        )
    return response


def _entry_count(page) -> int:
    """The number in the board's "N entries" line."""
    return int(page.locator("main p", has_text=re.compile(r"^\d+ entr")).inner_text().split()[0])


def _follow(page, link, url_part: str) -> None:
    with page.expect_navigation(url=re.compile(re.escape(url_part))):
        link.click()


def _date_header(page):
    return page.locator("table.board thead a", has_text="Date")


def test_pages_load_without_errors(page, watch, board, screenshots):
    problems = {}
    for name, path in _pages(board).items():
        response = _open(page, path)
        page.screenshot(path=str(screenshots / f"{name}.png"), full_page=True)
        found = watch.take_problems()
        if response.status != 200:
            found["status"] = [str(response.status)]
        if found:
            problems[name] = found

    assert problems == {}


@pytest.mark.parametrize("name", ["entry-train", "charts"])
def test_chart_svg_has_plotted_traces(page, board, name):
    _open(page, _pages(board)[name])

    assert page.locator(".chart .main-svg").count() > 0
    assert page.locator(".chart .scatterlayer .trace").count() > 0


def test_pages_fetch_nothing_from_outside(page, watch, board, live_server):
    for path in _pages(board).values():
        _open(page, path)

    assert any(url.endswith("/static/vendor/plotly/plotly-scatter.min.js") for url in watch.requests)
    assert [url for url in watch.requests if not url.startswith(live_server.url + "/")] == []


def test_sorting_by_date_orders_rows_and_clicking_again_reverses(page, board):
    _open(page, "/tasks/cifar10/")
    dates = page.locator(DATE_CELLS).all_inner_texts()

    _follow(page, _date_header(page), "order=asc")
    ascending = page.locator(DATE_CELLS).all_inner_texts()
    _follow(page, _date_header(page), "order=desc")
    descending = page.locator(DATE_CELLS).all_inner_texts()

    assert ascending[0] == min(dates)
    assert ascending == sorted(dates)
    assert descending == sorted(dates, reverse=True)
    assert page.locator("table.board thead th", has_text="Date").get_attribute("aria-sort") == "descending"


def test_hardware_filter_keeps_only_matching_rows(page, board):
    _open(page, "/tasks/cifar10/")
    unfiltered = _entry_count(page)

    page.get_by_label("Hardware").fill("K80")
    _follow(page, page.get_by_role("button", name="Filter"), "hardware=K80")

    hardware = page.locator(HARDWARE_CELLS).all_inner_texts()
    assert hardware
    assert all("k80" in cell.lower() for cell in hardware)
    assert _entry_count(page) == len(hardware) < unfiltered


def test_csv_export_downloads_the_filtered_rows(page, board):
    _open(page, "/tasks/cifar10/?hardware=K80")
    entry_ids = [row.get_attribute("data-entry-id") for row in page.locator(ROWS).all()]
    first_value = page.locator(VALUE_CELLS).first.get_attribute("data-value")

    with page.expect_download() as download:
        page.get_by_role("link", name="CSV", exact=True).click()
    with open(download.value.path(), newline="", encoding="utf-8") as exported:
        header, *records = list(csv.reader(exported))

    assert header == EXPORT_HEADER
    assert len(records) == len(entry_ids) > 0
    assert [record[EXPORT_HEADER.index("entry_id")] for record in records] == entry_ids
    assert float(records[0][EXPORT_HEADER.index("value")]) == pytest.approx(float(first_value))


def test_entry_page_shows_script_author_as_text(page, watch, hostile_entry_id):
    _open(page, f"/entries/{hostile_entry_id}/")

    assert page.locator("table.fields").get_by_text(HOSTILE_AUTHOR, exact=True).is_visible()
    assert page.locator(".chart .legendtext", has_text=HOSTILE_AUTHOR).count() > 0
    assert watch.dialogs == []


def test_task_page_shows_script_author_as_text(page, watch, hostile_entry_id):
    _open(page, "/tasks/cifar10/")

    row = page.locator(f"{ROWS}[data-entry-id='{hostile_entry_id}']")
    assert row.get_by_text(HOSTILE_AUTHOR, exact=True).is_visible()
    assert watch.dialogs == []


def test_board_rows_show_without_javascript(page_without_javascript, board):
    page = page_without_javascript
    page.goto("/tasks/cifar10/")

    assert page.locator(ROWS).count() == _entry_count(page) == len(board.train_ids)


def test_sorting_by_date_works_without_javascript(page_without_javascript, board):
    page = page_without_javascript
    page.goto("/tasks/cifar10/")
    dates = page.locator(DATE_CELLS).all_inner_texts()

    _follow(page, _date_header(page), "order=asc")

    assert page.locator(DATE_CELLS).all_inner_texts() == sorted(dates)


def test_missing_entry_shows_the_not_found_page(page):
    response = page.goto("/entries/99999999/")

    assert response.status == 404
    assert page.get_by_role("heading", name="Not found").is_visible()


def test_site_icon_loads(page):
    """Without an icon link the browser would fetch /favicon.ico: a 404 there is a console error on every page."""
    page.goto("/submit/")
    icon_url = page.evaluate(
        "() => (document.querySelector('link[rel~=icon]') || {href: location.origin + '/favicon.ico'}).href"
    )

    assert icon_url.startswith("data:") or page.request.get(icon_url).status == 200
