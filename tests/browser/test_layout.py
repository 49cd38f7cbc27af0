"""The layout holds at a phone's width and at three desktop widths: no page scrolls sideways, no boards overlap.

Every kind of page is opened at 390, 1280, 1440 and 1920 px in headless chromium, with the real DAWNBench
CIFAR10 sample plus entries whose hardware, model and links are as long as real ones get. A full-page screenshot
of each lands in test-artifacts/screenshots/<page>-<width>.png.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import CHROMIUM
from tests.browser.wide import open_page, pages

if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing: the browser tests need Debian's chromium (`make test` installs it with apt)",
        allow_module_level=True,
    )

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

WIDTHS = (390, 1280, 1440, 1920)


def overflow(page) -> dict:
    return page.evaluate("() => ({scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth})")


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_is_wider_than_the_viewport(wide_board, sized, screenshots, width):
    page = sized(width)
    too_wide = {}
    for name, path in pages(wide_board).items():
        open_page(page, path)
        page.screenshot(path=str(screenshots / f"{name}-{width}.png"), full_page=True)
        measured = overflow(page)
        if measured["scrollWidth"] > measured["innerWidth"]:
            too_wide[name] = measured

    assert too_wide == {}


@pytest.mark.parametrize("width", WIDTHS)
def test_home_boards_never_overlap(wide_board, sized, width):
    page = sized(width)
    open_page(page, "/")
    boxes = [box for box in (board.bounding_box() for board in page.locator(".board-box").all()) if box]

    overlapping = [
        (first, second)
        for index, first in enumerate(boxes)
        for second in boxes[index + 1 :]
        if first["x"] < second["x"] + second["width"]
        and second["x"] < first["x"] + first["width"]
        and first["y"] < second["y"] + second["height"]
        and second["y"] < first["y"] + first["height"]
    ]
    assert len(boxes) >= 4
    assert overlapping == []


@pytest.mark.parametrize("width", WIDTHS)
def test_each_board_table_stays_inside_its_box(wide_board, sized, width):
    """A table wider than its column scrolls inside its own box instead of drawing over the next board."""
    page = sized(width)
    open_page(page, "/")

    spilling = page.evaluate(
        """() => [...document.querySelectorAll('.board-box')].filter(box => {
            const outer = box.getBoundingClientRect();
            return [...box.querySelectorAll('.table-scroll')].some(scroll => {
                const inner = scroll.getBoundingClientRect();
                return inner.left < outer.left - 0.5 || inner.right > outer.right + 0.5;
            });
        }).length"""
    )
    assert spilling == 0


def test_dates_and_values_with_units_stay_on_one_line(wide_board, sized):
    page = sized(WIDTHS[0])
    open_page(page, "/tasks/cifar10/?metric=inference-latency")

    lines = page.evaluate(
        """() => [...document.querySelectorAll('table.board tbody td.num, table.board tbody td.date')].map(cell => {
            const range = document.createRange();
            range.selectNodeContents(cell);
            const tops = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
            return [cell.textContent.trim(), tops.size];
        })"""
    )

    assert lines and all(count == 1 for _, count in lines), lines
