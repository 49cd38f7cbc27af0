"""An algorithm's results bundle, as `run_algorithm` writes it and the site judges it: every time and score recomputed
from its trial logs, never read from its `results.json`, which is read only for what the logs cannot say (the
suite, the ruleset, which folder is the algorithm and which the reference).

The bundle is a zip or tar archive (gzip allowed) of the folder `run_algorithm` writes:

    results.json
    <algorithm>/study_<k>/<workload>/trial_<j>/eval_measurements.csv   (and hyperparameters.json beside it)
    reference-<reference>/study_<k>/<workload>/trial_<j>/eval_measurements.csv

optionally inside one top folder. It is refused whole (`invalid_bundle`, naming the member or the field) when it is
not such an archive, holds a link or a path out of it, or is past the limits below; and (`dawnboard.algorithms.
results`, strictly) when a workload, study, trial or log of the suite's ruleset is missing or a log is broken.
"""

from __future__ import annotations

import io
import json
import math
import posixpath
import tarfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dawnboard.algorithms.results import FRAMEWORK_SUFFIX, TRIAL_PATH, SubmissionLogs, read_results
from dawnboard.algorithms.scoring import Target, held_out_gated, performance_profiles, speedups
from dawnboard.algorithms.suites import RULESETS, SuiteRules
from dawnboard.algorithms.trial_log import STEP, TIME
from dawnboard.errors import ErrorCode, Issue, RejectedInput

RESULTS_NAME = "results.json"
MAX_MEMBERS = 20_000  # the CPU suite's defaults write about 400 files; a study of a dozen workloads, a few thousand
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
REFERENCE_PREFIX = "reference-"


def bundle_files(archive: bytes) -> dict[str, bytes]:
    """The regular files of a zip or tar(.gz) archive by their relative paths, one shared top folder taken off.

    Raises:
        RejectedInput: `invalid_bundle` for anything else: a member that is a link or device, an absolute path or
            one with `..`, more than MAX_MEMBERS members or MAX_UNPACKED_BYTES unpacked.
    """
    if zipfile.is_zipfile(io.BytesIO(archive)):
        files = _zip_members(archive)
    else:
        try:
            with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
                files = _tar_members(tar)
        except (tarfile.TarError, EOFError, OSError) as error:
            raise _invalid(f"The bundle is neither a zip nor a tar archive ({error}).", "bundle") from None
    return _without_top_folder(files)


def bundle_archive(files: Mapping[str, bytes]) -> bytes:
    """A zip archive of `files` (relative path -> bytes), as `bundle_files` reads it back."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for path in sorted(files):
            bundle.writestr(_safe_path(path), files[path])
    return buffer.getvalue()


def _zip_members(archive: bytes) -> dict[str, bytes]:
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as bundle:
            members = [member for member in bundle.infolist() if not member.is_dir()]
            _check_sizes(len(members), sum(member.file_size for member in members))
            files, unpacked = {}, 0
            for member in members:
                if (member.external_attr >> 16) & 0o170000 == 0o120000:
                    raise _invalid(f"{member.filename}: a symbolic link; a bundle holds plain files.", member.filename)
                data = _read_capped(bundle.open(member), member.filename)
                unpacked += len(data)  # the sizes a zip declares can lie: what is read counts
                _check_sizes(len(members), unpacked)
                files[_safe_path(member.filename)] = data
            return files
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError) as error:
        raise _invalid(f"The zip archive cannot be read ({error}).", "bundle") from None


def _tar_members(tar: tarfile.TarFile) -> dict[str, bytes]:
    files, count, size = {}, 0, 0
    for member in tar:
        count += 1
        if member.isdir():
            continue
        if not member.isfile():
            raise _invalid(f"{member.name}: a link or special file; a bundle holds plain files.", member.name)
        size += member.size
        _check_sizes(count, size)
        files[_safe_path(member.name)] = _read_capped(tar.extractfile(member), member.name)
    return files


def _check_sizes(count: int, size: int) -> None:
    if count > MAX_MEMBERS:
        raise _invalid(f"The bundle holds more than {MAX_MEMBERS:,} files.", "bundle")
    if size > MAX_UNPACKED_BYTES:
        raise _invalid(f"The bundle unpacks to more than {MAX_UNPACKED_BYTES:,} bytes.", "bundle")


def _read_capped(stream, name: str) -> bytes:
    """A member's bytes, never more than the whole bundle's limit (a size field can lie)."""
    data = stream.read(MAX_UNPACKED_BYTES + 1)
    if len(data) > MAX_UNPACKED_BYTES:
        raise _invalid(f"{name} unpacks to more than {MAX_UNPACKED_BYTES:,} bytes.", name)
    return data


def _safe_path(name: str) -> str:
    path = name.replace("\\", "/")
    normal = posixpath.normpath(path)
    if path.startswith("/") or normal == ".." or normal.startswith("../") or "\x00" in path:
        raise _invalid(f"{name}: a path out of the bundle.", name)
    return normal


def _without_top_folder(files: dict[str, bytes]) -> dict[str, bytes]:
    if RESULTS_NAME in files or not files:
        return files
    tops = {path.split("/", 1)[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):
        top = tops.pop() + "/"
        return {path.removeprefix(top): data for path, data in files.items()}
    return files


@dataclass(frozen=True)
class TrialCurve:
    """One trial as the algorithm's page draws it: its evaluations' times, steps and target metric."""

    contender: str  # "algorithm" or "reference"
    workload: str
    study: int
    trial: int
    hyperparameters: dict[str, Any] | None
    time_to_target_s: float | None
    times_s: list[float]
    steps: list[int]
    metric: list[float | None]


@dataclass(frozen=True)
class JudgedBundle:
    """A bundle's verdict: each workload's time (the median over studies of the fastest trial's), the algorithm's
    and its reference's, before any rule that compares submissions; the performance-profile score of the two
    together and the geometric-mean speedup over the reference, both over the base workloads each gated by its
    held-out variant."""

    suite: str
    ruleset: str
    algorithm: str
    reference: str
    held_out: dict[str, str]  # variant -> base, the variants the bundle ran
    times: dict[str, float]  # workload -> seconds, infinity where never reached
    reference_times: dict[str, float]
    score: float
    geomean_speedup: float | None
    speedups: dict[str, float | None]
    curves: list[TrialCurve]
    warnings: list[Issue] = field(default_factory=list)


def judge_bundle(files: Mapping[str, bytes], suites: Mapping[str, SuiteRules]) -> JudgedBundle:
    """The verdict on a bundle's files (relative path -> bytes, as `bundle_files` gives them).

    Raises:
        RejectedInput: `invalid_bundle` for its results.json; the results reader's codes for its logs and gaps.
    """
    document = _results_document(files)
    suite, ruleset = _suite_and_ruleset(document, suites)
    algorithm, reference = _names(document)
    folders = {
        "algorithm": algorithm,
        "reference": algorithm if reference == algorithm else REFERENCE_PREFIX + reference,
    }
    present = {path.split("/", 1)[0] for path in files if "/" in path}
    for role, folder in folders.items():
        if folder not in present:
            raise _invalid(f"No folder {folder}/: the bundle holds no logs of its {role}.", folder)
    held_out = _held_out(files, folders["algorithm"], suite)
    workloads = [*suite.base_workloads, *held_out]
    ours = {path: data for path, data in files.items() if path.split("/", 1)[0] in folders.values()}
    logs = read_results(
        ours, workloads=workloads, studies=suite.studies, trials=suite.trials_per_study(ruleset), strict=True
    ).submissions
    targets = {name: suite.workload(name).target for name in workloads}
    budgets = suite.budgets_s(ruleset)
    times = logs[folders["algorithm"]].times(targets, suite.studies, budgets)
    reference_times = logs[folders["reference"]].times(targets, suite.studies, budgets)
    profiles = performance_profiles(
        {"algorithm": times, "reference": reference_times}, suite.base_workloads, variants=held_out
    )
    speeds = speedups(held_out_gated(times, held_out), held_out_gated(reference_times, held_out), suite.base_workloads)
    curves = [
        curve
        for role, folder in folders.items()
        if role == "algorithm" or folder != folders["algorithm"]
        for curve in trial_curves(role, logs[folder], files, folder, targets, budgets)
    ]
    return JudgedBundle(
        suite=suite.name, ruleset=ruleset, algorithm=algorithm, reference=reference, held_out=held_out,
        times=times, reference_times=reference_times, score=profiles.score("algorithm"),
        geomean_speedup=speeds.geometric_mean, speedups=speeds.per_workload, curves=curves,
    )  # fmt: skip


def _results_document(files: Mapping[str, bytes]) -> dict:
    if RESULTS_NAME not in files:
        raise _invalid(f"The bundle holds no {RESULTS_NAME} (run_algorithm writes it beside the logs).", RESULTS_NAME)
    try:
        document = json.loads(files[RESULTS_NAME])
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise _invalid(f"{RESULTS_NAME} is not JSON ({error}).", RESULTS_NAME) from None
    if not isinstance(document, dict):
        raise _invalid(f"{RESULTS_NAME} is not a JSON object.", RESULTS_NAME)
    return document


def _suite_and_ruleset(document: dict, suites: Mapping[str, SuiteRules]) -> tuple[SuiteRules, str]:
    suite, ruleset = document.get("suite"), document.get("ruleset")
    if not isinstance(suite, str) or suite not in suites:
        raise _invalid(f"suite is {suite!r}; the site scores the suites {', '.join(suites)}.", "suite")
    if ruleset not in RULESETS:
        raise _invalid(f"ruleset is {ruleset!r}; one of {', '.join(RULESETS)}.", "ruleset")
    return suites[suite], ruleset


def _names(document: dict) -> tuple[str, str]:
    names = []
    for key in ("algorithm", "reference"):
        value = document.get(key)
        if not isinstance(value, str) or not value or "/" in value or value in {".", ".."} or len(value) > 100:
            raise _invalid(f"{key} is {value!r}: the name of the folder of its logs is expected.", key)
        names.append(value)
    return names[0], names[1]


def _held_out(files: Mapping[str, bytes], folder: str, suite: SuiteRules) -> dict[str, str]:
    """The held-out variants the algorithm ran, at most one a base workload."""
    ran = {
        FRAMEWORK_SUFFIX.sub("", match["workload"])
        for path in files
        if (match := TRIAL_PATH.match(path)) is not None and match["submission"] == folder
    }
    held_out = {variant: base for variant, base in suite.variants.items() if variant in ran}
    for base in set(held_out.values()):
        chosen = sorted(variant for variant, its_base in held_out.items() if its_base == base)
        if len(chosen) > 1:
            raise _invalid(
                f"{base}: logs of {len(chosen)} held-out variants ({', '.join(chosen)}); one is sampled.", base
            )
    return held_out


def trial_curves(
    role: str,
    logs: SubmissionLogs,
    files: Mapping[str, bytes],
    folder: str,
    targets: Mapping[str, Target],
    budgets: Mapping[str, float],
) -> list[TrialCurve]:
    """Every trial of `logs` that left a log, as the algorithm's page draws it (`files` for its hyperparameters,
    under `folder`)."""
    curves = []
    for workload, by_study in sorted(logs.trials.items()):
        for study, by_trial in sorted(by_study.items()):
            for trial, log in sorted(by_trial.items()):
                if log is None:
                    continue
                metric = [None if math.isnan(value) else float(value) for value in log.metric(targets[workload].metric)]
                curves.append(
                    TrialCurve(
                        contender=role, workload=workload, study=study, trial=trial,
                        hyperparameters=_hyperparameters(files, f"{folder}/study_{study}/{workload}/trial_{trial}"),
                        time_to_target_s=logs.trial_time(workload, study, trial, targets[workload], budgets),
                        times_s=[float(value) for value in log.columns[TIME]],
                        steps=[int(value) for value in log.columns[STEP]], metric=metric,
                    )
                )  # fmt: skip
    return curves


def _hyperparameters(files: Mapping[str, bytes], trial_folder: str) -> dict[str, Any] | None:
    """The trial's point of the search space as its hyperparameters.json (AlgoPerf: hparams.json) says, its workload
    folder with or without AlgoPerf's framework suffix (shown, never scored); None when absent or not a JSON object."""
    study, workload, trial = trial_folder.rsplit("/", 2)
    for folder in (workload, f"{workload}_pytorch", f"{workload}_jax"):
        for name in ("hyperparameters.json", "hparams.json"):
            data = files.get(f"{study}/{folder}/{trial}/{name}")
            if data is None:
                continue
            try:
                point = json.loads(data)
            except (json.JSONDecodeError, UnicodeDecodeError):
                return None
            return point if isinstance(point, dict) else None
    return None


def _invalid(message: str, field_name: str) -> RejectedInput:
    return RejectedInput(Issue(ErrorCode.INVALID_BUNDLE, message, field=field_name))
