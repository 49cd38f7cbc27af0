"""The MLLOG file beside the TSV: MLCommons' parser reads it, and its score is the TSV's time to accuracy."""

from __future__ import annotations

import json

import pytest
from mlperf_logging.compliance_checker.mlp_parser import parse_file
from mlperf_logging.mllog import constants

from benchmarks.runner.config import RunConfig
from benchmarks.runner.job import reference_run
from benchmarks.runner.mlperf_log import eval_accuracy
from dawnboard.formats.dawnbench import read_training_log
from dawnboard.rules import Scale, current_rules

RULESET = "4.1.0"  # mlperf-logging 4.1's training rules


@pytest.fixture(scope="module")
def digits_run(tmp_path_factory):
    return reference_run(RunConfig(task="digits", recipe="cnn", seed=0), tmp_path_factory.mktemp("digits"))


def events(path: str) -> list:
    lines, errors = parse_file(path, ruleset=RULESET)
    assert errors == []
    return lines


def first(lines: list, key: str):
    return next(line for line in lines if line.key == key)


def test_the_mllog_is_written_beside_the_tsv_and_kept_for_submission(digits_run):
    paths = digits_run.written.paths

    assert paths["mllog"] == paths["log"].removesuffix(".tsv") + ".mllog"
    assert open(paths["mllog"], "rb").read() == digits_run.written.mllog_bytes
    assert digits_run.as_dict()["paths"]["mllog"] == paths["mllog"]


def test_run_stop_less_run_start_is_the_tsv_s_time_to_accuracy_to_the_millisecond(digits_run):
    lines = events(digits_run.written.paths["mllog"])
    rules = current_rules("digits")
    log = read_training_log(digits_run.written.log_bytes, rules).log
    crossing = next(index for index, quality in enumerate(log.metric) if quality >= float(rules.threshold))

    score_ms = first(lines, constants.RUN_STOP).timestamp - first(lines, constants.RUN_START).timestamp

    assert score_ms == pytest.approx(log.hours[crossing] * 3_600_000, abs=1.0)


def test_the_log_has_the_submission_the_sizes_and_every_phase(digits_run):
    lines = events(digits_run.written.paths["mllog"])
    value = {line.key: line.value["value"] for line in lines}

    assert value[constants.SUBMISSION_BENCHMARK] == "digits"
    assert value[constants.SUBMISSION_ORG] == "Dawnboard reference"
    assert value[constants.SUBMISSION_DIVISION] == constants.OPEN
    assert value[constants.SUBMISSION_STATUS] == constants.ONPREM
    assert (value[constants.SEED], value[constants.GLOBAL_BATCH_SIZE]) == (0, 64)
    assert (value[constants.TRAIN_SAMPLES], value[constants.EVAL_SAMPLES]) == (1347, 450)
    keys = [line.key for line in lines]
    assert keys.index(constants.INIT_START) < keys.index(constants.INIT_STOP) < keys.index(constants.RUN_START)
    assert keys[-1] == constants.RUN_STOP
    assert first(lines, constants.RUN_STOP).value["metadata"][constants.STATUS] == constants.SUCCESS
    assert first(lines, constants.INIT_STOP).timestamp <= first(lines, constants.RUN_START).timestamp


def test_each_epoch_is_logged_with_its_accuracy_as_a_fraction_and_evaluation_takes_no_time(digits_run):
    lines = events(digits_run.written.paths["mllog"])
    curve = digits_run.result.evaluations

    for key in (constants.EPOCH_START, constants.EPOCH_STOP, constants.EVAL_START, constants.EVAL_STOP):
        assert [line.value["metadata"][constants.EPOCH_NUM] for line in lines if line.key == key] == [
            point.epoch for point in curve
        ]
    accuracies = [line for line in lines if line.key == constants.EVAL_ACCURACY]
    assert [line.value["value"] for line in accuracies] == pytest.approx([point.quality / 100 for point in curve])
    assert [line.value["metadata"][constants.EPOCH_NUM] for line in accuracies] == [point.epoch for point in curve]
    starts = [line.timestamp for line in lines if line.key == constants.EVAL_START]
    stops = [line.timestamp for line in lines if line.key == constants.EVAL_STOP]
    assert starts == stops


def test_the_record_keeps_the_machine_s_load_and_the_command_sees_it(digits_run):
    record = json.loads(open(digits_run.written.paths["record"]).read())

    load = record["machine_load"]
    assert {"cpu_count", "load_average_start", "load_average_end", "other_cpu_seconds", "busy"} <= set(load)
    assert record["phases"]["warm_up_steps"] > 0
    assert digits_run.as_dict()["busy"] is load["busy"]
    assert digits_run.as_dict()["machine_load"]["cpu_count"] == load["cpu_count"]


def test_a_run_short_of_the_threshold_is_logged_as_aborted(tmp_path):
    report = reference_run(RunConfig(task="digits", recipe="cnn", seed=0, max_epochs=1), tmp_path)

    lines = events(report.written.paths["mllog"])

    assert first(lines, constants.RUN_STOP).value["metadata"][constants.STATUS] == constants.ABORTED


def test_accuracy_in_percent_is_logged_as_a_fraction_and_a_fraction_as_itself():
    assert eval_accuracy(98.0, Scale.PERCENT) == pytest.approx(0.98)
    assert eval_accuracy(0.75, Scale.FRACTION) == 0.75
