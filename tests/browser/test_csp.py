"""Under the Content-Security-Policy the charts still draw and the API docs still start: nothing is refused."""

from __future__ import annotations

import pytest

from tests.browser.conftest import CHROMIUM
from tests.browser.database import DATABASE

if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing: the browser tests need Debian's chromium (`make test` installs it with apt)",
        allow_module_level=True,
    )

pytestmark = DATABASE
FIRST_LOAD_TIMEOUT_MS = 60_000


@pytest.fixture
def csp_messages(page) -> list[str]:
    """Every console message that reports a Content-Security-Policy violation."""
    messages: list[str] = []
    page.on("console", lambda message: "Content Security Policy" in message.text and messages.append(message.text))
    return messages


def test_charts_draw_with_no_policy_violation(page, board, csp_messages):
    # The first page of a run may be the first to serve plotly.js (4.8 MB) on a busy machine: more time for it.
    response = page.goto("/tasks/cifar10/charts/", timeout=FIRST_LOAD_TIMEOUT_MS)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-chart]')].every(chart => chart.querySelector('.main-svg'))",
        timeout=FIRST_LOAD_TIMEOUT_MS,
    )

    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert page.locator(".chart .scatterlayer .trace").count() > 0
    assert csp_messages == []


def test_api_docs_start_with_no_policy_violation(page, csp_messages):
    page.goto("/api/docs/", timeout=FIRST_LOAD_TIMEOUT_MS)
    page.wait_for_selector(".swagger-ui .opblock", timeout=FIRST_LOAD_TIMEOUT_MS)

    assert page.locator(".swagger-ui .opblock").count() > 0
    assert csp_messages == []


def test_an_inline_script_is_refused(page, board, csp_messages):
    """The policy is really enforced: a script injected into a page does not run and is reported."""
    page.goto("/")
    ran = page.evaluate(
        """() => {
            window.injectedRan = false;
            const script = document.createElement("script");
            script.textContent = "window.injectedRan = true";
            document.body.appendChild(script);
            return window.injectedRan;
        }"""
    )

    assert ran is False
    assert any("script-src" in message for message in csp_messages)
