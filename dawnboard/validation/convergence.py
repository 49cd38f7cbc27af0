"""Convergence checks: MLCommons' own checkers run on MLPerf Training result files, and MLPerf's one-sided t-test
applied to a DAWNBench entry's epochs to accuracy against Dawnboard's reference runs of its recipe.

- `compliance_verdict`: each result file through MLCommons' compliance checker (`mlperf_logging.compliance_checker`,
  usage "training"), started as its `__main__` and the package checker start it: a fresh `make_checker(...)` per
  file, `check_file(path, "training_<ruleset>/common.yaml")`. common.yaml enqueues `<division>_common.yaml` for the
  file's own submission_division, which enqueues `<division>_<benchmark>.yaml` for its submission_benchmark: a
  closed run is checked against the closed division's rules.
- `rcp_verdict`: a result set through MLCommons' RCP checker (`mlperf_logging.rcp_checker`), as the package
  checker calls it: `check_directory(folder, "training", ruleset, ..., rcp_pass="pruned_rcps")`. Its verdict is
  the authority; the figures beside it (means, least epochs) are read from an `RCP_Checker` of our own, found the
  way `check_directory` finds its record.
- `reference_convergence`: `RCP_Checker.compute_rcp_stats` and `_find_min_acceptable_mean`'s arithmetic over a
  recipe's reference runs, for an entry of one run (the only part written here rather than called).

Both checkers log through the root logger (the module-level `logging.info`/`warning`, which install a stderr
handler with `basicConfig()` when the root logger has none) and may print; while they run, their records are
taken off the root logger (kept for the compliance checker's messages), stdout is swallowed and Python warnings
are ignored. A lock serialises the checks: the compliance checker queues its config files in a module-level list,
and the silencing swaps process-wide state.

`check_directory(..., set_scaling=False)` is not free of side effects: it still calls
`_reset_results_scaling("")`, which deletes `/scaling.json` if there is one. So it is called with
`set_scaling=True` on the temporary folder: it writes and deletes `scaling.json` there, and nowhere else.

Timing (mlperf-logging 4.1.68, a 2-core VM): one compliance check of a generated ssd run (29 records) takes
about 15-20 ms; the RCP check of a set of five, 30-50 ms (two `RCP_Checker`s load the benchmark's RCPs).
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import re
import tempfile
import threading
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from mlperf_logging.rcp_checker import rcp_checker

USAGE = "training"
PRUNED_RCPS = "pruned_rcps"  # the RCP set the package checker tests against
MESSAGE_CHARACTERS = 500
PASS, FAIL, MISSING = "pass", "fail", "missing"  # an RcpVerdict's status
PLAUSIBLE, FASTER = "plausible", "faster"  # a ReferenceConvergence's status, beside MISSING
ALPHA = 0.05  # MLPerf's RCP_Checker.alpha
TOLERANCE = 0.0001  # MLPerf's RCP_Checker.tolerance: the bisection's last interval, in epochs
ENTRY_RUNS = 1  # a DAWNBench entry is one run

_RULESET = re.compile(r"\d+\.\d+\.\d+")
_CHECKERS_LOCK = threading.Lock()


@dataclass(frozen=True)
class ComplianceVerdict:
    """What MLCommons' compliance checker said of a set of result files.

    Attributes:
        passed: every file passed.
        failures: (result file name, the checker's messages for it, joined and trimmed to about 500 characters),
            one per failing file; the name is "" for a failure of the whole check (a ruleset it has no rules for).
        ruleset: the ruleset checked against, e.g. "4.1.0".
    """

    passed: bool
    failures: tuple[tuple[str, str], ...]
    ruleset: str

    def as_dict(self) -> dict:
        return {
            "passed": self.passed,
            "failures": [{"file": file, "message": message} for file, message in self.failures],
            "ruleset": self.ruleset,
        }


def compliance_verdict(files: Sequence[tuple[str, bytes]], *, ruleset: str) -> ComplianceVerdict:
    """Check each MLPerf Training result file with MLCommons' compliance checker.

    Each file is checked on its own against `training_<ruleset>/common.yaml`, which goes on to the rules of the
    division and benchmark the file declares. A ruleset the installed checker has no rules for, or no files at
    all, gives a verdict that did not pass with one failure named "" saying so, rather than an exception: the
    caller shows the set as not compliance-checked.

    Args:
        files: (result file name, its bytes); the name is only used to report failures.
        ruleset: the training ruleset, e.g. "4.1.0".
    """
    from mlperf_logging.compliance_checker import mlp_compliance  # ~1 s to import: only when used

    config_file = f"{USAGE}_{ruleset}/common.yaml"
    checker_folder = Path(mlp_compliance.__file__).parent
    if not _RULESET.fullmatch(ruleset) or not (checker_folder / config_file).is_file():
        failure = ("", f"MLCommons' compliance checker has no rules for ruleset {ruleset!r}.")
        return ComplianceVerdict(False, (failure,), ruleset)
    if not files:
        return ComplianceVerdict(False, (("", "No result files to check."),), ruleset)
    failures = []
    with tempfile.TemporaryDirectory(prefix="dawnboard-compliance-") as folder:
        for index, (name, content) in enumerate(files):
            path = Path(folder) / f"result_{index}.txt"  # never the submitted name: it could point anywhere
            path.write_bytes(content)
            message = _compliance_failure(path, config_file, ruleset)
            if message is not None:
                failures.append((name, _trimmed(message)))
    return ComplianceVerdict(not failures, tuple(failures), ruleset)


def _compliance_failure(path: Path, config_file: str, ruleset: str) -> str | None:
    """The checker's messages for one file, or None where it passed."""
    from mlperf_logging.compliance_checker import mlp_compliance  # ~1 s to import: only when used

    checker = mlp_compliance.make_checker(USAGE, ruleset, quiet=False, werror=False)
    with _CHECKERS_LOCK, _mlperf_logging_silenced() as records:
        mlp_compliance.enqueued_configs.clear()  # a check that raised may have left configs queued
        try:
            passed = checker.check_file(str(path), config_file)
        except Exception as error:  # its yaml rules run eval(); a hostile log can make one raise
            return f"MLCommons' compliance checker stopped with {type(error).__name__}: {error}"
        finally:
            mlp_compliance.enqueued_configs.clear()
    if passed:
        return None
    printed = [record.getMessage().strip() for record in records if record.levelno >= logging.WARNING]
    # Where the root logger's level hides warnings, the messages it keeps are all there is.
    kept = [*checker.warnings.values(), *checker.overwritable.values(), *checker.not_overwritable]
    return "\n".join(printed or kept)


@dataclass(frozen=True)
class RcpVerdict:
    """What MLCommons' RCP checker said of a result set's epochs to converge, with the figures behind it.

    Attributes:
        status: PASS, FAIL or MISSING (no reference convergence point to compare with).
        message: the checker's own message ("RCP found", "RCP Interpolation", "Missing RCP, please submit RCP
            with BS = 4096", "Insufficient convergence"...), or ours where it could not be run.
        scaling_factor: the score's normalisation factor the checker implies (>= 1.0; 1.0 when none); None where
            no RCP was compared.
        ruleset: the training ruleset, e.g. "4.1.0".
        benchmark: the benchmark, e.g. "ssd".
        global_batch_size: the set's batch size as the checker reads it; None where it found none.
        submission_mean_epochs: the set's olympic mean of epochs (samples, for some benchmarks) to converge, a run
            that did not converge counting as 1e9, as the checker counts it.
        rcp_mean_epochs: the compared RCP's olympic mean (interpolated between two RCPs where the checker does).
        rcp_min_epochs: the least mean the RCP allows (its mean over its max speedup).
    """

    status: str
    message: str
    scaling_factor: float | None
    ruleset: str
    benchmark: str
    global_batch_size: int | None = None
    submission_mean_epochs: float | None = None
    rcp_mean_epochs: float | None = None
    rcp_min_epochs: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def rcp_verdict(files: Sequence[tuple[str, bytes]], *, ruleset: str, benchmark: str) -> RcpVerdict:
    """Compare a result set's epochs to converge with MLCommons' reference convergence points (RCPs).

    MISSING where the installed checker has no RCPs for the benchmark under the ruleset, or none it can compare
    the set's batch size with ("Missing RCP...", "Cannot find any RCPs"); FAIL where the files cannot be compared
    (they name another benchmark, disagree on it or on the batch size, or the checker cannot read them) and where
    the checker fails the set.

    Args:
        files: (result file name, its bytes), the set's runs.
        ruleset: the training ruleset, e.g. "4.1.0".
        benchmark: the benchmark of the set's folder, e.g. "ssd".
    """
    from mlperf_logging.rcp_checker import rcp_checker  # ~1 s to import: only when used

    verdict = RcpVerdict(MISSING, "", None, ruleset, benchmark)
    try:
        with _CHECKERS_LOCK, _mlperf_logging_silenced():
            checker = rcp_checker.RCP_Checker(USAGE, ruleset, benchmark, False)
    except (FileNotFoundError, KeyError):
        return replace(verdict, message=f"MLCommons' RCP checker has no RCPs for {benchmark} under ruleset {ruleset}.")
    except Exception:  # raised, as a bare Exception, for a ruleset it does not support
        return replace(verdict, message=f"MLCommons' RCP checker does not support ruleset {ruleset!r}.")
    if not files:
        return replace(verdict, status=FAIL, message="No result files to compare.")
    with tempfile.TemporaryDirectory(prefix="dawnboard-rcp-") as folder:
        for index, (_, content) in enumerate(files):
            (Path(folder) / f"result_{index}.txt").write_bytes(content)  # the names check_directory globs
        with _CHECKERS_LOCK, _mlperf_logging_silenced():
            try:
                return _checked_set(checker, folder, verdict)
            except Exception as error:  # it reads each line with json.loads and indexes what it finds
                message = f"MLCommons' RCP checker could not read the result files: {type(error).__name__}: {error}"
                return replace(verdict, status=FAIL, message=message)


def _checked_set(checker: rcp_checker.RCP_Checker, folder: str, verdict: RcpVerdict) -> RcpVerdict:
    from mlperf_logging.rcp_checker import rcp_checker  # ~1 s to import: only when used

    paths = sorted(str(path) for path in Path(folder).glob("result_*.txt"))
    batch_size, epochs, files_benchmark = rcp_checker.get_submission_epochs(paths, verdict.ruleset, False)
    if files_benchmark != verdict.benchmark:  # check_directory would take the files' word (or crash on None)
        return replace(
            verdict, status=FAIL, message=_benchmark_mismatch(files_benchmark, batch_size, verdict.benchmark)
        )
    passed, message, scaling_factor = rcp_checker.check_directory(
        folder, USAGE, verdict.ruleset, False, False, rcp_pass=PRUNED_RCPS, set_scaling=True
    )
    if passed:
        status = PASS
    elif message.startswith("Missing RCP") or message.startswith("Cannot find any RCPs"):
        status = MISSING
    else:
        status = FAIL
    figures = {"global_batch_size": batch_size if isinstance(batch_size, int) and batch_size != -1 else None}
    if epochs is not None and figures["global_batch_size"] is not None:
        figures["submission_mean_epochs"] = _submission_mean_epochs(epochs, verdict.benchmark)
        record = _compared_record(checker, batch_size)
        if record is not None:
            # As check_directory evaluates it: for some benchmarks this first adjusts the record's max speedup.
            checker._eval_submission_record(record, list(epochs), folder)
            figures["rcp_mean_epochs"] = float(record["RCP Mean"])
            figures["rcp_min_epochs"] = float(record["RCP Mean"] / record["Max Speedup"])
            figures["scaling_factor"] = float(scaling_factor)
    return replace(verdict, status=status, message=message, **figures)


def _benchmark_mismatch(files_benchmark: str | None, batch_size: object, benchmark: str) -> str:
    if files_benchmark is not None:
        return f"The result files' submission_benchmark is {files_benchmark!r}, not {benchmark!r}."
    if batch_size == -1:
        return "The result files do not agree on one global_batch_size and one submission_benchmark."
    return "The result files name no submission_benchmark."


def _compared_record(checker: rcp_checker.RCP_Checker, batch_size: int) -> dict | None:
    """The RCP record check_directory compares a set of `batch_size` with: the RCP of that batch size, one
    interpolated between the nearest below and above, or the smallest where every RCP's is larger; else None."""
    found = checker._find_rcp(batch_size, PRUNED_RCPS)
    if found is not None:
        return found
    below = checker._find_top_min_rcp(batch_size, PRUNED_RCPS)
    above = checker._find_bottom_max_rcp(batch_size, PRUNED_RCPS)
    if below is not None and above is not None:
        return checker._create_interp_rcp(batch_size, below, above)[1]
    if below is None and above is not None:
        return checker._find_min_rcp(PRUNED_RCPS)
    return None


def _submission_mean_epochs(epochs: Sequence[float], benchmark: str) -> float | None:
    """The olympic mean `RCP_Checker._eval_submission_record` takes (4 dropped each side for unet3d, else 1)."""
    dropped_each_side = 4 if benchmark == "unet3d" else 1
    kept = sorted(epochs)[dropped_each_side : len(epochs) - dropped_each_side]
    return float(np.mean(kept)) if kept else None


@dataclass(frozen=True)
class ReferenceConvergence:
    """An entry's epochs to accuracy against the reference runs of its recipe.

    Attributes:
        status: PLAUSIBLE, FASTER ("converged faster than its reference runs") or MISSING (too few reference runs
            to test).
        epochs: the entry's epochs to accuracy.
        reference_epochs: the reference runs' epochs to accuracy, as given.
        reference_mean_epochs: their mean (olympic from 4 runs); None where MISSING.
        reference_stdev_epochs: their population standard deviation; None where MISSING.
        min_epochs: the least epochs the reference runs allow at `alpha`; None where MISSING.
        message: one sentence with the figures, for the entry's page.
    """

    status: str
    epochs: float
    reference_epochs: tuple[float, ...]
    reference_mean_epochs: float | None
    reference_stdev_epochs: float | None
    min_epochs: float | None
    message: str

    def as_dict(self) -> dict:
        return {**asdict(self), "reference_epochs": list(self.reference_epochs)}


def reference_convergence(
    epochs: float, reference_epochs: Sequence[float], *, alpha: float = ALPHA, min_reference_runs: int = 2
) -> ReferenceConvergence:
    """Flag an entry whose epochs to accuracy are below what the reference runs of its recipe allow.

    MLPerf's RCP checker arithmetic (`RCP_Checker.compute_rcp_stats`, `_find_min_acceptable_mean`,
    `_find_p_value`): the reference mean is the olympic mean, the fastest and the slowest run dropped; the stdev
    is numpy's population stdev over every run; the least acceptable epochs are found by bisection between 0 and
    the mean (to 0.0001 epochs) for the one-sided p-value of scipy's equal-variance t-test
    (`ttest_ind_from_stats`) to stay above `alpha`, both sides given the reference's stdev, the reference counted
    as the runs its mean kept. Where it differs:
    - the entry counts as one run (MLPerf counts a submission as its required runs less the 2 dropped);
    - with 2 or 3 reference runs the mean is the plain mean of all, all counted: an olympic mean of 3 keeps one
      run, and one run against one leaves the t-test no degree of freedom (MLPerf's RCPs have many more).
    A stdev of 0 allows nothing below the mean, as in MLPerf.

    Args:
        epochs: the entry's epochs to accuracy.
        reference_epochs: the epochs to accuracy of each reference run of the entry's recipe.
        alpha: the one-sided test's level.
        min_reference_runs: fewer reference runs than this give MISSING (at least 2: the test needs them).

    Raises:
        ValueError: a figure that is not finite, alpha outside (0, 1), or min_reference_runs under 2.
    """
    if not all(math.isfinite(value) for value in (epochs, *reference_epochs)):
        raise ValueError("Epochs to accuracy must be finite numbers.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie between 0 and 1, not {alpha}.")
    if min_reference_runs < 2:
        raise ValueError(f"min_reference_runs must be at least 2 (the t-test needs them), not {min_reference_runs}.")
    epochs, references = float(epochs), tuple(float(value) for value in reference_epochs)
    runs = len(references)
    if runs < min_reference_runs:
        message = (
            f"Converged in {epochs:g} epochs; {runs} reference run{'s' if runs != 1 else ''} of its recipe, "
            f"{min_reference_runs} needed to test it."
        )
        return ReferenceConvergence(MISSING, epochs, references, None, None, None, message)
    kept = sorted(references)[1:-1] if runs >= 4 else sorted(references)
    mean = float(np.mean(kept))
    stdev = float(np.std(references))
    min_epochs = _min_acceptable_mean_epochs(
        mean, stdev, reference_runs=len(kept), submission_runs=ENTRY_RUNS, alpha=alpha
    )
    figures = f"{runs} reference runs allow (mean {mean:.4g}, stdev {stdev:.3g}, one-sided t-test at {alpha:g})"
    if epochs < min_epochs:
        message = f"Converged in {epochs:g} epochs, below the {min_epochs:.4g} its {figures}."
        return ReferenceConvergence(FASTER, epochs, references, mean, stdev, min_epochs, message)
    message = f"Converged in {epochs:g} epochs, within the {min_epochs:.4g} or more its {figures}."
    return ReferenceConvergence(PLAUSIBLE, epochs, references, mean, stdev, min_epochs, message)


def _min_acceptable_mean_epochs(
    mean: float, stdev: float, *, reference_runs: int, submission_runs: int, alpha: float = ALPHA
) -> float:
    """The least mean epochs the one-sided t-test accepts against a reference of `mean` and `stdev`: MLPerf's
    `RCP_Checker._find_min_acceptable_mean` (its `submission_runs - 2` is `submission_runs` here), the same
    arithmetic in the same order. `reference_runs + submission_runs` must exceed 2."""
    import scipy.stats  # ~0.5 s to import: only when used

    if stdev == 0:
        return mean
    low, high = 0.0, mean
    middle = (low + high) / 2
    while high - low > TOLERANCE:
        # Argument order as MLPerf's: the count labelled the reference's goes with the candidate mean. With one
        # stdev for both the test is symmetric in the counts, so the order changes no result but its last bits.
        t_statistic, p_value = scipy.stats.ttest_ind_from_stats(
            middle, stdev, reference_runs, mean, stdev, submission_runs, equal_var=True
        )
        one_sided = p_value / 2 if t_statistic < 0 else 1 - p_value / 2
        if one_sided > alpha:
            high = middle
        else:
            low = middle
        middle = (low + high) / 2
    return middle


@contextlib.contextmanager
def _mlperf_logging_silenced() -> Iterator[list[logging.LogRecord]]:
    """Take the records this thread logs straight to the root logger (as both checkers do) off it, yielding
    them; swallow stdout and Python warnings. Restores all on the way out."""
    root = logging.getLogger()
    records: list[logging.LogRecord] = []
    thread = threading.get_ident()

    def taken(record: logging.LogRecord) -> bool:
        if record.name == root.name and record.thread == thread:
            records.append(record)
            return False
        return True

    placeholder = None
    if not root.handlers:  # else logging.warning() would install a stderr handler for good
        placeholder = logging.NullHandler()
        root.addHandler(placeholder)
    root.addFilter(taken)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield records
    finally:
        root.removeFilter(taken)
        if placeholder is not None:
            root.removeHandler(placeholder)


def _trimmed(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARACTERS else text[: MESSAGE_CHARACTERS - 1] + "…"
