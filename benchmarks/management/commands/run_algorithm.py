"""`manage.py run_algorithm ALGORITHM`: a training algorithm over the CPU suite under a tuning ruleset, beside a
reference baseline run the same way, scored in AlgoPerf's manner (`benchmarks.algorithms.suite`).

ALGORITHM is a shipped baseline's name or the path of a submission module: the user's own code, run here on the
user's machine (the site never runs submitted code)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from benchmarks.algorithms.baselines import BASELINES, search_space
from benchmarks.algorithms.runner import algorithm_module
from benchmarks.algorithms.suite import SUITES, Contender, Tuning, local_executor, run_contender, suite_document
from benchmarks.algorithms.workloads import sampled_held_out
from benchmarks.services import NoResultBackend, algorithm_bundle_send, queue_executor
from benchmarks.workloads.base import DatasetMissing
from dawnboard.algorithms.search_space import SearchSpaceError
from dawnboard.algorithms.search_space import search_space as read_search_space


class Command(BaseCommand):
    help = "Run a training algorithm over a suite of fixed workloads under a tuning ruleset and score it."

    def add_arguments(self, parser):
        parser.add_argument(
            "algorithm", help=f"A submission module (.py) or a shipped baseline: {', '.join(BASELINES)}."
        )
        parser.add_argument("--suite", choices=sorted(SUITES), default="cpu")
        parser.add_argument("--workloads", help="Comma-separated, of the suite's (default: all of them).")
        parser.add_argument("--ruleset", choices=["external", "self"], default="external")
        parser.add_argument("--search-space", type=Path, help="AlgoPerf's JSON (default: a baseline's own).")
        parser.add_argument("--trials", type=int, default=5, help="Trials a study, external tuning (default 5).")
        parser.add_argument("--studies", type=int, default=3, help="Studies (default 3).")
        parser.add_argument(
            "--held-out",
            type=int,
            metavar="SEED",
            help="Sample a held-out variant for each base workload that has some by SEED and gate it (AlgoPerf v0.5).",
        )
        parser.add_argument("--reference", choices=BASELINES, default="adamw", help="The baseline run beside it.")
        parser.add_argument("--threads", type=int, help="torch threads (default: torch's).")
        parser.add_argument("--data-dir", help="The data the gpu suite's workloads read (never downloaded).")
        parser.add_argument(
            "--on-queue",
            action="store_true",
            help="Send each trial to the Celery reference workers (one at a time each) instead of running them here.",
        )
        parser.add_argument(
            "--submit", action="store_true", help="Enter the results bundle into its board on this site (logs only)."
        )
        parser.add_argument("--out", type=Path, help="The results bundle (default runs/algorithms-<name>-<time>/).")
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, **options):
        suite = SUITES[options["suite"]]
        workloads = [name.strip() for name in (options["workloads"] or ",".join(suite)).split(",") if name.strip()]
        unknown = [name for name in workloads if name not in suite]
        if unknown or not workloads:
            raise CommandError(
                f"invalid_workload: {', '.join(unknown) or 'none'}; the {options['suite']} suite has "
                f"{', '.join(suite)}."
            )
        if options["trials"] < 1 or options["studies"] < 1:
            raise CommandError("invalid_setting: --trials and --studies are at least 1.")
        tuning = Tuning(options["ruleset"], trials=options["trials"], studies=options["studies"])
        held_out = sampled_held_out(workloads, options["held_out"]) if options["held_out"] is not None else {}
        workloads = [*workloads, *held_out]
        try:
            module = algorithm_module(options["algorithm"])
        except ValueError as error:
            raise CommandError(f"invalid_algorithm: {error}") from None
        named = options["algorithm"]
        name = Path(named).stem if named.endswith(".py") else named
        contender = Contender(
            name, module, self._space(options, tuning), baseline=None if named.endswith(".py") else named,
            source=Path(named).read_text(encoding="utf-8") if named.endswith(".py") else None,
        )  # fmt: skip
        reference = options["reference"]
        out = options["out"] or Path("runs") / f"algorithms-{name}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}"
        bars = _TrialBars(enabled=not options["json"] and not options["on_queue"], stream=self.stderr)
        if options["on_queue"]:
            try:
                execute = queue_executor(threads=options["threads"])
            except NoResultBackend as error:
                raise CommandError(f"no_result_backend: {error}") from None
        else:
            execute = local_executor(threads=options["threads"], progress=bars.trial, data_dir=options["data_dir"])
        try:
            results = run_contender(contender, workloads, tuning, out, execute=execute)
        except DatasetMissing as error:
            raise CommandError(f"dataset_missing: {error}") from None
        if reference == name:
            reference_results = results
        else:
            space = search_space(reference) if tuning.ruleset == "external" else None
            reference_contender = Contender(
                f"reference-{reference}", algorithm_module(reference), space, baseline=reference
            )
            reference_results = run_contender(reference_contender, workloads, tuning, out, execute=execute)
        bars.close()
        document = suite_document(
            suite=options["suite"], tuning=tuning, algorithm=name, reference=reference, results=results,
            reference_results=reference_results, bundle_path=out, held_out=held_out,
        )  # fmt: skip
        (out / "results.json").write_text(json.dumps(document, indent=2) + "\n")
        if options["submit"]:
            document["submission"] = algorithm_bundle_send(bundle_dir=out)
        if options["json"]:
            self.stdout.write(json.dumps(document, indent=2))
            return
        self._summarise(document)

    def _space(self, options, tuning: Tuning):
        if tuning.ruleset == "self":
            if options["search_space"]:
                raise CommandError("invalid_setting: self-tuning takes no search space.")
            return None
        try:
            if options["search_space"]:
                return read_search_space(json.loads(options["search_space"].read_text(encoding="utf-8")))
            if options["algorithm"] in BASELINES:
                return search_space(options["algorithm"])
        except (OSError, json.JSONDecodeError, SearchSpaceError) as error:
            raise CommandError(f"invalid_search_space: {options['search_space']}: {error}") from None
        raise CommandError("invalid_search_space: external tuning of a submission module needs --search-space.")

    def _summarise(self, document: dict) -> None:
        speedup = document["geomean_speedup_vs_reference"]
        self.stdout.write(
            f"{document['algorithm']} on the {document['suite']} suite, {document['ruleset']} tuning: benchmark score "
            f"{document['score']:.3f} against {document['reference']}, geometric-mean speedup "
            + (f"{speedup:.2f}x" if speedup is not None else "none (a workload the reference reached was missed)")
        )
        for name, workload in document["workloads"].items():
            time = workload["time_to_target_s"]
            self.stdout.write(
                f"  {name:20} {'not reached' if time is None else f'{time:.2f} s'} to target {workload['target']}"
            )
        self.stdout.write(f"  wrote {document['bundle_path']}")
        if (submission := document["submission"]) is not None:
            if submission["status"] == "accepted":
                self.stdout.write(f"  submitted: accepted, {submission['url']}")
            else:
                codes = ", ".join(sorted({error["code"] for error in submission["errors"]}))
                self.stdout.write(f"  submitted: rejected ({codes})")


class _TrialBars:
    """A progress bar a trial: timed seconds out of the budget."""

    def __init__(self, *, enabled: bool, stream):
        self.enabled, self.stream, self.bar = enabled, stream, None

    def trial(self, label: str):
        self.close()
        if not self.enabled:
            return None

        def step(seconds: float, budget: float) -> None:
            if self.bar is None:
                self.bar = tqdm(total=round(budget, 2), desc=label, unit="s", file=self.stream._out, leave=False)
            self.bar.update(round(seconds, 2) - self.bar.n)

        return step

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
