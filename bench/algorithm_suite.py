"""The whole CPU suite with one baseline under the external-tuning defaults (5 trials x 3 studies a workload), as
`run_algorithm BASELINE --suite cpu` runs the algorithm's side: the wall time in all (goal: at most 15 minutes on
these 2 cores) and each workload's share, with the times to target found.

Usage: .venv/bin/python bench/algorithm_suite.py [--baseline adamw] [--trials 5] [--studies 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.algorithms.baselines import BASELINES, baseline, search_space  # noqa: E402
from benchmarks.algorithms.suite import (  # noqa: E402
    SUITES,
    Contender,
    Tuning,
    local_executor,
    run_contender,
    workload_times,
)

GOAL_SECONDS = 15 * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", choices=BASELINES, default="adamw")
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--studies", type=int, default=3)
    args = parser.parse_args()
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"{args.baseline}, {args.trials} trials x {args.studies} studies; load average {load}", flush=True)
    contender = Contender(args.baseline, baseline(args.baseline), search_space(args.baseline))
    tuning = Tuning("external", trials=args.trials, studies=args.studies)
    shares, started = {}, time.perf_counter()
    with tempfile.TemporaryDirectory() as bundle:
        for name in SUITES["cpu"]:
            workload_started = time.perf_counter()
            results = run_contender(contender, [name], tuning, Path(bundle), execute=local_executor())
            shares[name] = time.perf_counter() - workload_started
            reached = sum(trial.time_to_target_s is not None for studies in results[name] for trial in studies)
            print(
                f"  {name:20} {shares[name]:6.1f} s; time to target {workload_times(results)[name]:.2f} s; "
                f"{reached} of {args.trials * args.studies} trials reached it",
                flush=True,
            )
    total = time.perf_counter() - started
    verdict = "PASS" if total <= GOAL_SECONDS else "FAIL"
    print(f"total {total:.0f} s (goal <= {GOAL_SECONDS} s): {verdict}")
    for name, seconds in shares.items():
        print(f"  {name:20} {100 * seconds / total:5.1f} %")
    print(f"load average after: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
