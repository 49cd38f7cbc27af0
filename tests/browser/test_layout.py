"""The layout holds at two phones' widths and at three desktop widths: no page scrolls sideways, no boards overlap,
no word breaks inside itself, and a board that scrolls sideways says so.

Every kind of page is opened at 320, 390, 1280, 1440 and 1920 px in headless chromium, with the real DAWNBench
CIFAR10 sample plus entries whose hardware, model and links are as long as real ones get. A full-page screenshot
of each lands in test-artifacts/screenshots/<page>-<width>.png.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import CHROMIUM
from tests.browser.database import DATABASE
from tests.browser.wide import open_page, overflow, pages, site_pages

if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing: the browser tests need Debian's chromium (`make test` installs it with apt)",
        allow_module_level=True,
    )

pytestmark = DATABASE

WIDTHS = (320, 390, 1280, 1440, 1920)
PHONE = 390
NARROW_AND_DESKTOP = (320, 390, 1280)
LONGEST_WORD = 25  # letters and digits; a longer run is a machine token (a sha256, a commit), free to wrap

# Every run of letters and digits (a word) in the page's text whose characters lie on more than one line, unless
# the unspaced token it belongs to ("8*V100-16GB/448GB", a URL) is wider than the block it sits in: such a token has
# to wrap somewhere, and only then may a word inside it break. Every <details> is opened first, as a reader would; text
# inside scripts, styles and plotly's SVG is skipped.
BROKEN_WORDS_JS = r"""(longest) => {
    document.querySelectorAll('details').forEach((details) => { details.open = true; });
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
        acceptNode: (node) => node.parentElement.closest('script, style, svg, template, noscript')
            ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
    });
    const range = document.createRange();
    const lines = (start, end) => {
        range.setStart(walker.currentNode, start);
        range.setEnd(walker.currentNode, end);
        return [...range.getClientRects()].filter((rect) => rect.width > 0);
    };
    // The width a token could have: its block's, or for text in a table the block the table sits in (the page's
    // column or a scroll box), since a table cell narrower than a word is the very fault sought.
    const lineWidth = (element) => {
        while (/^(inline|table)/.test(getComputedStyle(element).display) && element.parentElement) {
            element = element.parentElement;
        }
        const style = getComputedStyle(element);
        return element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    };
    const broken = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const token of node.data.matchAll(/\S+/gu)) {
            for (const word of token[0].matchAll(/[\p{L}\p{N}]{2,}/gu)) {
                if (word[0].length > longest) { continue; }
                const start = token.index + word.index;
                const tops = new Set(lines(start, start + word[0].length).map((rect) => Math.round(rect.top)));
                if (tops.size < 2) { continue; }
                const tokenWidth = lines(token.index, token.index + token[0].length)
                    .reduce((sum, rect) => sum + rect.width, 0);
                const width = lineWidth(node.parentElement);
                if (tokenWidth > width + 1) { continue; }
                broken.push(`${word[0]} (in "${token[0]}", ${Math.round(tokenWidth)} px in a block of ${width} px)`);
            }
        }
    }
    return broken;
}"""

# Each element the selector finds: its text, and the number of lines it is drawn on.
LINES_OF_JS = """(selector) => [...document.querySelectorAll(selector)].map(element => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const tops = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
    return [element.textContent.trim(), tops.size];
})"""

# Each box in the page's content that can scroll sideways (a `.table-scroll`, or on a phone a table outside one):
# whether it does, and whether its hint ("Scroll sideways for more columns") shows.
SCROLL_BOXES_JS = """() => [...document.querySelectorAll('main *')]
    .filter((box) => !box.closest('svg') && ['auto', 'scroll'].includes(getComputedStyle(box).overflowX))
    .map((box) => {
        const hint = getComputedStyle(box, '::before');
        return {
            box: `${box.tagName.toLowerCase()}.${box.className}: ${box.textContent.trim().slice(0, 50)}`,
            scrolls: box.scrollWidth > box.clientWidth,
            hint: hint.display !== 'none' && hint.visibility === 'visible' && hint.content.includes('Scroll sideways'),
        };
    })"""


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_holds_its_layout(wide_board, sized, screenshots, width):
    """Each page opened once at this width, with every check made on it: no page wider than the viewport; at
    320, 390 and 1280 px no word broken inside itself (headers, labels, prose and names stay whole, "Rank", never
    "R/a/n/k"; only a machine token wider than its line, a sha256, a URL, an unspaced hardware string, may wrap
    inside); on the home page no two boards overlapping and no board's table spilling out of its box (a table
    wider than its column scrolls inside its own box instead of drawing over the next board)."""
    page = sized(width)
    site = site_pages(wide_board)
    too_wide, broken = {}, {}
    for name, path in pages(wide_board).items():
        open_page(page, path)
        page.screenshot(path=str(screenshots / f"{name}-{width}.png"), full_page=True)
        measured = overflow(page)
        if measured["scrollWidth"] > measured["innerWidth"]:
            too_wide[name] = measured
        if width in NARROW_AND_DESKTOP and name in site and (words := page.evaluate(BROKEN_WORDS_JS, LONGEST_WORD)):
            broken[name] = words[:12]
        if path == "/":
            boards = home_boards(page)

    assert too_wide == {}
    assert broken == {}, broken
    assert len(boards["boxes"]) >= 4
    assert boards["overlapping"] == []
    assert boards["spilling"] == 0


def home_boards(page) -> dict:
    """The home page's board boxes, the pairs of them that overlap, and how many have a table spilling out."""
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
    spilling = page.evaluate(
        """() => [...document.querySelectorAll('.board-box')].filter(box => {
            const outer = box.getBoundingClientRect();
            return [...box.querySelectorAll('.table-scroll')].some(scroll => {
                const inner = scroll.getBoundingClientRect();
                return inner.left < outer.left - 0.5 || inner.right > outer.right + 0.5;
            });
        }).length"""
    )
    return {"boxes": boxes, "overlapping": overlapping, "spilling": spilling}


def test_dates_and_values_with_units_stay_on_one_line(wide_board, sized):
    page = sized(PHONE)
    open_page(page, "/tasks/cifar10/?metric=inference-latency")

    lines = page.evaluate(LINES_OF_JS, "table.board tbody td.num, table.board tbody td.date")

    assert lines and all(count == 1 for _, count in lines), lines


@pytest.mark.parametrize("width", NARROW_AND_DESKTOP)
def test_a_board_that_scrolls_sideways_says_so_and_one_that_fits_does_not(wide_board, sized, width):
    """Without JavaScript, as with it: the hint is the box's own CSS."""
    page = sized(width, java_script_enabled=False)
    boxes = {}
    for name, path in site_pages(wide_board).items():
        page.goto(path)
        # A scroll-state query is answered from a snapshot taken after a frame's layout and applied in a later
        # frame: two frames are drawn first (a loaded CI machine once read a box before its hint was applied).
        for _ in range(2):
            page.screenshot()
        boxes[name] = page.evaluate(SCROLL_BOXES_JS)

    wrong = {name: [box for box in found if box["hint"] != box["scrolls"]] for name, found in boxes.items()}
    assert {name: found for name, found in wrong.items() if found} == {}
    every_box = [box for found in boxes.values() for box in found]
    if width < 1000:
        assert any(box["scrolls"] for box in every_box)  # the boards of a phone scroll: the test saw a hint
    else:
        assert any(not box["scrolls"] for box in every_box)


@pytest.mark.parametrize("width", (320, PHONE))
def test_a_command_to_copy_breaks_only_between_its_words(wide_board, sized, width):
    """The home page's commands that fill an empty board wrap on a phone, but never inside a word:
    `--from-github` stays whole, as a reader copies it."""
    page = sized(width)
    open_page(page, "/")

    words = page.evaluate(LINES_OF_JS, ".fill-board code.command span")

    assert "--from-github" in [word for word, _ in words]
    assert [word for word, lines in words if lines != 1] == []
    assert overflow(page)["scrollWidth"] <= width
