"""`import_dawnbench --from-github [REF]` and `import_mlperf --from-github ROUND`: the public archive downloaded from
a local HTTP server laid out like codeload.github.com, serving tarballs in the real layouts (one top folder
REPO-REF/, the files the local-folder imports' tests write), cached, checked, unpacked safely and imported."""

from __future__ import annotations

import hashlib
import io
import json
import socket
import tarfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.models import Entry
from tests.dawnboard.mllog_trees import ROUND, good_set
from tests.leaderboard.test_commands import write_archive

pytestmark = pytest.mark.django_db

DAWNBENCH_PATH = "/stanford-futuredata/dawn-bench-entries/tar.gz/master"
MLPERF_PATH = f"/mlcommons/training_results_{ROUND}/tar.gz/main"
FAIL_FAST_SECONDS = 5.0


@dataclass
class ArchiveServer:
    """A threaded HTTP server on 127.0.0.1 serving `files` by path; `extra_length` bytes are claimed in the
    Content-Length beyond what is sent."""

    files: dict[str, bytes] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    extra_length: int = 0
    base_url: str = ""
    httpd: ThreadingHTTPServer | None = None

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None


@pytest.fixture
def server(settings, tmp_path):
    state = ArchiveServer()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            state.requests.append(self.path)
            body = state.files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-gzip")
            self.send_header("Content-Length", str(len(body) + state.extra_length))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    state.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=state.httpd.serve_forever, daemon=True).start()
    state.base_url = f"http://127.0.0.1:{state.httpd.server_address[1]}"
    settings.DAWNBOARD_GITHUB_ARCHIVE_URL = state.base_url
    settings.DAWNBOARD_ARCHIVE_CACHE = str(tmp_path / "cache")
    yield state
    state.stop()


def github_tarball(tree: Path, top: str, extra: dict[str, bytes] | None = None) -> bytes:
    """`tree` as GitHub's archive of it: gzipped, a pax global header naming the commit, everything under `top`/."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": "1" * 40}) as tar:
        tar.add(tree, arcname=top)
        for name, content in (extra or {}).items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


@pytest.fixture
def dawnbench_tarball(tmp_path) -> bytes:
    write_archive(tmp_path / "tree")  # four entries: ImageNet and SQuAD, train and inference
    return github_tarball(tmp_path / "tree", "dawn-bench-entries-master")


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def cache_files(settings) -> list[str]:
    cache = Path(settings.DAWNBOARD_ARCHIVE_CACHE)
    return sorted(path.name for path in cache.iterdir()) if cache.exists() else []


# --- Downloaded, cached, imported ---


def test_import_dawnbench_from_github_downloads_the_archive_into_the_cache_and_imports_it(
    server, dawnbench_tarball, settings
):
    server.files[DAWNBENCH_PATH] = dawnbench_tarball

    report = json.loads(run("import_dawnbench", "--from-github", "--json"))

    assert report["summary"] == {"imported": 4, "skipped": 0, "rejected": 0}
    assert Entry.objects.count() == 4
    assert server.requests == [DAWNBENCH_PATH]
    cached = Path(settings.DAWNBOARD_ARCHIVE_CACHE) / "stanford-futuredata+dawn-bench-entries+master.tar.gz"
    assert cached.read_bytes() == dawnbench_tarball
    record = json.loads(cached.with_name(cached.name + ".json").read_text())
    assert record["url"] == server.base_url + DAWNBENCH_PATH
    assert record["size_bytes"] == len(dawnbench_tarball)
    assert record["sha256"] == hashlib.sha256(dawnbench_tarball).hexdigest() == report["archive"]["sha256"]
    assert record["downloaded_at"]
    assert cache_files(settings) == [cached.name, cached.name + ".json"]  # the unpacked tree is gone


def test_a_second_run_reads_the_cache_without_the_network(server, dawnbench_tarball):
    server.files[DAWNBENCH_PATH] = dawnbench_tarball
    run("import_dawnbench", "--from-github")
    server.stop()

    output = run("import_dawnbench", "--from-github")

    assert "read from the cache" in output
    assert "0 imported, 4 already imported, 0 rejected." in output
    assert Entry.objects.count() == 4


def test_the_expected_sha256_is_accepted(server, dawnbench_tarball):
    server.files[DAWNBENCH_PATH] = dawnbench_tarball

    run("import_dawnbench", "--from-github", "--sha256", hashlib.sha256(dawnbench_tarball).hexdigest())

    assert Entry.objects.count() == 4


def test_a_ref_downloads_that_ref(server, tmp_path):
    write_archive(tmp_path / "tree")
    server.files["/stanford-futuredata/dawn-bench-entries/tar.gz/0123abc"] = github_tarball(
        tmp_path / "tree", "dawn-bench-entries-0123abc"
    )

    output = run("import_dawnbench", "--from-github", "0123abc")

    assert "4 imported" in output


def test_import_mlperf_from_github_imports_the_round(server, tmp_path, settings):
    good_set(tmp_path / "tree")  # Org/results/good/ssd/result_1..5.txt
    (tmp_path / "tree" / "Org" / "benchmarks" / "ssd").mkdir(parents=True)
    (tmp_path / "tree" / "Org" / "benchmarks" / "ssd" / "train.py").write_text("# code, not unpacked")
    server.files[MLPERF_PATH] = github_tarball(tmp_path / "tree", f"training_results_{ROUND}-main")

    report = json.loads(run("import_mlperf", "--from-github", ROUND, "--json"))

    assert report["round"] == ROUND
    assert [(imported["system"], imported["status"]) for imported in report["sets"]] == [("good", "accepted")]
    assert Entry.objects.get().version == f"mlperf-{ROUND}"
    assert server.requests == [MLPERF_PATH]


# --- Refused: nothing imported, nothing bad kept ---


def test_a_digest_mismatch_is_refused_the_file_removed_and_nothing_imported(server, dawnbench_tarball, settings):
    server.files[DAWNBENCH_PATH] = dawnbench_tarball

    with pytest.raises(CommandError, match=f"has sha256 {hashlib.sha256(dawnbench_tarball).hexdigest()}, not the"):
        run("import_dawnbench", "--from-github", "--sha256", "0" * 64)

    assert not Entry.objects.exists()
    assert cache_files(settings) == []


def test_a_cached_copy_of_another_digest_is_refused_and_removed(server, dawnbench_tarball, settings):
    server.files[DAWNBENCH_PATH] = dawnbench_tarball
    run("import_dawnbench", "--from-github")
    Entry.objects.all().delete()

    with pytest.raises(CommandError, match="not the expected"):
        run("import_dawnbench", "--from-github", "--sha256", "f" * 64)

    assert not Entry.objects.exists()
    assert cache_files(settings) == []


def test_a_download_short_of_its_content_length_is_refused(server, dawnbench_tarball, settings):
    server.files[DAWNBENCH_PATH] = dawnbench_tarball
    server.extra_length = 100

    with pytest.raises(CommandError, match="where its Content-Length said"):
        run("import_dawnbench", "--from-github")

    assert not Entry.objects.exists()
    assert cache_files(settings) == []  # no partial download left behind


def test_a_download_over_the_cap_is_refused(server, dawnbench_tarball, settings):
    server.files[DAWNBENCH_PATH] = dawnbench_tarball
    settings.DAWNBOARD_ARCHIVE_MAX_BYTES = len(dawnbench_tarball) - 1

    with pytest.raises(CommandError, match="larger than DAWNBOARD_ARCHIVE_MAX_BYTES"):
        run("import_dawnbench", "--from-github")

    assert not Entry.objects.exists()
    assert cache_files(settings) == []


def test_a_tarball_with_a_dotdot_member_is_refused_and_nothing_imported(server, tmp_path, settings):
    write_archive(tmp_path / "tree")
    server.files[DAWNBENCH_PATH] = github_tarball(
        tmp_path / "tree", "dawn-bench-entries-master", extra={"dawn-bench-entries-master/../../evil.json": b"{}"}
    )

    with pytest.raises(
        CommandError, match=r"removed from the cache, nothing imported: member .*climbs out of its folder"
    ):
        run("import_dawnbench", "--from-github")

    assert not Entry.objects.exists()
    assert not (tmp_path / "evil.json").exists()
    assert cache_files(settings) == []  # neither the tarball nor its unpacked part is kept


def test_an_unreachable_server_fails_fast_naming_the_url_and_what_to_run_by_hand(settings, tmp_path):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.DAWNBOARD_GITHUB_ARCHIVE_URL = f"http://127.0.0.1:{port}"
    settings.DAWNBOARD_ARCHIVE_CACHE = str(tmp_path / "cache")
    started = time.perf_counter()

    with pytest.raises(CommandError) as refused:
        run("import_dawnbench", "--from-github")

    assert time.perf_counter() - started < FAIL_FAST_SECONDS
    message = str(refused.value)
    assert f"Could not download http://127.0.0.1:{port}{DAWNBENCH_PATH}" in message
    assert "tar xzf dawn-bench-entries-master.tar.gz" in message
    assert message.endswith("run: .venv/bin/python manage.py import_dawnbench dawn-bench-entries-master")
    assert not Entry.objects.exists()


def test_an_http_error_names_the_status_and_the_command_for_the_round(server):
    with pytest.raises(CommandError, match="HTTP 404") as refused:
        run("import_mlperf", "--from-github", "v4.0")

    assert "import_mlperf training_results_v4.0-main --round v4.0" in str(refused.value)


# --- The arguments ---


def test_a_folder_and_from_github_together_are_refused(server, tmp_path):
    with pytest.raises(CommandError, match="not both"):
        run("import_dawnbench", str(tmp_path), "--from-github")
    with pytest.raises(CommandError, match="not both"):
        run("import_mlperf", str(tmp_path), "--from-github", ROUND)
    assert server.requests == []


def test_neither_a_folder_nor_from_github_is_refused():
    with pytest.raises(CommandError, match="--from-github"):
        run("import_dawnbench")


def test_sha256_without_a_download_is_refused(tmp_path):
    with pytest.raises(CommandError, match="--sha256 checks a download"):
        run("import_dawnbench", str(tmp_path), "--sha256", "0" * 64)


def test_a_malformed_sha256_is_refused_before_any_download(server):
    with pytest.raises(CommandError, match="64 hexadecimal digits"):
        run("import_dawnbench", "--from-github", "--sha256", "abc")
    assert server.requests == []


def test_two_different_rounds_are_refused(server):
    with pytest.raises(CommandError, match="different rounds"):
        run("import_mlperf", "--from-github", ROUND, "--round", "v4.0")
    assert server.requests == []


def test_a_folder_still_needs_its_round(tmp_path):
    with pytest.raises(CommandError, match="--round is required"):
        run("import_mlperf", str(tmp_path))


def test_nothing_at_start_up_downloads(server):
    call_command("check", stdout=io.StringIO())

    assert server.requests == []
