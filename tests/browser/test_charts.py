"""The charts as a reader sees them, on a phone and on a desktop: every word of a chart inside its box, the
threshold's star clear of the threshold's label, each title written once.

Plotly draws into an SVG as wide as the chart's box and clips what falls outside it, so a title or a legend too
long for a phone is cut off without a trace in the page's width: the tests compare the boxes of plotly's text with
the chart's own. A screenshot of each chart lands in test-artifacts/screenshots/chart-<page>-<n>-<width>.png.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.browser.conftest import CHROMIUM
from tests.browser.database import DATABASE
from tests.browser.wide import chart_pages, open_page

if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing: the browser tests need Debian's chromium (`make test` installs it with apt)",
        allow_module_level=True,
    )

pytestmark = DATABASE

WIDTHS = (320, 390, 1280)
CROSSINGS = ("early", "middle", "last")

# What a reader must see whole: the title, the axis titles, every tick label, the legend's box and its entries, the
# labels of the dashed lines. Each must lie inside the chart's box, and each legend entry inside the legend's box
# (plotly clips a legend taller than it allows and scrolls it).
OUTSIDE_JS = """() => [...document.querySelectorAll('[data-chart]')].flatMap((chart) => {
    const inside = (part, box) => {
        const rect = part.getBoundingClientRect();
        return rect.width === 0 || (rect.left >= box.left - 1 && rect.right <= box.right + 1
            && rect.top >= box.top - 1 && rect.bottom <= box.bottom + 1);
    };
    const describe = (part) => `${chart.dataset.chart}: ${part.getAttribute('class')} "${part.textContent}"`;
    const box = chart.getBoundingClientRect();
    const parts = chart.querySelectorAll(
        '.gtitle, .xtitle, .ytitle, .xtick text, .ytick text, .legend .bg, .legendtext, .annotation-text-g'
    );
    const legend = chart.querySelector('.legend .bg');
    const entries = legend ? chart.querySelectorAll('.legendtext') : [];
    return [
        ...[...parts].filter((part) => !inside(part, box)).map(describe),
        ...[...entries].filter((part) => !inside(part, legend.getBoundingClientRect())).map(describe),
    ];
})"""

# The boxes of the threshold's label and of each star (the crossing) on the page's curve chart.
STAR_AND_LABEL_JS = """() => {
    const chart = document.querySelector('[data-chart]');
    const box = (element) => {
        const rect = element.getBoundingClientRect();
        return {left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom};
    };
    const traces = chart.querySelectorAll('.scatterlayer .trace');
    const stars = chart.data.flatMap((trace, index) => (trace.marker || {}).symbol === 'star'
        ? [...traces[index].querySelectorAll('.point')].map(box) : []);
    return {labels: [...chart.querySelectorAll('.annotation-text-g')].map(box), stars};
}"""

TITLES_JS = """() => [...document.querySelectorAll('main h2, main h3, main h4, [data-chart] .gtitle')]
    .map((title) => title.textContent.trim())"""


def overlap(first: dict, second: dict) -> bool:
    return (
        first["left"] < second["right"]
        and second["left"] < first["right"]
        and first["top"] < second["bottom"]
        and second["top"] < first["bottom"]
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_every_chart_shows_its_titles_ticks_and_legend_inside_its_box(wide_board, sized, screenshots, width):
    page = sized(width)
    outside = {}
    drawn = 0
    for name, path in chart_pages(wide_board).items():
        open_page(page, path)
        charts = page.locator("[data-chart]")
        for index in range(charts.count()):
            charts.nth(index).screenshot(path=str(screenshots / f"chart-{name}-{index}-{width}.png"))
        drawn += charts.count()
        found = page.evaluate(OUTSIDE_JS)
        if found:
            outside[name] = found

    assert drawn >= 6  # the curve, the histogram, two tradeoffs, records, the comparison
    assert outside == {}, outside


@pytest.mark.parametrize("width", (390, 1280))
@pytest.mark.parametrize("crossing", CROSSINGS)
def test_the_threshold_star_never_covers_the_threshold_label(crossing_entries, sized, width, crossing):
    page = sized(width)
    open_page(page, f"/entries/{crossing_entries[crossing]}/")

    found = page.evaluate(STAR_AND_LABEL_JS)

    assert len(found["labels"]) == 1 and len(found["stars"]) == 1, found
    assert not overlap(found["labels"][0], found["stars"][0]), found


def test_each_title_appears_once_on_a_chart_page(wide_board, sized):
    page = sized(1280)
    repeated = {}
    for name, path in chart_pages(wide_board).items():
        open_page(page, path)
        titles = page.evaluate(TITLES_JS)
        twice = sorted(title for title, count in Counter(titles).items() if count > 1)
        if twice:
            repeated[name] = twice

    assert repeated == {}
