"""Convergence checks: MLCommons' compliance and RCP checkers (mlperf-logging 4.1.68) run on generated MLPerf
Training result files, and MLPerf's one-sided t-test applied to a DAWNBench entry against reference runs."""

from __future__ import annotations

import json
import logging
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from mlperf_logging.rcp_checker import rcp_checker

from dawnboard.formats.mllog import write_mllog
from dawnboard.validation.convergence import (
    FAIL,
    FASTER,
    MISSING,
    PASS,
    PLAUSIBLE,
    compliance_verdict,
    rcp_verdict,
    reference_convergence,
)
from tests.dawnboard.mllog_runs import START_MS, run_records

RULESET = "4.1.0"
SSD_RUNS = 5  # rcp_checker.submission_runs["training"]["ssd"]


def ssd_records(*, converged_at_epoch: float = 4, global_batch_size: int = 256, index: int = 0, **kwargs) -> list:
    """A closed-division ssd run of ruleset 4.1.0 that reaches its target at `converged_at_epoch`."""
    records = run_records(
        compliant_with=RULESET,
        evaluations=((converged_at_epoch / 2, 0.20), (converged_at_epoch, 0.35)),
        start_ms=START_MS + 10_000_000 * index,
        **kwargs,
    )
    return [
        (key, global_batch_size if key == "global_batch_size" else value, time_ms, metadata)
        for key, value, time_ms, metadata in records
    ]


def ssd_set(epochs: list[float], *, global_batch_size: int = 256, **kwargs) -> list[tuple[str, bytes]]:
    """One run per epochs to converge, named as in a results folder."""
    return [
        (
            f"result_{index + 1}.txt",
            write_mllog(
                ssd_records(converged_at_epoch=each, global_batch_size=global_batch_size, index=index, **kwargs)
            ),
        )
        for index, each in enumerate(epochs)
    ]


def rcp_epochs(benchmark: str, global_batch_size: int, *, ruleset: str = RULESET) -> list[float]:
    """The epochs to converge of the package's RCP of that batch size, read from its JSON."""
    path = Path(rcp_checker.__file__).parent / f"training_{ruleset}" / f"rcps_{benchmark}.json"
    records = json.loads(path.read_text())
    return next(record["Epochs to converge"] for record in records.values() if record["BS"] == global_batch_size)


def olympic_mean(values: list[float]) -> float:
    kept = sorted(values)[1:-1]
    return sum(kept) / len(kept)


# --- compliance_verdict ---


def test_a_compliant_run_passes_the_compliance_checker():
    verdict = compliance_verdict(ssd_set([4]), ruleset=RULESET)

    assert verdict.passed and verdict.failures == ()


def test_a_run_missing_a_required_key_fails_with_its_file_named():
    without_optimizer = [record for record in ssd_records(index=1) if record[0] != "opt_name"]
    files = [*ssd_set([4]), ("result_2.txt", write_mllog(without_optimizer))]

    verdict = compliance_verdict(files, ruleset=RULESET)

    assert not verdict.passed
    assert [file for file, _ in verdict.failures] == ["result_2.txt"]
    assert "opt_name" in verdict.failures[0][1]


def test_a_run_stopping_before_it_starts_fails():
    records = ssd_records()
    run_start = next(index for index, record in enumerate(records) if record[0] == "run_start")
    run_stop = records.pop()
    records.insert(run_start, run_stop)

    verdict = compliance_verdict([("result_1.txt", write_mllog(records))], ruleset=RULESET)

    assert not verdict.passed
    assert "run_stop" in verdict.failures[0][1]


def test_a_run_with_unreadable_lines_fails_with_the_parse_errors():
    content = write_mllog(ssd_records()) + b':::MLLOG {"key": \n'

    verdict = compliance_verdict([("result_1.txt", content)], ruleset=RULESET)

    assert not verdict.passed
    assert "parsing errors" in verdict.failures[0][1]
    assert ':::MLLOG {"key":' in verdict.failures[0][1]  # the line, as the checker prints it


def test_a_long_message_is_trimmed():
    records = [record for record in ssd_records() if not record[0].startswith("opt_")]
    records.insert(0, ("opt_name", "x" * 5_000, START_MS, {}))

    verdict = compliance_verdict([("result_1.txt", write_mllog(records))], ruleset=RULESET)

    assert 400 < len(verdict.failures[0][1]) <= 500


@pytest.mark.parametrize("ruleset", ["9.9.9", "../training_4.1.0", "4.1"])
def test_a_ruleset_the_checker_has_no_rules_for_fails_the_whole_check(ruleset):
    verdict = compliance_verdict(ssd_set([4]), ruleset=ruleset)

    assert not verdict.passed
    assert verdict.failures == (("", f"MLCommons' compliance checker has no rules for ruleset {ruleset!r}."),)


def test_no_files_fail_the_compliance_check():
    assert not compliance_verdict([], ruleset=RULESET).passed


def test_the_compliance_checker_prints_and_logs_nothing(capsys, caplog):
    broken = [record for record in ssd_records() if record[0] != "opt_name"]

    with caplog.at_level(logging.DEBUG):
        compliance_verdict([("result_1.txt", write_mllog(broken))], ruleset=RULESET)

    assert capsys.readouterr() == ("", "")
    assert caplog.records == []


def test_the_checkers_leave_a_root_logger_without_handlers_without_handlers(monkeypatch):
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    broken = [record for record in ssd_records() if record[0] != "opt_name"]

    compliance_verdict([("result_1.txt", write_mllog(broken))], ruleset=RULESET)
    rcp_verdict(ssd_set([4] * SSD_RUNS), ruleset=RULESET, benchmark="ssd")

    assert root.handlers == [] and root.filters == []


def test_compliance_verdict_as_dict_lists_each_failure_by_file():
    verdict = compliance_verdict(ssd_set([4]), ruleset="9.9.9")

    assert verdict.as_dict() == {
        "passed": False,
        "failures": [{"file": "", "message": "MLCommons' compliance checker has no rules for ruleset '9.9.9'."}],
        "ruleset": "9.9.9",
    }


# --- rcp_verdict ---


def test_a_set_converging_at_the_rcp_mean_passes_unscaled():
    assert olympic_mean(rcp_epochs("ssd", 256)) == 4  # the package's RCP this test stands on

    verdict = rcp_verdict(ssd_set([4] * SSD_RUNS), ruleset=RULESET, benchmark="ssd")

    assert (verdict.status, verdict.message, verdict.scaling_factor) == (PASS, "RCP found", 1.0)


def test_a_set_converging_faster_than_the_rcp_mean_within_its_speedup_passes_scaled():
    verdict = rcp_verdict(ssd_set([4] * SSD_RUNS, global_batch_size=320), ruleset=RULESET, benchmark="ssd")

    assert verdict.status == PASS
    assert verdict.scaling_factor == pytest.approx(olympic_mean(rcp_epochs("ssd", 320)) / 4)
    assert verdict.scaling_factor > 1


def test_the_figures_are_the_rcps_and_the_sets_olympic_means():
    epochs = [3.9, 4.0, 4.2, 4.0, 5.0]

    verdict = rcp_verdict(ssd_set(epochs, global_batch_size=320), ruleset=RULESET, benchmark="ssd")

    assert verdict.global_batch_size == 320
    assert verdict.submission_mean_epochs == pytest.approx(olympic_mean(epochs))
    assert verdict.rcp_mean_epochs == pytest.approx(olympic_mean(rcp_epochs("ssd", 320)))
    assert 0 < verdict.rcp_min_epochs < verdict.rcp_mean_epochs


def test_a_set_converging_at_a_third_of_the_rcp_mean_fails():
    verdict = rcp_verdict(ssd_set([4 / 3] * SSD_RUNS, global_batch_size=320), ruleset=RULESET, benchmark="ssd")

    assert (verdict.status, verdict.message) == (FAIL, "RCP found")
    assert verdict.submission_mean_epochs < verdict.rcp_min_epochs


def test_a_batch_size_between_two_rcps_is_compared_with_their_interpolation():
    verdict = rcp_verdict(ssd_set([5] * SSD_RUNS, global_batch_size=400), ruleset=RULESET, benchmark="ssd")

    assert (verdict.status, verdict.message) == (PASS, "RCP Interpolation")
    assert olympic_mean(rcp_epochs("ssd", 320)) < verdict.rcp_mean_epochs < olympic_mean(rcp_epochs("ssd", 768))
    assert verdict.scaling_factor == pytest.approx(max(1.0, verdict.rcp_mean_epochs / 5))


def test_a_batch_size_above_every_rcp_is_missing():
    verdict = rcp_verdict(ssd_set([4] * SSD_RUNS, global_batch_size=8192), ruleset=RULESET, benchmark="ssd")

    assert (verdict.status, verdict.message) == (MISSING, "Missing RCP, please submit RCP with BS = 8192")
    assert verdict.scaling_factor is None and verdict.rcp_mean_epochs is None


def test_a_benchmark_without_rcps_under_the_ruleset_is_missing():
    verdict = rcp_verdict(ssd_set([4] * SSD_RUNS), ruleset=RULESET, benchmark="resnet")  # resnet left in 4.1

    assert verdict.status == MISSING and verdict.scaling_factor is None


def test_a_ruleset_the_rcp_checker_does_not_support_is_missing():
    verdict = rcp_verdict(ssd_set([4] * SSD_RUNS), ruleset="0.7.0", benchmark="ssd")

    assert verdict.status == MISSING and "0.7.0" in verdict.message


def test_a_set_with_two_runs_not_converging_fails():
    files = ssd_set([4] * 3) + ssd_set([4] * 2, status="aborted")

    verdict = rcp_verdict(files, ruleset=RULESET, benchmark="ssd")

    assert (verdict.status, verdict.message) == (FAIL, "Insufficient convergence")


def test_files_of_another_benchmark_fail():
    verdict = rcp_verdict(ssd_set([4] * SSD_RUNS), ruleset=RULESET, benchmark="gnn")

    assert verdict.status == FAIL and "'ssd'" in verdict.message


def test_files_disagreeing_on_the_batch_size_fail():
    files = ssd_set([4] * 4) + ssd_set([4], global_batch_size=320)

    verdict = rcp_verdict(files, ruleset=RULESET, benchmark="ssd")

    assert verdict.status == FAIL and "global_batch_size" in verdict.message


def test_a_run_stop_without_status_fails_rather_than_raising():
    files = ssd_set([4] * SSD_RUNS, status=None)

    verdict = rcp_verdict(files, ruleset=RULESET, benchmark="ssd")

    assert verdict.status == FAIL and "KeyError" in verdict.message


def test_the_rcp_check_writes_and_removes_scaling_json_only_in_its_own_folder(monkeypatch):
    folders = []
    for name in ("_set_results_scaling", "_reset_results_scaling"):
        original = getattr(rcp_checker.RCP_Checker, name)
        monkeypatch.setattr(
            rcp_checker.RCP_Checker,
            name,
            lambda self, *args, _original=original: folders.append(args[-1]) or _original(self, *args),
        )

    rcp_verdict(ssd_set([4] * SSD_RUNS, global_batch_size=320), ruleset=RULESET, benchmark="ssd")

    assert folders and all(Path(folder).name.startswith("dawnboard-rcp-") for folder in folders)
    assert all(Path(folder).parent == Path(tempfile.gettempdir()) for folder in folders)


def test_rcp_verdict_as_dict_holds_every_figure():
    verdict = rcp_verdict(ssd_set([4] * SSD_RUNS), ruleset=RULESET, benchmark="ssd")

    assert verdict.as_dict() == {
        "status": PASS,
        "message": "RCP found",
        "scaling_factor": 1.0,
        "ruleset": RULESET,
        "benchmark": "ssd",
        "global_batch_size": 256,
        "submission_mean_epochs": 4.0,
        "rcp_mean_epochs": 4.0,
        "rcp_min_epochs": 4.0,
    }


# --- reference_convergence ---

FOUR_RUNS = [13.0, 10.0, 12.0, 11.0]


def test_the_reference_mean_is_olympic_and_the_stdev_over_every_run():
    result = reference_convergence(11, FOUR_RUNS)

    assert result.reference_mean_epochs == 11.5
    assert result.reference_stdev_epochs == pytest.approx(math.sqrt(1.25))  # population: (2.25+0.25+0.25+2.25)/4


def test_min_epochs_is_the_one_sided_t_tests_bound_for_one_run_against_the_runs_kept():
    result = reference_convergence(11, FOUR_RUNS)

    # t-test of 1 run against the 2 the olympic mean kept, one stdev for both: 1 degree of freedom.
    bound = 11.5 - scipy.stats.t.ppf(0.95, 1) * math.sqrt(1.25) * math.sqrt(1 / 1 + 1 / 2)
    assert result.min_epochs == pytest.approx(bound, abs=1e-4)


def test_an_entry_below_min_epochs_converged_faster():
    result = reference_convergence(2, FOUR_RUNS)

    assert result.status == FASTER
    assert "2 epochs" in result.message and "2.855" in result.message


def test_an_entry_near_the_reference_mean_is_plausible():
    assert reference_convergence(11, FOUR_RUNS).status == PLAUSIBLE


def test_ten_reference_runs_flag_an_entry_at_half_their_mean():
    references = [10.0, 10.0, 11.0, 11.0, 11.0, 12.0, 12.0, 12.0, 13.0, 13.0]

    assert reference_convergence(5, references).status == FASTER


def test_one_reference_run_is_too_few_to_test():
    result = reference_convergence(5, [10.0])

    assert result.status == MISSING
    assert (result.reference_mean_epochs, result.reference_stdev_epochs, result.min_epochs) == (None, None, None)


def test_two_reference_runs_use_their_plain_mean():
    assert reference_convergence(11, [10.0, 13.0]).reference_mean_epochs == 11.5


def test_three_reference_runs_use_their_plain_mean():
    # An olympic mean of three keeps one run: against the entry's one, the t-test would have no degree of freedom.
    result = reference_convergence(11, [10.0, 11.0, 15.0])

    assert result.reference_mean_epochs == 12.0 and result.min_epochs > 0


def test_identical_reference_runs_allow_nothing_below_their_mean():
    result = reference_convergence(12, [12.0, 12.0, 12.0, 12.0])

    assert result.min_epochs == 12.0 and result.reference_stdev_epochs == 0
    assert result.status == PLAUSIBLE
    assert reference_convergence(11.99, [12.0] * 4).status == FASTER


def test_min_epochs_equals_mlperfs_bisection_for_the_same_counts():
    references = rcp_epochs("resnet", 1632, ruleset="4.0.0")  # 17 runs: the olympic mean keeps 15
    checker = rcp_checker.RCP_Checker("training", "4.0.0", "resnet", False)
    checker.submission_runs = 3  # its submission count is submission_runs - 2: one run, as a DAWNBench entry

    result = reference_convergence(30, references)

    expected = checker._find_min_acceptable_mean(np.mean(sorted(references)[1:-1]), np.std(references), 15)
    assert result.min_epochs == expected


def test_non_finite_epochs_are_refused():
    with pytest.raises(ValueError):
        reference_convergence(math.nan, FOUR_RUNS)


def test_reference_convergence_as_dict_holds_every_figure():
    result = reference_convergence(11, FOUR_RUNS)

    assert result.as_dict() == {
        "status": PLAUSIBLE,
        "epochs": 11,
        "reference_epochs": FOUR_RUNS,
        "reference_mean_epochs": 11.5,
        "reference_stdev_epochs": result.reference_stdev_epochs,
        "min_epochs": result.min_epochs,
        "message": result.message,
    }
