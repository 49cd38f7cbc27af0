"""The MLPerf Training rounds written out in dawnboard/rounds.py, checked figure by figure against MLCommons'
installed package (mlperf-logging): the benchmarks of each round, the runs each needs, the runs the olympic mean
drops, and every quality target as the closed division's compliance checker tests it."""

from __future__ import annotations

import inspect
import re
from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest
import yaml
from mlperf_logging import benchmark_meta, compliance_checker
from mlperf_logging.result_summarizer import result_summarizer

from dawnboard.rounds import IN_METADATA, IN_VALUE, TRAINING_ROUNDS, QualityTarget, RoundBenchmark, round_named

CHECKER_DIR = Path(compliance_checker.__file__).parent
ROUND_BENCHMARKS = [
    (training_round, benchmark) for training_round in TRAINING_ROUNDS for benchmark in training_round.benchmarks
]

# One comparison of the check: an optional chained lower end ("0.0 <= "), the value (or one sub-metric of it),
# an operator and a number (or the BEGIN block's s['target_accuracy']).
COMPARISON = re.compile(
    r"(?:(?P<low>[\d.]+)\s*(?P<low_op><=|<)\s*)?v\['value'\](?:\['(?P<sub>\w+)'\])?\s*(?P<op>>=|<=|>|<)\s*"
    r"(?P<number>[\d.]+|s\['target_accuracy'\])"
)
# The exceptions to "one bound and an implausible far end", each handled by name below:
V07_BERT_CHECK = re.compile(
    r"\(v\['value'\] >= (?P<small>[\d.]+) if s\['global_batch_size'\] < (?P<from>\d+) else "
    r"v\['value'\] >= (?P<large>[\d.]+)\) and v\['value'\] < (?P<limit>[\d.]+)"
)
FAR_ENDS = {Decimal("0"), Decimal("1")}  # the plausibility ends checks write beside a target ("< 1.0", "> 0.0")
GPT3_FLOOR = Decimal("2.6")  # gpt3 writes a floor that is neither: its target is the other end, 2.69
TARGET_FROM_BEGIN = {"qwen35_397b_grpo", "dlrmv4"}  # `s['target_accuracy']`, set in the file's BEGIN block


def closed_yaml(training_round, benchmark: RoundBenchmark) -> tuple[Path, list[dict]]:
    path = CHECKER_DIR / f"training_{training_round.ruleset}" / f"closed_{benchmark.name}.yaml"
    return path, parsed_yaml(path)


@cache
def parsed_yaml(path: Path) -> list[dict]:
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def quality_key(blocks: list[dict]) -> dict:
    """The KEY block carrying the target: eval_accuracy, or stable_diffusion's aggregated_eval_accuracy."""
    keys = [block["KEY"] for block in blocks if "KEY" in block and "ATLEAST_ONE_CHECK" in block["KEY"]]
    assert len(keys) == 1, keys
    return keys[0]


def begin_code(blocks: list[dict]) -> str:
    return next((block["BEGIN"]["CODE"] for block in blocks if "BEGIN" in block), "")


def decimal(text: str) -> Decimal:
    return Decimal(text).normalize()


def expected_targets(check: str, blocks: list[dict], benchmark: RoundBenchmark) -> list[dict]:
    """The targets the check states, one per sub-metric, as QualityTarget's fields (bounds normalized)."""
    constraints: dict[str | None, list[tuple[str, Decimal]]] = {}
    for match in COMPARISON.finditer(check):
        number = match["number"]
        if number == "s['target_accuracy']":
            number = re.search(r"'target_accuracy':\s*([\d.]+)", begin_code(blocks))[1]
        found = constraints.setdefault(match["sub"], [])
        found.append((match["op"], decimal(number)))
        if match["low"] is not None:  # "0.0 <= x" is "x >= 0.0"
            found.append((">=" if match["low_op"] == "<=" else ">", decimal(match["low"])))
    if benchmark.name in TARGET_FROM_BEGIN:  # the far end is in the key's CHECK: "0.0 <= v['value'] <= 1.0"
        ranges = [COMPARISON.search(line) for line in quality_key(blocks)["CHECK"]]
        upper = next(match for match in ranges if match and match["low"] is not None)
        constraints[None].append((upper["op"], decimal(upper["number"])))
    targets = []
    for sub_metric, found in constraints.items():
        far = [(op, number) for op, number in found if number in FAR_ENDS or number == GPT3_FLOOR]
        bound = [(op, number) for op, number in found if (op, number) not in far]
        assert len(bound) == 1 and len(far) <= 1, (sub_metric, found)
        op, number = bound[0]
        limit = far[0] if far else (None, None)
        targets.append(
            {
                "sub_metric": sub_metric,
                "bound": number,
                "higher_is_better": op in (">=", ">"),
                "bound_inclusive": op in (">=", "<="),
                "limit": limit[1],
                "limit_inclusive": None if limit[0] is None else limit[0] in (">=", "<="),
            }
        )
    return targets


def as_fields(target: QualityTarget) -> dict:
    return {
        "sub_metric": target.sub_metric,
        "bound": decimal(str(target.bound)),
        "higher_is_better": target.higher_is_better,
        "bound_inclusive": target.bound_inclusive,
        "limit": None if target.limit is None else decimal(str(target.limit)),
        "limit_inclusive": None if target.limit is None else target.limit_inclusive,
    }


def test_the_rounds_are_those_of_the_package_from_v0_7():
    rounds = [name for name in benchmark_meta._ALL_ALLOWED_BENCHMARKS["training"] if name != "0.6"]

    assert [training_round.round for training_round in TRAINING_ROUNDS] == [f"v{name}" for name in rounds]
    assert [training_round.ruleset for training_round in TRAINING_ROUNDS] == [f"{name}.0" for name in rounds]


@pytest.mark.parametrize("training_round", TRAINING_ROUNDS, ids=lambda training_round: training_round.round)
def test_each_round_allows_the_benchmarks_of_the_package(training_round):
    allowed = benchmark_meta.get_allowed_benchmarks("training", training_round.ruleset)

    assert training_round.benchmark_names == tuple(dict.fromkeys(allowed))


def mismatches(check) -> list[str]:
    """Each round's benchmark `check` fails on, with why: one test reports every mismatch of the ~100 pairs."""
    found = []
    for training_round, benchmark in ROUND_BENCHMARKS:
        try:
            check(training_round, benchmark)
        except AssertionError as error:
            found.append(f"{training_round.round} {benchmark.name}: {error}")
    return found


def test_each_benchmark_needs_the_package_s_run_count():
    counts = benchmark_meta.get_result_file_counts("training")

    def check(training_round, benchmark):
        assert benchmark.required_runs == counts[benchmark.name]

    assert mismatches(check) == []


def test_the_olympic_mean_drops_what_the_result_summarizer_drops():
    summarizer = inspect.getsource(result_summarizer._compute_strong_score_standalone)
    assert 'max_dropped_scores = 4 if benchmark == "unet3d" else 1' in summarizer

    for training_round in TRAINING_ROUNDS:
        for benchmark in training_round.benchmarks:
            assert benchmark.dropped_each_side == (4 if benchmark.name == "unet3d" else 1), benchmark.name


def test_each_target_is_the_closed_checker_s():
    assert mismatches(check_targets) == []


def check_targets(training_round, benchmark):
    path, blocks = closed_yaml(training_round, benchmark)
    check = quality_key(blocks)["ATLEAST_ONE_CHECK"].strip()

    assert all(target.source.startswith(f"{path.name}: {check}") for target in benchmark.targets)
    if training_round.round == "v0.7" and benchmark.name == "bert":  # the one target set by the batch size
        parts = V07_BERT_CHECK.fullmatch(check)
        (target,) = benchmark.targets
        assert (target.bound, target.large_batch_bound, target.large_batch_from, target.limit) == (
            Decimal(parts["small"]),
            Decimal(parts["large"]),
            int(parts["from"]),
            Decimal(parts["limit"]),
        )
        assert target.higher_is_better and target.bound_inclusive and not target.limit_inclusive
        return
    expected = expected_targets(check, blocks, benchmark)
    assert [as_fields(target) for target in benchmark.targets] == expected
    assert all(target.large_batch_from is None for target in benchmark.targets)


def test_each_benchmark_counts_progress_with_the_key_its_checker_requires():
    assert mismatches(check_progress_key) == []


def check_progress_key(training_round, benchmark):
    _, blocks = closed_yaml(training_round, benchmark)
    key = quality_key(blocks)
    required = {found for line in key["CHECK"] for found in re.findall(r"'(\w+)' in v\['(?:metadata|value)'\]", line)}

    if key["NAME"] == "aggregated_eval_accuracy":  # FID and CLIP records, grouped by their progress in BEGIN
        assert required - {"FID", "CLIP"} == {benchmark.progress_key}
        assert f"line.value['metadata']['{benchmark.progress_key}']" in begin_code(blocks)
        assert "line.value['metadata']['metric']" in begin_code(blocks)
        assert {target.sub_metric_in for target in benchmark.targets} == {IN_METADATA}
    else:
        assert key["NAME"] == "eval_accuracy"
        assert benchmark.progress_key in required
        assert all(target.sub_metric_in in (None, IN_VALUE) for target in benchmark.targets)
    assert all(target.metric == "eval_accuracy" for target in benchmark.targets)


def test_round_named_finds_a_round_and_names_the_known_ones_otherwise():
    assert round_named("v2.0").ruleset == "2.0.0"

    with pytest.raises(KeyError, match=r"v0\.7, v1\.0.*v6\.1"):
        round_named("v2.2")


def test_a_target_compares_as_the_checker_does_with_the_bound_as_a_float():
    bert = round_named("v4.1").benchmark("bert").targets[0]

    assert bert.reached_by(0.72)  # 0.72 as a float is just under Decimal("0.720"); the checker compares floats
    assert not bert.reached_by(0.7199)
    assert not bert.reached_by(1.0)  # "and v['value'] < 1.0"
    assert not bert.reached_by(float("nan"))


def test_a_lower_is_better_target_counts_down_to_its_floor():
    gpt3 = round_named("v4.1").benchmark("gpt3").targets[0]

    assert gpt3.reached_by(2.69) and gpt3.reached_by(2.61)
    assert not gpt3.reached_by(2.6) and not gpt3.reached_by(2.7)


def test_qwen_must_pass_its_target_strictly():
    qwen = round_named("v6.1").benchmark("qwen35_397b_grpo").targets[0]

    assert not qwen.reached_by(0.69) and qwen.reached_by(0.6901) and qwen.reached_by(1.0)


def test_v0_7_bert_takes_the_lower_target_from_a_global_batch_of_8192():
    bert = round_named("v0.7").benchmark("bert").targets[0]

    assert not bert.reached_by(0.708, global_batch_size=4096)
    assert bert.reached_by(0.708, global_batch_size=8192)
    assert not bert.reached_by(0.708)  # no batch size logged: the stricter target
