"""The public pages over the real DAWNBench CIFAR10 sample: they show the numbers the API serves, filtered, sorted
and exported as asked. The sample is imported once for the module (`imported_sample`); each test's changes roll
back to it."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re

import pytest

from dawnboard import display
from dawnboard.metrics import LEADERBOARD_METRICS
from leaderboard import views
from leaderboard.models import Entry

pytestmark = pytest.mark.django_db

ROW = re.compile(r'<tr data-entry-id="(\d+)">\s*<td class="num">(\d+)</td>\s*<td class="num" data-value="([^"]+)"')


def board_rows(html: str) -> list[tuple[int, int, float]]:
    """(entry id, rank, exact value) of every board row on a page, in page order."""
    return [(int(entry_id), int(rank), float(value)) for entry_id, rank, value in ROW.findall(html)]


def api_board(client, metric: str) -> list[tuple[int, int, float]]:
    results = client.get(f"/api/v1/leaderboards/cifar10/{metric}/").json()["results"]
    return [(row["entry_id"], row["rank"], row["value"]) for row in results]


@pytest.fixture
def sample(imported_sample):
    """The sample as imported once for the module."""
    return imported_sample


def test_home_shows_each_boards_top_five_as_the_api_ranks_them(client, sample):
    html = client.get("/").content.decode()

    tables = html.split('<table class="board" data-metric="')[1:]
    cifar10 = {table.split('"', 1)[0]: board_rows(table) for table in tables[:4]}
    assert set(cifar10) == set(LEADERBOARD_METRICS)
    for metric, rows in cifar10.items():
        assert rows == api_board(client, metric)[:5]


@pytest.mark.parametrize("metric", list(LEADERBOARD_METRICS))
def test_task_page_lists_the_whole_board_in_the_api_order(client, sample, metric):
    rows = board_rows(client.get(f"/tasks/cifar10/?metric={metric}").content.decode())

    assert rows == api_board(client, metric)


def test_task_page_sorts_by_a_column_both_ways(client, sample):
    ascending = board_rows(client.get("/tasks/cifar10/?sort=date&order=asc").content.decode())
    descending = board_rows(client.get("/tasks/cifar10/?sort=date&order=desc").content.decode())

    dates = dict(Entry.objects.values_list("id", "date"))
    assert [dates[row[0]] for row in ascending] == sorted(dates[row[0]] for row in ascending)
    assert [dates[row[0]] for row in descending] == sorted((dates[row[0]] for row in descending), reverse=True)


def test_task_page_filters_by_hardware_and_keeps_board_ranks(client, sample):
    everything = api_board(client, "training-time")

    rows = board_rows(client.get("/tasks/cifar10/?hardware=k80").content.decode())

    k80 = set(Entry.objects.filter(hardware__icontains="k80").values_list("id", flat=True))
    assert rows and {row[0] for row in rows} == k80 & {row[0] for row in everything}
    assert rows == [row for row in everything if row[0] in k80]


def test_task_page_filters_by_framework_and_date_range(client, sample):
    rows = board_rows(
        client.get("/tasks/cifar10/?framework=tensorflow&date_from=2017-10-11&date_to=2017-12-31").content.decode()
    )

    expected = Entry.objects.filter(
        track="train", framework__icontains="tensorflow", date__range=("2017-10-11", "2017-12-31")
    )
    assert len(rows) == expected.count() == 7
    assert {row[0] for row in rows} == set(expected.values_list("id", flat=True))


def test_task_page_as_of_shows_the_board_as_it_stood(client, sample):
    rows = board_rows(client.get("/tasks/cifar10/?as_of=2018-04-30").content.decode())

    dates = dict(Entry.objects.values_list("id", "date"))
    assert rows and all(str(dates[row[0]]) <= "2018-04-30" for row in rows)
    assert [row[1] for row in rows] == list(range(1, len(rows) + 1))  # ranked among that day's entries
    assert len(rows) < len(api_board(client, "training-time"))


def test_task_page_paginates(client, sample, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 10)

    pages = [board_rows(client.get(f"/tasks/cifar10/?page={number}").content.decode()) for number in (1, 2, 3, 4)]

    assert [len(page) for page in pages] == [10, 10, 10, 1]
    assert [row for page in pages for row in page] == api_board(client, "training-time")


def test_task_page_ignores_a_bad_filter_and_says_so(client, sample):
    response = client.get("/tasks/cifar10/?date_from=yesterday")

    assert response.status_code == 200
    assert len(board_rows(response.content.decode())) == 31
    assert "were not understood" in response.content.decode()


def test_csv_export_is_exactly_the_filtered_view(client, sample):
    query = "metric=training-cost&hardware=v100&sort=date&order=desc"
    rows = board_rows(client.get(f"/tasks/cifar10/?{query}").content.decode())

    response = client.get(f"/tasks/cifar10/export.csv?{query}")

    lines = list(csv.reader(io.StringIO(response.getvalue().decode())))  # getvalue(): exports are streamed
    assert response["Content-Disposition"] == 'attachment; filename="dawnboard-cifar10-training-cost.csv"'
    assert lines[0] == [
        "rank",
        "value",
        "unit",
        "model",
        "team",
        "hardware",
        "framework",
        "date",
        "entry_id",
        "code_url",
        "submitter",
        "verification",
    ]
    assert [(int(line[8]), int(line[0]), float(line[1])) for line in lines[1:]] == rows
    assert {line[11] for line in lines[1:]} == {"log-verified"}  # imported training entries, recomputed from logs


def test_json_export_is_exactly_the_filtered_view(client, sample):
    rows = board_rows(client.get("/tasks/cifar10/?metric=inference-latency&framework=pytorch").content.decode())

    response = client.get("/tasks/cifar10/export.json?metric=inference-latency&framework=pytorch")
    document = json.loads(response.getvalue())  # exports are streamed

    assert (document["task"], document["metric"], document["unit"]) == ("cifar10", "inference-latency", "milliseconds")
    assert [(row["entry_id"], row["rank"], row["value"]) for row in document["results"]] == rows


def test_entry_page_shows_what_was_claimed_and_what_was_recomputed(client, sample):
    entry = Entry.objects.get(source_name="basenet")
    detail = client.get(f"/api/v1/entries/{entry.id}/").json()

    html = client.get(f"/entries/{entry.id}/").content.decode()

    seconds = float(re.search(r'id="time-to-accuracy" data-seconds="([^"]+)"', html).group(1))
    assert seconds == detail["results"]["time_to_accuracy_seconds"]
    assert "0:05:41" in html  # 340.63 s as h:mm:ss
    assert "line 32, epoch 30" in html
    assert "3.06 USD/h" in html and f"= <strong>{display.usd(entry.training_cost_usd)}</strong>" in html
    assert str(entry.training_cost_usd.normalize()) not in html  # every digit of a computed figure: no reader's number
    assert html.count('class="curve"') == 1 and html.count('<tr><td class="num">') == 40


def test_entry_page_links_the_files_exactly_as_submitted(client, sample, sample_dir):
    entry = Entry.objects.get(source_name="KRes34_1GTX1080Ti_pytorch")

    html = client.get(f"/entries/{entry.id}/").content.decode()
    log = client.get(f"/entries/{entry.id}/files/log/")

    assert f"/entries/{entry.id}/files/log/" in html
    # The entry JSON holds the author's e-mail: the public downloads it as published, without the address.
    published = client.get(f"/entries/{entry.id}/files/entry/")
    assert f"/entries/{entry.id}/files/entry/" in html and published.status_code == 200
    assert "authorEmail" not in json.loads(published.content) and hashlib.sha256(published.content).hexdigest() in html
    assert log["Content-Disposition"].startswith("attachment")
    assert log.content == (sample_dir / "CIFAR10" / "train" / "KRes34_1GTX1080Ti_pytorch.tsv").read_bytes()
    assert "byte_order_mark" in html and "crlf_line_endings" in html


def test_entry_page_of_an_inference_entry_shows_its_cost_arithmetic(client, sample):
    entry = Entry.objects.get(source_name="dawn_resnet56_1k80-ec2_pytorch")

    html = client.get(f"/entries/{entry.id}/").content.decode()

    assert "$2.446\u00a0\u00d7\u00a010\u207b\u2076 per item" in html  # 2.4460776946225e-06, as a person reads it
    assert f"{display.usd(entry.inference_cost_usd_per_10k)} per 10,000 items" in html
    assert "$0.02446 per 10,000 items" in html
    assert "e-06" not in html and str(entry.inference_cost_usd_per_10k.normalize()) not in html


def test_an_unknown_file_of_an_entry_is_a_404(client, sample):
    entry = Entry.objects.filter(track="inference").first()

    assert client.get(f"/entries/{entry.id}/files/log/").status_code == 404


def test_charts_page_lists_the_pareto_front_of_time_and_cost(client, sample):
    html = client.get("/tasks/cifar10/charts/").content.decode()

    front = html.split('<table class="pareto">')[1].split("</table>")[0]
    models = re.findall(r'<a href="/entries/(\d+)/">', front)
    expected = Entry.objects.filter(
        source_name__in=["BAIDU-USA-GAIT_BaiduNet9P_8GV100_pytorch", "BAIDU-USA-GAIT_BaiduNet9_1GV100_pytorch"]
    )
    assert sorted(int(entry_id) for entry_id in models) == sorted(entry.id for entry in expected)
    assert 'id="figure-time-cost"' in html and 'id="figure-latency-cost"' in html


def test_charts_page_as_of_leaves_out_later_entries(client, sample):
    html = client.get("/tasks/cifar10/charts/?as_of=2017-12-31").content.decode()

    records = html.split('id="record-training-time"')[1].split("</table>")[0]
    assert "2017-10-11" in records and "2018-" not in records


def test_compare_overlays_the_curves_and_tables_of_the_entries(client, sample):
    first, second = Entry.objects.filter(track="train").order_by("id")[:2]

    html = client.get(f"/compare/?entries={first.id},{second.id},999999").content.decode()

    figure = json.loads(
        re.search(r'<script id="figure-compare" type="application/json">(.*?)</script>', html, re.S).group(1)
    )
    curves = [trace for trace in figure["data"] if not trace["name"].endswith("reached the threshold")]
    assert len(curves) == 2
    assert f'href="/entries/{first.id}/">#{first.id}' in html and f'href="/entries/{second.id}/">#{second.id}' in html


def test_each_board_row_can_be_ticked_for_comparison_in_a_form_sent_to_compare(client, sample):
    for html in (client.get("/").content.decode(), client.get("/tasks/cifar10/").content.decode()):
        form = html.split('<form method="get" action="/compare/">')[1].split("</form>")[0]
        first_id = board_rows(form)[0][0]

        assert f'<input type="checkbox" name="ids" value="{first_id}" aria-label="Compare entry {first_id} (' in form
        assert '<button type="submit">Compare selected</button>' in form


@pytest.mark.parametrize(
    ("metric", "heading"),
    [
        ("training-time", "Training time (h:mm:ss)"),
        ("training-cost", "Training cost (USD)"),
        ("inference-latency", "Latency, mean (ms)"),
        ("inference-cost", "Inference cost (USD per 10,000 items)"),
    ],
)
def test_each_metric_view_has_its_own_title_value_heading_and_current_link(client, sample, metric, heading):
    html = client.get(f"/tasks/cifar10/?metric={metric}").content.decode()
    label = LEADERBOARD_METRICS[metric].label

    assert f"<title>CIFAR10 image classification: {label}" in html
    assert re.search(rf'<th scope="col" class="num"[^>]*>\s*<a [^>]*>{re.escape(heading)}', html)
    assert re.search(rf'<a href="\?metric={metric}[^"]*" aria-current="page">', html)
    assert html.count('aria-current="page"') == 1
    assert "<caption>CIFAR10 image classification: " in html


def test_every_page_starts_with_a_skip_link_to_its_main_content(client, sample):
    for path in ("/", "/tasks/cifar10/", "/submit/", "/no-such-page/"):
        html = client.get(path).content.decode()
        body = html.split("<body>", 1)[1]

        assert body.lstrip().startswith('<a class="skip-link" href="#main">Skip to the ')
        assert '<main id="main" tabindex="-1">' in body
