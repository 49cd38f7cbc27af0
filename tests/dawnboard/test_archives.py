"""The public archives as data (where each is, the folder it unpacks to, what to do by hand), a tarball unpacked
safely, and the commands an empty task's page shows."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from dawnboard.archives import UnsafeArchive, dawnbench_archive, mlperf_archive, unpack_tarball
from dawnboard.recipes import fill_commands
from dawnboard.rules import task_named

MAX = 1024 * 1024


def tarball(path: Path, members: dict[str, bytes | str]) -> Path:
    """A gzipped tarball as GitHub writes one (a pax global header naming the commit first): a bytes value is a
    file, a str value a symbolic link to it."""
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": "0" * 40}) as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            if isinstance(content, str):
                info.type, info.linkname = tarfile.SYMTYPE, content
                archive.addfile(info)
            else:
                info.size = len(content)
                archive.addfile(info, io.BytesIO(content))
    return path


def test_dawnbench_archive_is_the_master_branch_of_dawn_bench_entries():
    archive = dawnbench_archive()

    assert archive.url() == "https://codeload.github.com/stanford-futuredata/dawn-bench-entries/tar.gz/master"
    assert (
        archive.url("http://127.0.0.1:8000/")
        == "http://127.0.0.1:8000/stanford-futuredata/dawn-bench-entries/tar.gz/master"
    )
    assert archive.folder == "dawn-bench-entries-master"
    assert archive.cache_name == "stanford-futuredata+dawn-bench-entries+master.tar.gz"


@pytest.mark.parametrize(("round_name", "branch"), [("v0.7", "master"), ("v1.0", "master"), ("v4.0", "main")])
def test_mlperf_archive_is_the_round_s_results_repository_at_its_default_branch(round_name, branch):
    archive = mlperf_archive(round_name)

    assert archive.url() == f"https://codeload.github.com/mlcommons/training_results_{round_name}/tar.gz/{branch}"
    assert archive.folder == f"training_results_{round_name}-{branch}"


def test_mlperf_archive_at_a_pinned_commit():
    assert (
        mlperf_archive("v4.0", "6fe954378efe4a1a1bd665550b18ff8f26018def")
        .url()
        .endswith("/training_results_v4.0/tar.gz/6fe954378efe4a1a1bd665550b18ff8f26018def")
    )


@pytest.mark.parametrize("ref", ["../master", "-rf", "", "a b", "master/", "refs/../x"])
def test_a_ref_that_is_no_branch_tag_or_commit_is_refused(ref):
    with pytest.raises(ValueError, match="not a branch, tag or commit"):
        dawnbench_archive(ref)


def test_by_hand_names_the_url_and_the_local_command():
    archive = mlperf_archive("v4.0")
    text = archive.by_hand(archive.url())

    assert "https://codeload.github.com/mlcommons/training_results_v4.0/tar.gz/main" in text
    assert "tar xzf training_results_v4.0-main.tar.gz" in text
    assert text.endswith(".venv/bin/python manage.py import_mlperf training_results_v4.0-main --round v4.0")


# --- Unpacking ---


def test_unpacks_the_tree_under_its_top_folder(tmp_path):
    path = tarball(tmp_path / "a.tar.gz", {"repo-main/CIFAR10/train/a.json": b"{}", "repo-main/README.md": b"hi"})

    unpacked = unpack_tarball(path, tmp_path / "out", max_unpacked_bytes=MAX)

    assert unpacked.root == tmp_path / "out" / "repo-main"
    assert (unpacked.root / "CIFAR10" / "train" / "a.json").read_bytes() == b"{}"
    assert unpacked.unpacked_bytes == 4 and unpacked.left_out == ()


@pytest.mark.parametrize(
    "name", ["repo-main/../evil.json", "../evil.json", "repo-main/CIFAR10/../../evil.json", "/tmp/evil.json"]
)
def test_refuses_a_member_outside_the_folder(tmp_path, name):
    path = tarball(tmp_path / "a.tar.gz", {"repo-main/README.md": b"hi", name: b"{}"})

    with pytest.raises(UnsafeArchive):
        unpack_tarball(path, tmp_path / "out", max_unpacked_bytes=MAX)
    assert not (tmp_path / "evil.json").exists()


def test_refuses_a_second_top_folder(tmp_path):
    path = tarball(tmp_path / "a.tar.gz", {"repo-main/a": b"1", "other/b": b"2"})

    with pytest.raises(UnsafeArchive, match="outside the top folder"):
        unpack_tarball(path, tmp_path / "out", max_unpacked_bytes=MAX)


def test_refuses_more_than_the_unpacked_cap(tmp_path):
    path = tarball(tmp_path / "a.tar.gz", {"repo-main/a": b"x" * 600, "repo-main/b": b"x" * 600})

    with pytest.raises(UnsafeArchive, match="more than 1,000 bytes"):
        unpack_tarball(path, tmp_path / "out", max_unpacked_bytes=1000)


def test_leaves_out_a_link_that_leaves_the_tree(tmp_path):
    path = tarball(
        tmp_path / "a.tar.gz",
        {"repo-main/a.json": b"{}", "repo-main/passwd": "/etc/passwd", "repo-main/up": "../../secret"},
    )

    unpacked = unpack_tarball(path, tmp_path / "out", max_unpacked_bytes=MAX)

    assert unpacked.left_out == ("repo-main/passwd", "repo-main/up")
    assert not (unpacked.root / "passwd").exists() and not (unpacked.root / "passwd").is_symlink()
    assert (unpacked.root / "a.json").exists()


def test_refuses_what_is_no_gzipped_tarball(tmp_path):
    path = tmp_path / "a.tar.gz"
    path.write_bytes(b"<html>rate limited</html>")

    with pytest.raises(UnsafeArchive, match="not a readable gzipped tarball"):
        unpack_tarball(path, tmp_path / "out", max_unpacked_bytes=MAX)


def test_an_mlperf_archive_unpacks_only_results_and_systems(tmp_path):
    path = tarball(
        tmp_path / "a.tar.gz",
        {
            "training_results_v4.0-main/README.md": b"readme",
            "training_results_v4.0-main/Org/results/sys/ssd/result_1.txt": b"log",
            "training_results_v4.0-main/Org/systems/sys.json": b"{}",
            "training_results_v4.0-main/Org/benchmarks/ssd/implementations/train.py": b"code",
        },
    )

    unpacked = unpack_tarball(path, tmp_path / "out", max_unpacked_bytes=MAX, keep=mlperf_archive("v4.0").keeps)

    files = sorted(str(p.relative_to(unpacked.root)) for p in unpacked.root.rglob("*") if p.is_file())
    assert files == ["Org/results/sys/ssd/result_1.txt", "Org/systems/sys.json", "README.md"]


# --- What an empty task's page says ---


def commands_of(slug: str) -> list[str]:
    return [fill.command for fill in fill_commands(task_named(slug))]


def test_a_dawnbench_task_is_filled_from_github():
    assert ".venv/bin/python manage.py import_dawnbench --from-github" in commands_of("cifar10")
    assert ".venv/bin/python manage.py import_dawnbench --from-github" in commands_of("squad")


def test_imagenet_is_filled_from_dawnbench_and_from_the_last_mlperf_round_with_resnet():
    commands = commands_of("imagenet")

    assert commands[:2] == [
        ".venv/bin/python manage.py import_dawnbench --from-github",
        ".venv/bin/python manage.py import_mlperf --from-github v4.0",
    ]


def test_an_mlperf_task_is_filled_from_its_last_round():
    assert commands_of("ssd") == [".venv/bin/python manage.py import_mlperf --from-github v4.1"]


def test_the_bundled_task_downloads_nothing():
    assert commands_of("digits") == [".venv/bin/python manage.py run_reference digits --recipe cnn --submit"]
