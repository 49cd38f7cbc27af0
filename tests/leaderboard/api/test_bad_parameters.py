"""No query or path parameter is a 500: a bad one is a 400 with a code (API) or a page that ignores it.

Run on SQLite and again on PostgreSQL by `make test` (which refuses a NUL in text and overflows a bigint).
"""

from __future__ import annotations

import pytest

from tests.leaderboard.api.helpers import submit

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/leaderboards/cifar10/training-time/"
HUGE = "9" * 30  # past a bigint
TOO_MANY_DIGITS = "9" * 5000  # past the digits Python's int() converts
NUL = "\x00"
SUPERSCRIPT_TWO = "\u00b2"  # str.isdigit() says yes, int() says no
FULLWIDTH_ONE = "\uff11"  # int() reads it as 1, but it is not ASCII


@pytest.fixture
def entry_id(api_client) -> int:
    response = submit(api_client)
    assert response.status_code == 201, response.json()
    return int(response.json()["entry_url"].rstrip("/").rsplit("/", 1)[1])


def assert_rejected(response, code: str, field: str | None = None) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == "rejected"
    assert [issue["code"] for issue in body["errors"]] == [code]
    if field is not None:
        assert body["errors"][0]["field"] == field


# --- the leaderboard API --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "limit",
    [HUGE, TOO_MANY_DIGITS, SUPERSCRIPT_TWO, FULLWIDTH_ONE, "1001", "0", "-1", "1.5", " 3", "", NUL],
    ids=["huge", "5000-digits", "superscript", "fullwidth", "above-max", "zero", "negative", "decimal", "space",
         "empty", "nul"],
)  # fmt: skip
def test_leaderboard_limit_must_be_ascii_digits_within_the_range(anonymous_client, limit):
    response = anonymous_client.get(BOARD, {"limit": limit})

    assert_rejected(response, "invalid_limit", field="limit")
    assert "1000" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("cost_basis", "unknown_cost_basis"),
        ("latency_stat", "invalid_latency_stat"),
        ("cost_at", "invalid_cost_at"),
        ("version", "unknown_version"),  # PostgreSQL refused the query with a 500 (found by the soak's schemathesis)
    ],
)
def test_leaderboard_choice_with_a_nul_is_rejected(anonymous_client, name, code):
    assert_rejected(anonymous_client.get(BOARD, {name: f"mean{NUL}"}), code)


def test_a_leaderboard_of_a_task_named_with_a_nul_is_not_found(anonymous_client):
    response = anonymous_client.get(f"/api/v1/leaderboards/cifar10{NUL}/training-time/")

    assert response.status_code == 404 and response.json()["errors"][0]["code"] in ("unknown_task", "not_found")


# --- entries: ids and filters ---------------------------------------------------------------------------------


@pytest.mark.parametrize("entry_id", [HUGE, TOO_MANY_DIGITS], ids=["huge", "5000-digits"])
def test_an_entry_id_past_any_integer_is_not_found(anonymous_client, entry_id):
    response = anonymous_client.get(f"/api/v1/entries/{entry_id}/")

    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "not_found"


@pytest.mark.parametrize("name", ["task", "framework", "hardware", "track"])
def test_an_entries_filter_with_a_nul_is_rejected(anonymous_client, entry_id, name):
    response = anonymous_client.get("/api/v1/entries/", {name: f"cifar10{NUL}"})

    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == name


@pytest.mark.parametrize("page", [HUGE, TOO_MANY_DIGITS, SUPERSCRIPT_TWO, "0", NUL])
def test_an_entries_page_that_does_not_exist_is_not_found(anonymous_client, entry_id, page):
    response = anonymous_client.get("/api/v1/entries/", {"page": page})

    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "not_found"


def test_a_submission_id_past_any_integer_is_not_found(api_client):
    response = api_client.get(f"/api/v1/submissions/{HUGE}/")

    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "not_found"


# --- the pages ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        f"/entries/{HUGE}/",
        f"/entries/{TOO_MANY_DIGITS}/",
        f"/entries/{HUGE}/files/entry/",
        "/entries/1/files/%00/",
        "/tasks/" + "x" * 300 + "/",
    ],
    ids=["entry-huge", "entry-5000-digits", "file-of-huge-entry", "file-nul-of-missing-entry", "long-task-slug"],
)
def test_a_page_for_nothing_is_not_found(client, entry_id, url):
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("role", ["%00", "entry%00", "x" * 300])
def test_a_file_role_that_is_no_role_is_not_found(client, entry_id, role):
    assert client.get(f"/entries/{entry_id}/files/{role}/").status_code == 404


BOARD_PAGE_QUERIES = {
    "page-huge": {"page": HUGE},
    "page-zero": {"page": "0"},
    "page-5000-digits": {"page": TOO_MANY_DIGITS},
    "page-superscript": {"page": SUPERSCRIPT_TWO},
    "page-nul": {"page": NUL},
    "framework-nul": {"framework": f"PyTorch{NUL}"},
    "hardware-nul": {"hardware": NUL},
    "metric-nul": {"metric": NUL},
    "sort-nul": {"sort": NUL},
    "order-nul": {"order": NUL},
    "latency-stat-nul": {"latency_stat": NUL},
    "as-of-nul": {"as_of": NUL},
    "date-from-year-99999": {"date_from": "99999-01-01"},
    "date-to-superscript": {"date_to": f"2019-01-0{SUPERSCRIPT_TWO}"},
}


@pytest.mark.parametrize("query", BOARD_PAGE_QUERIES.values(), ids=BOARD_PAGE_QUERIES.keys())
@pytest.mark.parametrize("url", ["/tasks/cifar10/", "/tasks/cifar10/export.csv", "/tasks/cifar10/export.json"])
def test_the_board_pages_ignore_what_they_do_not_understand(client, entry_id, url, query):
    response = client.get(url, query)

    assert response.status_code == 200
    if url == "/tasks/cifar10/":
        assert f'data-entry-id="{entry_id}"' in response.content.decode()  # the board as if not asked
        assert "were not understood" in response.content.decode()


@pytest.mark.parametrize("page", ["2", HUGE])
def test_a_board_page_past_the_last_shows_the_last(client, entry_id, page):
    response = client.get("/tasks/cifar10/", {"page": page})

    assert response.status_code == 200
    assert f'data-entry-id="{entry_id}"' in response.content.decode()


@pytest.mark.parametrize("as_of", [NUL, "9999-12-31", "0001-01-01", TOO_MANY_DIGITS])
def test_the_charts_page_answers_whatever_the_date(client, entry_id, as_of):
    assert client.get("/tasks/cifar10/charts/", {"as_of": as_of}).status_code == 200


@pytest.mark.parametrize(
    "entries",
    [SUPERSCRIPT_TWO, FULLWIDTH_ONE, HUGE, TOO_MANY_DIGITS, NUL, "1," * 5000, f"{HUGE},1"],
    ids=["superscript", "fullwidth", "huge", "5000-digits", "nul", "5000-ids", "huge-then-one"],
)
def test_the_compare_page_ignores_ids_that_are_no_ids(client, entry_id, entries):
    response = client.get("/compare/", {"entries": entries})

    assert response.status_code == 200


# --- the API's own addresses ----------------------------------------------------------------------------------


def test_the_api_root_lists_the_endpoints_the_schema_and_the_docs(anonymous_client, db):
    body = anonymous_client.get("/api/v1/").json()

    assert body["endpoints"]["entries"] == "http://testserver/api/v1/entries/"
    assert body["endpoints"]["leaderboard"] == "http://testserver/api/v1/leaderboards/{task}/{metric}/"
    for url in (body["schema"], body["docs"], *body["endpoints"].values()):
        if "{" not in url:
            assert anonymous_client.get(url).status_code in (200, 401), url


@pytest.mark.parametrize("url", ["/api/v1/nothing/", "/api/v2/", "/api/v1/entries/abc/", "/api/v1/entries/1/x"])
def test_an_unknown_api_address_is_a_json_not_found(anonymous_client, db, url):
    response = anonymous_client.get(url)

    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "not_found"


def test_an_unknown_page_address_is_still_the_html_page(client, db):
    response = client.get("/nothing/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_json_submission_is_told_to_send_a_multipart_form(api_client):
    response = api_client.post("/api/v1/submissions/", {"task": "cifar10", "track": "train"}, format="json")

    assert response.status_code == 415
    [issue] = response.json()["errors"]
    assert issue["code"] == "unsupported_media_type"
    assert all(word in issue["message"] for word in ("multipart/form-data", "entry", "log", "task", "track"))
