"""The public pages show the numbers the API serves, filtered, sorted and exported as asked."""

from __future__ import annotations

import csv
import io
import re
import runpy
from html import unescape
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dawnboard.errors import ERROR_DESCRIPTIONS, WARNING_DESCRIPTIONS, ErrorCode, WarningCode
from leaderboard import views
from leaderboard.models import Entry
from tests.factories import entry_bytes, submit_training_entry, training_log

pytestmark = pytest.mark.django_db

HOSTILE_AUTHOR = "<script>alert(1)</script>"


@pytest.fixture
def submit_file(tmp_path):
    def submit(**fields) -> Entry:
        return submit_training_entry(tmp_path, **fields)

    return submit


def home_sections(html: str) -> list[tuple[str, str]]:
    """(task slug, the section's html) of each task on the front page, in page order."""
    return re.findall(r'<section id="([a-z0-9-]+)" aria-labelledby=[^>]*>(.*?)</section>', html, re.DOTALL)


def fill_commands(html: str) -> list[str]:
    """The commands a page says would fill an empty board, as a reader copies them (each word in a span of its own:
    a command breaks only between its words)."""
    return [re.sub(r"<[^>]+>", "", code) for code in re.findall(r'<code class="command">(.*?)</code>', html)]


def test_home_puts_the_tasks_with_entries_first_and_says_how_to_fill_the_others(client, submit_file):
    submit_file()  # a cifar10 entry; digits, imagenet and squad have none

    sections = home_sections(client.get("/").content.decode())

    assert [slug for slug, _ in sections] == ["cifar10", "digits", "imagenet", "squad"]
    cifar10, digits, imagenet, squad = (html for _, html in sections)
    assert cifar10.count('<table class="board"') == 4 and "fill-board" not in cifar10
    for empty in (digits, imagenet, squad):
        assert '<table class="board"' not in empty and "No entries." not in empty
        assert empty.count('class="fill-board"') == 1
    assert ".venv/bin/python manage.py run_reference digits --recipe cnn --submit" in fill_commands(digits)
    assert "import_dawnbench" not in digits  # the DAWNBench archive has no digits entries
    assert ".venv/bin/python manage.py import_dawnbench --from-github" in fill_commands(imagenet)
    assert "github.com/stanford-futuredata/dawn-bench-entries" in imagenet
    assert ".venv/bin/python manage.py run_reference squad --recipe bidaf --data-dir DIR --submit" in fill_commands(
        squad
    )


def test_an_empty_task_s_page_says_the_commands_that_fill_it(client):
    imagenet = client.get("/tasks/imagenet/").content.decode()
    ssd = client.get("/tasks/ssd/").content.decode()

    assert imagenet.count('class="fill-board"') == 1
    assert ".venv/bin/python manage.py import_dawnbench --from-github" in fill_commands(imagenet)
    assert ".venv/bin/python manage.py import_mlperf --from-github v4.0" in fill_commands(imagenet)  # resnet's last
    assert ".venv/bin/python manage.py import_mlperf --from-github v4.1" in fill_commands(ssd)
    assert "import_dawnbench" not in ssd


def test_a_task_with_entries_does_not_say_how_to_fill_it(client, submit_file):
    submit_file()  # a cifar10 entry

    cifar10 = client.get("/tasks/cifar10/").content.decode()

    assert 'class="fill-board"' not in cifar10 and "--from-github" not in cifar10


def test_home_finds_the_tasks_with_entries_by_probing_an_index_not_by_a_distinct_over_the_entries(client, submit_file):
    """The model's default order made `.distinct()` a DISTINCT over every entry's task and creation time: a scan of
    400,000 rows on a large board (140 ms of the front page's 250 ms)."""
    submit_file()
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/").status_code == 200

    assert not [query["sql"] for query in queries if "DISTINCT" in query["sql"] and "leaderboard_entry" in query["sql"]]
    assert next(slug for slug, _ in home_sections(client.get("/").content.decode())) == "cifar10"


def test_home_after_make_run_opens_on_the_digits_boards(client, db, tmp_path):
    """`make run` fills the digits board alone: it comes first, CIFAR10 (first by name) after it."""
    entry_path, log_path = tmp_path / "e.json", tmp_path / "l.tsv"
    entry_path.write_bytes(entry_bytes())
    log_path.write_bytes(training_log([(0, 0.001, 99.0)]))
    call_command("submit", "--task", "digits", "--track", "train", str(entry_path), str(log_path), stdout=StringIO())

    slugs = [slug for slug, _ in home_sections(client.get("/").content.decode())]

    assert slugs == ["digits", "cifar10", "imagenet", "squad"]


def test_unknown_task_page_is_a_404(client, db):
    assert client.get("/tasks/mnist/").status_code == 404


def test_csv_export_neutralises_formulas_in_submitted_text(client, submit_file):
    submit_file(model='=HYPERLINK("http://evil.example")', author="@team", hardware="+1 V100")

    line = list(csv.reader(io.StringIO(client.get("/tasks/cifar10/export.csv").getvalue().decode())))[1]

    assert line[3:6] == ['\'=HYPERLINK("http://evil.example")', "'@team", "'+1 V100"]


def test_entry_page_shows_the_warnings_that_question_a_figure_before_the_notes(client, submit_file):
    entry = submit_file()
    notes_first = [  # as a verdict stored before the order was kept lists them
        {"code": WarningCode.CRLF_LINE_ENDINGS, "message": "CRLF."},
        {"code": WarningCode.REPEATED_EPOCH, "message": "Epochs repeat.", "line": 3},
    ]
    Entry.objects.filter(id=entry.id).update(warnings=notes_first)

    html = client.get(f"/entries/{entry.id}/").content.decode()

    assert html.index("<code>repeated_epoch</code>") < html.index("<code>crlf_line_endings</code>")
    assert html.count('class="warning note"') == 1


def test_an_unknown_entry_is_a_404_page(client, db):
    response = client.get("/entries/99999999/")

    assert response.status_code == 404
    assert "Not found" in response.content.decode()


def test_submit_page_lists_every_error_code_and_threshold(client, db):
    html = client.get("/submit/").content.decode()

    assert all(f"<code>{code}</code>" in html for code in ErrorCode)
    assert all(f"<code>{code}</code>" in html for code in WarningCode)
    assert "&ge; 94" in html and "&ge; 93" in html and "&ge; 0.75" in html
    assert 'href="/api/docs/"' in html


def test_submit_page_says_how_long_a_token_works(client, db, settings):
    settings.TOKEN_TTL_DAYS = 90

    html = client.get("/submit/").content.decode()

    assert "works for 90 days" in html and "<code>token_expired</code>" in html


def test_every_code_has_a_description():
    assert set(ERROR_DESCRIPTIONS) == set(ErrorCode)
    assert set(WARNING_DESCRIPTIONS) == set(WarningCode)


@pytest.mark.parametrize("page", ["/", "/tasks/cifar10/", "entry", "/tasks/cifar10/charts/", "compare"])
def test_user_text_is_escaped_everywhere(client, submit_file, page):
    entry = submit_file(author=HOSTILE_AUTHOR, model=HOSTILE_AUTHOR, costPerHour=1.0)
    url = {"entry": f"/entries/{entry.id}/", "compare": f"/compare/?entries={entry.id}"}.get(page, page)

    html = client.get(url).content.decode()

    assert HOSTILE_AUTHOR not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html or "\\u003Cscript\\u003E" in html


# --- what every reader meets: compare from the boards, labels, the submit page's examples, the error pages -------


def submit_example(html: str, name: str) -> bytes:
    return unescape(re.search(rf'<pre id="{name}">(.*?)</pre>', html, re.S).group(1)).encode()


@pytest.mark.parametrize("track", ["train", "inference"])
def test_submit_page_example_of_each_track_is_valid(client, api_client, track):
    html = client.get("/submit/").content.decode()
    files = {"entry": SimpleUploadedFile("entry.json", submit_example(html, f"example-{track}-entry"))}
    if track == "train":
        files["log"] = SimpleUploadedFile("log.tsv", submit_example(html, "example-train-log"))

    response = api_client.post("/api/v1/submissions/?dry_run=1", {"task": "cifar10", "track": track, **files})

    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "valid"
    assert response.json()["warnings"] == []


def test_submit_page_tells_the_public_to_ask_the_staff_for_a_token(client, db):
    html = client.get("/submit/").content.decode()

    assert "create_submitter" not in html
    assert "given by the site&#x27;s staff" in html or "given by the site's staff" in html
    assert "curl -sS --fail-with-body" in html


def test_an_unknown_page_is_the_sites_own_404(client, db):
    response = client.get("/no-such-page/")

    assert response.status_code == 404
    assert '<html lang="en">' in response.content.decode() and "Back to the leaderboards" in response.content.decode()


def test_a_server_error_is_the_sites_own_500_page(client, db, monkeypatch):
    def fail(**_):
        raise RuntimeError("the database is gone")

    monkeypatch.setattr(views.selectors, "home_boards", fail)
    client.raise_request_exception = False

    response = client.get("/")

    assert response.status_code == 500
    html = response.content.decode()
    assert '<html lang="en">' in html and "Something went wrong on our side" in html
    assert "the database is gone" not in html


def test_make_run_shows_the_sites_own_error_pages_unless_debug_is_asked_for(monkeypatch):
    """`make run` uses config.settings.local: DEBUG off by default, so a 404 is the site's page, not Django's."""
    monkeypatch.delenv("DEBUG", raising=False)

    assert runpy.run_module("config.settings.local")["DEBUG"] is False


def test_api_docs_page_names_its_language_and_links_back_to_the_site(client, db):
    html = client.get("/api/docs/").content.decode()

    assert '<html lang="en">' in html
    assert '<a href="/">&larr; Dawnboard leaderboards</a>' in html
