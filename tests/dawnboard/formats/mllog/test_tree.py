"""Reading a results tree laid out as MLCommons publishes it: every set found, in order, and nothing read that the
tree must not make the reader read (links out of it, pipes, huge files, floods of files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dawnboard.errors import ErrorCode, RejectedInput, WarningCode
from dawnboard.formats.mllog import MAX_LOG_BYTES, MAX_RESULT_FILES, MAX_SYSTEM_JSON_BYTES, read_results_tree
from tests.dawnboard.mllog_runs import run_log, write_set


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "results_tree"
    root.mkdir()
    return root


def only_set(root: Path):
    (result_set,) = read_results_tree(root)
    return result_set


def test_reads_every_set_sorted_with_its_files_in_natural_order(tree):
    write_set(tree, [b"a"] * 11, submitter="Zeta", system="sys2", benchmark="bert")
    write_set(tree, [b"b"] * 2, submitter="Alpha", system="sys1", benchmark="ssd")
    write_set(tree, [b"c"], submitter="Alpha", system="sys1", benchmark="bert")

    sets = list(read_results_tree(tree))

    assert [(s.submitter, s.system, s.benchmark) for s in sets] == [
        ("Alpha", "sys1", "bert"),
        ("Alpha", "sys1", "ssd"),
        ("Zeta", "sys2", "bert"),
    ]
    assert [file.name for file in sets[2].files][:3] == ["result_1.txt", "result_2.txt", "result_3.txt"]
    assert sets[2].files[-1].name == "result_11.txt" and sets[2].files[0].data == b"a"
    assert sets[0].folder == "Alpha/results/sys1/bert"
    assert all(not s.errors and not s.warnings and s.scaling_factor is None for s in sets)


def test_reads_the_system_description_and_scaling_factor_beside_the_runs(tree):
    folder = write_set(tree, [run_log()])
    (folder / "scaling.json").write_text('{"scaling_factor": 1.0188034188034187}')
    (folder / "notes.txt").write_text("not a result file")
    (tree / "Org" / "systems").mkdir()
    (tree / "Org" / "systems" / "sys.json").write_text('{"system_name": "A test box"}')

    result_set = only_set(tree)

    assert result_set.scaling_factor == 1.0188034188034187
    assert result_set.system_json == b'{"system_name": "A test box"}'
    assert [file.name for file in result_set.files] == ["result_1.txt"]


def test_reads_no_folder_of_a_submitter_but_results(tree):
    write_set(tree, [b"x"])
    (tree / "Org" / "benchmarks" / "ssd").mkdir(parents=True)
    (tree / ".github").mkdir()

    assert len(list(read_results_tree(tree))) == 1


def test_a_folder_without_the_layout_gives_one_clear_code(tree):
    (tree / "result_1.txt").write_bytes(run_log())

    with pytest.raises(RejectedInput) as raised:
        list(read_results_tree(tree))
    assert [issue.code for issue in raised.value.issues] == [ErrorCode.NO_RESULT_SETS]

    with pytest.raises(RejectedInput):
        list(read_results_tree(tree / "result_1.txt"))


def test_does_not_follow_a_result_file_linking_out_of_the_tree(tree, tmp_path):
    folder = write_set(tree, [b"inside"])
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    (folder / "result_2.txt").symlink_to(secret)

    files = only_set(tree).files

    assert files[0].data == b"inside"
    assert files[1].data is None and files[1].error.code == ErrorCode.LINK_OUTSIDE_TREE


def test_follows_a_link_that_stays_in_the_tree(tree):
    folder = write_set(tree, [b"inside"])
    (folder / "result_2.txt").symlink_to(folder / "result_1.txt")

    assert [file.data for file in only_set(tree).files] == [b"inside", b"inside"]


def test_does_not_enter_a_folder_linking_out_of_the_tree(tree, tmp_path):
    outside = write_set(tmp_path / "elsewhere", [b"x"])
    (tree / "Org" / "results" / "sys").mkdir(parents=True)
    (tree / "Org" / "results" / "sys" / "ssd").symlink_to(outside)

    result_set = only_set(tree)

    assert result_set.files == () and [issue.code for issue in result_set.errors] == [ErrorCode.LINK_OUTSIDE_TREE]


def test_a_loop_of_links_is_an_unreadable_file(tree):
    folder = write_set(tree, [b"x"])
    (folder / "result_2.txt").symlink_to(folder / "result_2.txt")

    assert only_set(tree).files[1].error.code == ErrorCode.UNREADABLE_FILE


def test_refuses_a_named_pipe_without_waiting_for_a_writer(tree):
    folder = write_set(tree, [b"x"])
    os.mkfifo(folder / "result_2.txt")

    assert only_set(tree).files[1].error.code == ErrorCode.NOT_REGULAR_FILE


def test_refuses_a_result_file_over_the_size_limit_without_reading_it(tree):
    folder = write_set(tree, [b"x"])
    with open(folder / "result_2.txt", "wb") as sparse:
        sparse.truncate(MAX_LOG_BYTES + 1)  # takes no disk: only its size is ever looked at

    refused = only_set(tree).files[1]

    assert refused.data is None and refused.error.code == ErrorCode.FILE_TOO_LARGE


def test_reads_none_of_a_folder_holding_more_result_files_than_any_benchmark_needs(tree):
    write_set(tree, [b"x"] * (MAX_RESULT_FILES + 1))

    result_set = only_set(tree)

    assert result_set.files == ()
    assert [issue.code for issue in result_set.errors] == [ErrorCode.TOO_MANY_RESULT_FILES]


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1.02]",
        "{}",
        '{"scaling_factor": "1.02"}',
        '{"scaling_factor": true}',
        '{"scaling_factor": 0}',
        '{"scaling_factor": -1.5}',
        '{"scaling_factor": NaN}',
        '{"scaling_factor": 1e400}',
        "[" * 50_000,
    ],
    ids=["not json", "array", "no factor", "string", "bool", "zero", "negative", "nan", "overflow", "deep"],
)
def test_refuses_a_scaling_json_without_a_finite_positive_factor(tree, text):
    (write_set(tree, [b"x"]) / "scaling.json").write_text(text)

    result_set = only_set(tree)

    assert result_set.scaling_factor is None
    assert [issue.code for issue in result_set.errors] == [ErrorCode.INVALID_SCALING_FACTOR]


@pytest.mark.parametrize("size_or_text", ["{not json", "[]", MAX_SYSTEM_JSON_BYTES + 1])
def test_an_unreadable_system_description_is_left_out_with_a_warning(tree, size_or_text):
    write_set(tree, [b"x"])
    (tree / "Org" / "systems").mkdir()
    path = tree / "Org" / "systems" / "sys.json"
    if isinstance(size_or_text, int):
        path.write_text('{"a": "' + "x" * size_or_text + '"}')
    else:
        path.write_text(size_or_text)

    result_set = only_set(tree)

    assert result_set.system_json is None and not result_set.errors
    assert [issue.code for issue in result_set.warnings] == [WarningCode.SYSTEM_DESCRIPTION_IGNORED]
