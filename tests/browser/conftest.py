"""Browser fixtures: Debian's chromium, driven by Playwright, against pytest-django's live server.

Never downloads a browser: without /usr/bin/chromium (test_pages skips itself), or when Playwright cannot
launch it, every test is skipped with the reason.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.browser.database import DatabaseCopies

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
TIMEOUT_MS = 10_000
HOSTILE_AUTHOR = "<script>alert(1)</script>"
# Fixtures that write to the database; `browser` sets them up before it starts (see its docstring).
DATA_FIXTURES = ("board", "hostile_entry_id", "wide_board", "crossing_entries")
# Once chromium has failed to launch, the other tests skip at once with the same reason.
_launch_failure: list[str] = []


@dataclass
class Board:
    """The ids of the imported DAWNBench sample's accepted CIFAR10 entries, in id order."""

    train_ids: list[int]
    inference_ids: list[int]


@dataclass
class Watch:
    """What a page did besides rendering: console errors, script errors, requests, dialogs."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    error_responses: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def attach(self, page) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("requestfailed", lambda request: self.failed_requests.append(f"{request.url}: {request.failure}"))
        page.on(
            "response",
            lambda response: (
                response.status >= 400 and self.error_responses.append(f"{response.status} {response.url}")
            ),
        )
        page.on("dialog", self._dialog)

    def _console(self, message) -> None:
        if message.type == "error":
            self.console_errors.append(f"{message.text} ({message.location.get('url')})")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def take_problems(self) -> dict[str, list[str]]:
        """What went wrong since the last call, by kind; the lists start again empty."""
        found = {
            "console errors": self.console_errors,
            "page errors": self.page_errors,
            "failed requests": self.failed_requests,
            "responses >= 400": self.error_responses,
        }
        problems = {name: list(items) for name, items in found.items() if items}
        for items in found.values():
            items.clear()
        return problems


ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"


class Chromium:
    """Playwright and one headless chromium, started by a module's first browser test and stopped after its last.

    Starting them took about 2.5 s a test (Playwright's driver, chromium, its first page), more than many tests' own
    work. While Playwright's sync API is started it marks an event loop as running on this thread, so Django treats
    the thread as async: it refuses ORM calls unless DJANGO_ALLOW_ASYNC_UNSAFE is set (it is, for as long as
    Playwright runs, so that the next tests' data fixtures and pytest-django's flush can run), and the thread's
    database connection is then a context-local one: on SQLite a second connection to the same shared in-memory
    test database, which the live server's thread already reads through its own. Before Playwright stops, the
    connections opened meanwhile are closed where Django may close them (it keeps an in-memory SQLite one open, or
    the database would go with it). Playwright stops with the module, so no other module's tests run beside it.
    """

    def __init__(self):
        self.playwright = None
        self.launched = None

    def start(self, sync_api):
        if self.launched is None:
            os.environ[ASYNC_UNSAFE] = "true"
            try:
                self.playwright = sync_api.sync_playwright().start()
                self.launched = self.playwright.chromium.launch(
                    executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS
                )
            except Exception:
                self.stop()
                raise
        return self.launched

    def stop(self):
        from django.db import connections

        if self.playwright is not None:
            connections.close_all()  # those opened while the loop ran (an in-memory SQLite one stays open)
            if self.launched is not None:
                self.launched.close()
            self.playwright.stop()
        self.playwright = self.launched = None
        os.environ.pop(ASYNC_UNSAFE, None)


@pytest.fixture(scope="module")
def chromium():
    started = Chromium()
    yield started
    started.stop()


@pytest.fixture
def browser(request, live_server, chromium):
    """The module's headless chromium (`Chromium`), started once the first test's data is in the database.

    Every data fixture the test asks for is set up before the browser is asked for, so that the first test's data
    is written before Playwright starts (see `Chromium`).
    """
    if _launch_failure:
        pytest.skip(_launch_failure[0])
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    for name in DATA_FIXTURES:
        if name in request.fixturenames:
            request.getfixturevalue(name)
    try:
        return chromium.start(sync_api)
    except Exception as error:  # whatever stops the launch, its reason is reported
        _launch_failure.append(f"playwright cannot launch {CHROMIUM}: {str(error).strip().splitlines()[0]}")
        pytest.skip(_launch_failure[0])


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def page(browser, live_server, watch):
    """A page in a fresh context, with JavaScript, recording what it does into `watch`."""
    context = browser.new_context(base_url=live_server.url, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    opened = context.new_page()
    watch.attach(opened)
    yield opened
    context.close()


@pytest.fixture
def page_without_javascript(browser, live_server):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(TIMEOUT_MS)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="session")
def database_copies(django_db_setup, django_db_blocker):
    from django.db import connection

    from tests.conftest import MIGRATED

    if not MIGRATED or MIGRATED[0].copy is None:
        pytest.skip("the browser tests run on SQLite: each starts from a copy of the database as migrated")
    copies = DatabaseCopies(connection, MIGRATED[0].copy)
    yield copies
    for steps, (copy, _) in copies.copies.items():
        if steps:
            copy.close()


@pytest.fixture(autouse=True)
def database_as_migrated(transactional_db, database_copies) -> DatabaseCopies:
    """Every browser test starts from the database as migrated (flushed after the test, as transactional)."""
    database_copies.as_migrated()
    return database_copies


@pytest.fixture
def board(database_as_migrated, sample_dir) -> Board:
    """The real DAWNBench CIFAR10 sample, imported through the management command."""

    def build() -> Board:
        from leaderboard.models import Entry

        call_command("import_dawnbench", str(sample_dir), stdout=StringIO())
        entries = Entry.objects.filter(task__slug="cifar10", status=Entry.Status.ACCEPTED).order_by("id")
        return Board(
            train_ids=list(entries.filter(track="train").values_list("id", flat=True)),
            inference_ids=list(entries.filter(track="inference").values_list("id", flat=True)),
        )

    return database_as_migrated.once("board", build)


@pytest.fixture
def hostile_entry_id(board, database_as_migrated, tmp_path) -> int:
    """A training entry whose author is a script element, submitted through the management command."""

    def build() -> int:
        from leaderboard.models import Entry
        from tests.factories import entry_bytes, training_log

        entry_path, log_path = tmp_path / "entry.json", tmp_path / "log.tsv"
        entry_path.write_bytes(entry_bytes(author=HOSTILE_AUTHOR))
        log_path.write_bytes(training_log())
        command = ("submit", "--task", "cifar10", "--track", "train", str(entry_path), str(log_path))
        call_command(*command, stdout=StringIO())
        return Entry.objects.get(author=HOSTILE_AUTHOR).id

    return database_as_migrated.once("hostile_entry", build)


@pytest.fixture
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def wide_board(board, database_as_migrated, tmp_path):
    """The sample plus a training and an inference entry with text as long as real entries' (tests/browser/wide.py)."""
    from tests.browser.wide import add_wide_entries

    return database_as_migrated.once("wide_entries", lambda: add_wide_entries(board, tmp_path))


@pytest.fixture
def crossing_entries(database_as_migrated, tmp_path) -> dict[str, int]:
    """Training entries crossing the threshold early, in the middle and at their last point (tests/browser/wide.py)."""
    from tests.browser.wide import add_crossing_entries

    return database_as_migrated.once("crossing_entries", lambda: add_crossing_entries(tmp_path))


@pytest.fixture
def sized(browser, live_server, request):
    """Opens a page of the given width, in a fresh context: `sized(390)`."""
    from tests.browser.wide import HEIGHT

    def make(width: int, **options):
        context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": HEIGHT}, **options)
        context.set_default_timeout(TIMEOUT_MS)
        request.addfinalizer(context.close)
        return context.new_page()

    return make
