"""How long a `manage.py` command that neither trains nor measures takes, next to a bare `django.setup()`.

Migrates a SQLite database in a temporary folder (the migrations seed the tasks; the digits board stays empty
unless --fill trains the bundled digits recipe once and submits it), then times whole processes, from start to
exit, with the project's settings (`config.settings.local`, manage.py's default):

* baseline: `python -c "import django; django.setup()"`, the least any command costs;
* ours: `.venv/bin/python manage.py leaderboard digits training-time --json`, which reads the board (a read, it
  skips the system checks, which import the URLconf and every view: `manage.py check` still pays for those).

The two alternate (which goes first alternates too), at least --repeats pairs, until the 95 % interval of the
median of the paired ratios lies within +-2 % (`bench.goals`; or a cap: --max-seconds, --max-pairs), which a
shared machine's drifting load disturbs least. The goal is ours <= 1.5x baseline (issue 21).
Every process keeps its bytecode in a temporary folder (PYTHONPYCACHEPREFIX; one untimed run of each fills it),
as an installed site does, so neither side compiles the project's modules each time. It prints the load average
before and after, and which heavy packages the command imported (read off `-X importtime` in the untimed run).

Usage: .venv/bin/python bench/cli_startup.py [--repeats 7] [--max-seconds 120] [--fill] [--check]
(exit status 0 unless --check is given and the goal is not judged met).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.goals import PASS, Goal, add_rule_arguments, judge_ratio, report, rule_from  # noqa: E402

GOAL_RATIO = 1.5
SETTINGS = "config.settings.local"
GOAL = Goal(bench="cli_startup", name="leaderboard --json / django.setup()", target=GOAL_RATIO, at_most=True)
HEAVY = ("torch", "onnxruntime", "pandas")
BASELINE = [sys.executable, "-c", "import django; django.setup()"]
COMMAND = [sys.executable, "manage.py", "leaderboard", "digits", "training-time", "--json"]


def environment(folder: Path) -> dict[str, str]:
    environ = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {
        **environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "PYTHONPYCACHEPREFIX": str(folder / "pycache"),
    }


def run(arguments: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    result = subprocess.run(arguments, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(arguments[1:])} failed:\n{result.stderr}")
    return result


def seconds(arguments: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    run(arguments, env)
    return time.perf_counter() - started


def heavy_imports(env: dict[str, str]) -> list[str]:
    """The HEAVY packages the command imports (its untimed run, under -X importtime)."""
    stderr = run([sys.executable, "-X", "importtime", *COMMAND[1:]], env).stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    return [name for name in HEAVY if name in imported]


def prepare(env: dict[str, str], folder: Path, *, fill: bool) -> str:
    run([sys.executable, "manage.py", "migrate", "--noinput"], env)
    if not fill:
        return "an empty digits board"
    run([sys.executable, "manage.py", "run_reference", "digits", "--submit", "--out", str(folder / "run")], env)
    return "a digits board of one reference entry"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="the fewest timed pairs (default 7)")
    parser.add_argument("--fill", action="store_true", help="train and submit the digits recipe first (~a minute)")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the goal is judged met")
    add_rule_arguments(parser)
    arguments = parser.parse_args()

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="dawnboard-bench-cli-") as folder:
        env = environment(Path(folder))
        board = prepare(env, Path(folder), fill=arguments.fill)
        run(BASELINE, env)  # fills the bytecode folder, untimed
        loaded = heavy_imports(env)
        pairs: list[tuple[float, float]] = []
        verdict = judge_ratio(
            GOAL,
            lambda: seconds(BASELINE, env),
            lambda: seconds(COMMAND, env),
            rule_from(arguments, min_pairs=arguments.repeats),
            pairs=pairs,
        )
    load_after = os.getloadavg()

    baseline = statistics.median(base for base, _ in pairs)
    ours = statistics.median(command for _, command in pairs)
    ratios = [command / base for base, command in pairs]
    ratio = verdict.median
    not_loaded = [name for name in HEAVY if name not in loaded]
    print(f"Dawnboard CLI start-up bench: {len(pairs)} alternating runs each, whole processes, {board}")
    print(f'  baseline  python -c "import django; django.setup()"        {baseline:7.3f} s (median)')
    print(f"  ours      manage.py leaderboard digits training-time --json {ours:7.3f} s (median)")
    print(
        f"  ratio     ours / baseline, median of pairs                 {ratio:7.2f}x  (paired {min(ratios):.2f} to "
        f"{max(ratios):.2f}; goal <= {GOAL_RATIO:.1f}x)  {verdict.verdict}"
    )
    if loaded:
        print(
            f"  imports   the command loads {', '.join(loaded)}"
            + (f"; not {', '.join(not_loaded)}" if not_loaded else "")
        )
    else:
        print(f"  imports   the command loads none of {', '.join(HEAVY)}")
    print(
        f"  machine   {len(os.sched_getaffinity(0))} CPUs (nproc); load average (1, 5, 15 min) "
        f"{' '.join(f'{value:.2f}' for value in load_before)} before, "
        f"{' '.join(f'{value:.2f}' for value in load_after)} after"
    )
    report([verdict])
    return 1 if arguments.check and verdict.verdict != PASS else 0


if __name__ == "__main__":
    sys.exit(main())
