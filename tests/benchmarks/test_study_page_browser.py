"""A study's page in chromium at a phone's width and a desktop's: its three figures drawn by the vendored plotly.js,
and no horizontal overflow of the page."""

from __future__ import annotations

import pytest

from tests.benchmarks.test_studies import stored_study
from tests.browser.conftest import CHROMIUM, LAUNCH_ARGS

if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is missing: the browser tests need Debian's chromium", allow_module_level=True)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def study():
    return stored_study()  # before Playwright starts: its event loop refuses the ORM


@pytest.fixture
def chromium(study):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.mark.parametrize("width", [390, 1440])
def test_the_study_page_draws_its_figures_without_overflowing(live_server, study, chromium, width):
    page = chromium.new_page(viewport={"width": width, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/studies/{study.id}/")
    page.locator('.chart[data-drawn="true"]').nth(2).wait_for(state="attached", timeout=10_000)  # all three drawn

    sizes = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert sizes[0] <= sizes[1] and not errors
    assert page.locator("tr.run").count() == 4
