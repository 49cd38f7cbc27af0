"""Every command README.md and the pages under docs/ show runs as written from a fresh clone after `make install`
(issue 21).

The documents are read in reading order: README.md, then the pages in the order of mkdocs.yml's nav, then any page
the nav leaves out, by path. The documented commands are the lines of their ```sh blocks (a trailing backslash
continues a line), the `usage:` lines of their ```text blocks and the inline code that starts with `.venv/bin/`
(after any `NAME=value` settings). A command with placeholders (`TASK`, `[--json]`, `...`) is a synopsis: a reader
fills it in, so it is not run, and it never stands in an example block. Every other command is either in QUICK, and
run, or in SKIPPED with the reason: a new command that is neither fails
`test_every_documented_command_is_run_or_skipped_with_a_reason` (and is run anyway, so that its failure shows).

The quick ones run in reading order, as written, in one bash session (a reader's terminal: `TOKEN=...` reaches
the curl below it), in a temporary directory laid out like a fresh clone: the repository's tracked top-level entries
copied, `.venv` linked, the DAWNBench sample the docs import at `../shared/dawnbench-sample`, a fresh SQLite
database migrated as `make run` would, and an environment without the virtualenv on PATH or any of the site's
settings. The commands that need the site get `runserver` on 127.0.0.1:8000, started for them and stopped after.

Run them alone with `-m docs`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.factories import entry_document, inference_document

pytestmark = pytest.mark.docs

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MKDOCS_CONFIG = ROOT / "mkdocs.yml"
VENV = ROOT / ".venv"
REAL_SAMPLE = ROOT.parent / "shared" / "dawnbench-sample"  # where the docs' `../shared/dawnbench-sample` points
SITE = ("127.0.0.1", 8000)  # where `make run` serves the site and the curl example sends its upload
COMMAND_TIMEOUT_SECONDS = 300

# Settings a shell might carry that would make the sandbox something other than a fresh clone's defaults.
SETTINGS = (
    "DJANGO_SETTINGS_MODULE",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "CACHE_URL",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "STATIC_ROOT",
    "REFERENCE_DATA_DIR",
    "REFERENCE_RUNS_DIR",
    "REFERENCE_RUNS_IN_REQUEST",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "PYTHONHOME",
)


@dataclass(frozen=True)
class Quick:
    """A command this test runs: it must exit 0 and print each of `prints` (stdout and stderr together).

    `prints_with_real_sample`: what the docs say it prints about the public DAWNBench sample, checked when that
    sample (not the stand-in) was imported. `needs_site`: runserver must be up.
    """

    prints: tuple[str, ...] = ()
    prints_with_real_sample: tuple[str, ...] = ()
    needs_site: bool = False


CURL = (
    'curl -sS --fail-with-body -H "Authorization: Token $TOKEN" -F task=digits -F track=train '
    "-F entry=@runs/example/seed0/digits_cnn_seed0.json -F log=@runs/example/seed0/digits_cnn_seed0.tsv "
    "http://127.0.0.1:8000/api/v1/submissions/"
)

# Keyed by the command as written, continuation lines joined, trailing comment and extra spaces dropped.
QUICK: dict[str, Quick] = {
    # The sandbox was migrated first, as `make run` does; the docs' own migrate then finds nothing to do.
    ".venv/bin/python manage.py migrate --noinput": Quick(prints=("No migrations to apply",)),
    ".venv/bin/python manage.py import_dawnbench ../shared/dawnbench-sample": Quick(
        prints=("imported", "0 rejected."), prints_with_real_sample=("52 imported",)
    ),
    ".venv/bin/python manage.py leaderboard cifar10 training-time --limit 5": Quick(prints=("cifar10 training-time",)),
    ".venv/bin/python manage.py leaderboard digits training-time --json": Quick(prints=('"metric": "training-time"',)),
    ".venv/bin/python manage.py leaderboard cifar10 training-cost --cost-basis catalog-today": Quick(
        prints=("cost basis catalog-today", "left out")  # "says what it leaves out"
    ),
    (
        "DJANGO_SETTINGS_MODULE=config.settings.production "
        "SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))') ALLOWED_HOSTS=example.org "
        ".venv/bin/python manage.py collectstatic --noinput"
    ): Quick(prints=("post-processed",)),
    # A fresh database got the bundled catalog when it migrated: "a reload of an unchanged file ... says so".
    ".venv/bin/python manage.py load_prices pricing/data/prices.csv": Quick(prints=("Nothing changed",)),
    ".venv/bin/python manage.py verify_entries --logs": Quick(prints=("entries verified;", "moved level")),
    ".venv/bin/python manage.py resolve_hardware": Quick(prints_with_real_sample=("31 of 52 entries resolve",)),
    ".venv/bin/python manage.py run_reference digits --runs 2 --out runs/example": Quick(
        prints=("reached the threshold", "median")
    ),
    "TOKEN=$(.venv/bin/python manage.py create_submitter my-team --email me@example.org --json"
    " | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"token\"])')": Quick(),
    CURL: Quick(prints=('"status":"accepted"',), needs_site=True),
    (
        ".venv/bin/python manage.py submit --task digits --track train --submitter my-team "
        "runs/example/seed1/digits_cnn_seed1.json runs/example/seed1/digits_cnn_seed1.tsv"
    ): Quick(prints=("accepted",)),
    ".venv/bin/python manage.py run_reference digits --out runs/digits --submit": Quick(
        prints=("reached the threshold", "submitted")
    ),
    ".venv/bin/python manage.py export_onnx digits runs/digits/digits_cnn_seed0.pt runs/digits/digits.onnx": Quick(
        prints=("onnx.checker passed",)
    ),
    (
        ".venv/bin/python manage.py measure_inference digits --model runs/digits/digits.onnx --scenario offline "
        "--quick --instance c5.large --provider aws --submit"
    ): Quick(prints=("meets the threshold", "LoadGen offline (quick profile): VALID", "submitted: accepted")),
    (
        ".venv/bin/python manage.py run_algorithm sgd_nesterov --workloads breast_cancer_mlp,diabetes_mlp --trials 2 "
        "--studies 2"
    ): Quick(prints=("external tuning: benchmark score", "breast_cancer_mlp", "wrote runs/algorithms-sgd_nesterov-")),
    ".venv/bin/python manage.py run_study digits --vary batch_size=64,256 --runs 1": Quick(
        prints=("batch_size on digits_cnn", "batch_size=256: reached", "/studies/")
    ),
    ".venv/bin/python manage.py axes_reset": Quick(),
    ".venv/bin/python manage.py migrate": Quick(prints=("No migrations to apply",)),
    (
        "DJANGO_SETTINGS_MODULE=config.settings.production "
        "SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))') ALLOWED_HOSTS=example.org "
        ".venv/bin/python manage.py check --deploy --fail-level WARNING"
    ): Quick(prints=("no issues",)),
    ".venv/bin/python -m bench.soak --help": Quick(prints=("usage:",)),
    ".venv/bin/python manage.py backup_site backups/dawnboard-2026-11-28.dump": Quick(prints=("backed up to",)),
}

NEEDS_BROKER = "needs a Celery broker (CELERY_BROKER_URL, Redis) and runs until stopped"
RESTORE = (
    "a restore into a new PostgreSQL database, which the sandbox's SQLite site has not; "
    "tests/leaderboard/test_backups.py restores on SQLite and PostgreSQL"
)
SKIPPED: dict[str, str] = {
    "make run": "installs, trains and serves until stopped; this test migrates its own database as `make run` does "
    "and starts runserver for the commands that need the site",
    "make test": "the whole suite, minutes long, this test among it",
    ".venv/bin/python manage.py import_dawnbench --from-github": "downloads from GitHub, which the sandbox may not "
    "reach; tests/leaderboard/test_archives.py runs it against a local server serving the archive's layout",
    ".venv/bin/python manage.py import_mlperf --from-github v4.0": "downloads hundreds of megabytes from GitHub; "
    "tests/leaderboard/test_archives.py runs `--from-github` against a local server serving the archive's layout",
    (
        ".venv/bin/python manage.py run_reference cifar10 --recipe resnet9 "
        "--data-dir ~/data/cifar-10-batches-py --device cuda --submit"
    ): "needs the CIFAR-10 python batches in ~/data/cifar-10-batches-py and a CUDA GPU",
    (
        ".venv/bin/python -m torch.distributed.run --standalone --nproc-per-node 2 "
        "manage.py run_reference digits --json"
    ): "two training processes on a shared 2-core machine; tests/benchmarks runs two CPU processes under torchrun",
    ".venv/bin/celery -A config worker": NEEDS_BROKER,
    ".venv/bin/celery -A config beat": NEEDS_BROKER,
    ".venv/bin/celery -A config worker -Q reference": NEEDS_BROKER,
    ".venv/bin/celery -A config worker -Q reference --concurrency 1": NEEDS_BROKER,
    ".venv/bin/celery -A config worker -Q dawnboard --concurrency 2": NEEDS_BROKER,
    ".venv/bin/celery -A config inspect active_queues": "asks the running workers, through a Celery broker",
    ".venv/bin/mkdocs serve": "serves the documentation until stopped",
    "make serve": "the production stack, until stopped; tests/leaderboard/test_worker_end_to_end.py starts it",
    ".venv/bin/gunicorn -c deploy/gunicorn.conf.py config.wsgi": "a production server that runs until stopped; "
    "make serve starts it (tests/leaderboard/test_worker_end_to_end.py)",
    ".venv/bin/celery -A config worker -Q dawnboard": NEEDS_BROKER,
    ".venv/bin/celery -A config worker -Q reference -c 1": NEEDS_BROKER,
    "createdb -h 127.0.0.1 -U postgres dawnboard_restored": RESTORE,
    (
        "DATABASE_URL=postgres://postgres@127.0.0.1:5432/dawnboard_restored .venv/bin/python manage.py restore_site "
        "backups/dawnboard-2026-11-28.dump"
    ): RESTORE,
    ".venv/bin/mkdocs build --strict": "`make test` runs it itself, before pytest",
    ".venv/bin/python bench/http_bench.py --sizes 100000 --runs 5 --keep-database": "a bench of 20 to 40 minutes on "
    "its own production stack (bench/http_bench.py); its smaller sizes run where `make bench-http` is run",
    ".venv/bin/python bench/gpu_check.py --device cpu --sections 6": "a bench: LoadGen tests of three networks, "
    "calibrated and 3 s each, over a minute on 2 cores; the GPU check's paths are run by hand where a GPU is lent",
}

# Literal values written in capitals, not placeholders.
LITERALS = {"WARNING"}
PLACEHOLDER = re.compile(r"\[(?:--|[A-Z])|\.\.\.|…|<[a-z_]+>|(?<![$\w=-])[A-Z][A-Z0-9_]*(?![\w=])")
BARE_PROGRAM = re.compile(r"^(?:python3?|manage\.py|celery|gunicorn|torchrun|django-admin|pip3?)\s")
FENCE = re.compile(r"^```(\w*)\s*$")
INLINE_CODE = re.compile(r"`([^`]+)`")
VENV_COMMAND = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=.*\s)?\.venv/bin/")  # after any NAME=value settings


@dataclass(frozen=True)
class Command:
    text: str  # as written: what bash runs
    line: int  # in its document, 1-based
    kind: str  # "example" (a ```sh block line), "usage" (a ```text block's usage line) or "inline"
    document: str = "README.md"  # its path in the repository
    order: int = 0  # its document's place in reading order

    @property
    def where(self) -> str:
        return f"{self.document}:{self.line}"

    @property
    def key(self) -> str:
        return " ".join(_without_comment(self.text.replace("\\\n", " ")).split())

    @property
    def synopsis(self) -> bool:
        return self.kind == "usage" or _has_placeholder(self.key)

    @property
    def slug(self) -> str:
        words = re.sub(r"'[^']*'|\"[^\"]*\"", "", self.key).split()
        words = [word.removeprefix(".venv/bin/") for word in words if "=" not in word and not word.startswith("-")]
        words = [word for word in words if word not in ("python", "manage.py") and re.search(r"\w", word)]
        page = self.document.removeprefix("docs/").removesuffix(".md").replace("/", "_")
        return f"{page}-line{self.line}-" + "-".join(re.sub(r"[^\w.]+", "_", word) for word in words[:2])


def _without_comment(text: str) -> str:
    """`text` up to a `#` that starts a shell comment (after whitespace, outside quotes)."""
    quote = None
    for index, character in enumerate(text):
        if quote:
            quote = None if character == quote else quote
        elif character in "'\"":
            quote = character
        elif character == "#" and (index == 0 or text[index - 1].isspace()):
            return text[:index]
    return text


def _has_placeholder(command: str) -> bool:
    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "''", command)
    return any(match.group() not in LITERALS for match in PLACEHOLDER.finditer(unquoted))


def documented_commands(markdown: str, document: str = "README.md", order: int = 0) -> list[Command]:
    """A document's commands in its order: ```sh lines, ```text usage lines, inline `.venv/bin/...`."""
    commands: list[Command] = []
    prose: list[str] = []  # the text outside fences, fenced lines blanked so that offsets keep their line numbers
    fence: str | None = None
    pending: list[str] = []
    pending_line = 0
    for number, line in enumerate(markdown.splitlines(), start=1):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
            prose.append("")
            continue
        if fence is not None and line.strip() == "```":
            fence = None
            prose.append("")
            continue
        if fence is None:
            prose.append(line)
            continue
        prose.append("")
        if fence == "text" and line.startswith("usage: "):
            commands.append(Command(line.removeprefix("usage: "), number, "usage", document, order))
        elif fence == "sh":
            if not pending and not _without_comment(line).strip():
                continue  # blank or a comment
            if not pending:
                pending_line = number
            pending.append(line)
            if not line.endswith("\\"):
                commands.append(Command("\n".join(pending), pending_line, "example", document, order))
                pending = []
    text = "\n".join(prose)
    for match in INLINE_CODE.finditer(text):
        code = " ".join(match.group(1).split())
        if VENV_COMMAND.match(code):
            commands.append(Command(code, text.count("\n", 0, match.start()) + 1, "inline", document, order))
    return sorted(commands, key=lambda command: command.line)


def documents() -> list[Path]:
    """README.md, then the docs pages in mkdocs.yml's nav order, then the pages the nav leaves out, by path."""
    nav = MKDOCS_CONFIG.read_text(encoding="utf-8").partition("\nnav:")[2]
    listed = [DOCS / name for name in dict.fromkeys(re.findall(r"[\w./-]+\.md\b", nav))]
    pages = [page for page in listed if page.exists()]
    pages += sorted(page for page in DOCS.rglob("*.md") if page not in pages)
    return [README, *pages]


DOCUMENTS = documents()
COMMANDS = [
    command
    for order, path in enumerate(DOCUMENTS)
    for command in documented_commands(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix(), order)
]


def test_the_readme_and_every_docs_page_are_read():
    assert DOCUMENTS[0] == README
    assert sorted(DOCUMENTS[1:]) == sorted(DOCS.rglob("*.md"))
    assert {"docs/getting-started.md", "docs/submitting/api.md"} <= {command.document for command in COMMANDS}


def test_every_documented_command_is_run_or_skipped_with_a_reason():
    keys = {command.key for command in COMMANDS}
    unclassified = [
        f"{command.where}: {command.key}"
        for command in COMMANDS
        if not command.synopsis and command.key not in QUICK and command.key not in SKIPPED
    ]
    stale = sorted(key for key in [*QUICK, *SKIPPED] if key not in keys)

    assert not unclassified, "documented commands neither run nor skipped with a reason:\n" + "\n".join(unclassified)
    assert not stale, "listed here but no longer documented:\n" + "\n".join(stale)


def test_example_blocks_hold_no_synopsis():
    synopses = [f"{c.where}: {c.key}" for c in COMMANDS if c.kind == "example" and c.synopsis]

    assert not synopses, "placeholders in a ```sh block (write synopses as `usage:` lines):\n" + "\n".join(synopses)


def test_documented_commands_run_from_the_virtualenv():
    markdown = "\n".join(path.read_text(encoding="utf-8") for path in DOCUMENTS)
    fenced_sh = [c.key for c in COMMANDS if c.kind == "example"]
    inline = [" ".join(code.split()) for code in INLINE_CODE.findall(re.sub(r"(?ms)^```.*?^```", "", markdown))]
    usage = [line.removeprefix("usage: ") for line in markdown.splitlines() if line.startswith("usage: ")]
    bare = [command for command in [*fenced_sh, *inline, *usage] if BARE_PROGRAM.match(command)]

    assert not bare, "needs `make install`'s .venv named (`.venv/bin/...`), nothing activates it:\n" + "\n".join(bare)


class Terminal:
    """One bash session in the sandbox, like a reader's terminal: what one command sets, the next sees."""

    def __init__(self, cwd: Path, environment: dict[str, str], outputs: Path):
        self.cwd, self.environment, self.outputs = cwd, environment, outputs
        outputs.mkdir(parents=True)
        self.shell_errors = outputs / "bash.stderr"
        self.shell = subprocess.Popen(
            ["bash", "--norc", "--noprofile"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self.shell_errors.open("w"),
            cwd=cwd,
            env=environment,
            text=True,
            start_new_session=True,
        )
        self._send("set -o pipefail\n")
        self.count = 0
        self.site: subprocess.Popen | None = None

    def _send(self, text: str) -> None:
        assert self.shell.stdin is not None
        self.shell.stdin.write(text)
        self.shell.stdin.flush()

    def run(self, command: str, timeout: float = COMMAND_TIMEOUT_SECONDS) -> tuple[int, str]:
        """Run `command` as typed; its exit status and its output (stdout, then stderr)."""
        self.count += 1
        stdout, stderr, status = (self.outputs / f"{self.count}.{name}" for name in ("stdout", "stderr", "status"))
        self._send(
            f"{{\n{command}\n}} >{stdout} 2>{stderr} </dev/null\necho $? >{status}.part && mv {status}.part {status}\n"
        )
        deadline = time.monotonic() + timeout
        while not status.exists():
            if self.shell.poll() is not None:
                pytest.fail(f"bash exited reading the command: {self.shell_errors.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                self.close()
                pytest.fail(f"still running after {timeout} s: {command}")
            time.sleep(0.05)
        return int(status.read_text()), stdout.read_text(errors="replace") + stderr.read_text(errors="replace")

    def start_site(self) -> None:
        if self.site is not None:
            return
        probe = socket.socket()
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(SITE)
        except OSError:
            pytest.skip(f"port {SITE[1]} is taken (another site running?): the site this command needs can't start")
        finally:
            probe.close()
        log = self.outputs / "runserver.log"
        self.site = subprocess.Popen(
            [".venv/bin/python", "manage.py", "runserver", f"{SITE[0]}:{SITE[1]}", "--noreload"],
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            cwd=self.cwd,
            env=self.environment,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.site.poll() is not None:
                self.site = None
                output = log.read_text()
                if "already in use" in output:
                    pytest.skip(f"port {SITE[1]} was taken as the site started: {output[-300:]}")
                pytest.fail(f"runserver exited: {output[-2000:]}")
            try:
                urllib.request.urlopen(f"http://{SITE[0]}:{SITE[1]}/api/v1/tasks/", timeout=5).close()
                return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.25)
        self.stop_site()
        pytest.fail(f"runserver did not answer within 120 s: {log.read_text()[-2000:]}")

    def stop_site(self) -> None:
        if self.site is None:
            return
        _stop(self.site)
        self.site = None

    def close(self) -> None:
        self.stop_site()
        if self.shell.poll() is None:
            _stop(self.shell)


def _stop(process: subprocess.Popen) -> None:
    """Stop a process this test started, and whatever it started (its own session's group)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


def _lay_out_fresh_clone(repo: Path) -> None:
    """Copy the tracked top-level entries (with whatever the working tree holds under them) and link `.venv`."""
    listing = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    if listing.returncode != 0:
        pytest.skip(f"not a git checkout, so no list of tracked files: {listing.stderr.strip()}")
    repo.mkdir(parents=True)
    for name in sorted({path.split("/", 1)[0] for path in listing.stdout.splitlines()}):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif source.exists():
            shutil.copy2(source, repo / name)
    (repo / ".venv").symlink_to(VENV, target_is_directory=True)


# A stand-in for the public sample when it is not beside the repository: the same layout and formats, three entries
# (one priced by the catalog, one on hardware no catalog prices, one inference entry).
STAND_IN_TEAM = {"author": "Stand-in Team", "authorEmail": "standin@example.org", "framework": "pytorch 1.0"}
STAND_IN_SAMPLE = {
    "CIFAR10/train/standin_resnet18_1v100-ec2_pytorch.json": entry_document(
        **STAND_IN_TEAM, model="ResNet-18", hardware="V100 (AWS p3.2xlarge)", timestamp="2018-11-06"
    ),
    "CIFAR10/train/standin_resnet18_1v100-ec2_pytorch.tsv": "epoch\thours\ttop1Accuracy\n"
    "0\t0.01\t80.0\n1\t0.02\t92.5\n2\t0.03\t94.1\n",
    "CIFAR10/train/standin_resnet56_8v100-dawn_pytorch.json": entry_document(
        **STAND_IN_TEAM,
        model="ResNet-56",
        hardware="8 x V100 (DAWN internal cluster)",
        costPerHour=20.0,
        timestamp="2019-01-15",
    ),
    "CIFAR10/train/standin_resnet56_8v100-dawn_pytorch.tsv": "epoch\thours\ttop1Accuracy\n"
    "0\t0.005\t85.0\n1\t0.01\t94.3\n",
    "CIFAR10/inference/standin_resnet18_1v100-ec2_pytorch.json": inference_document(
        **STAND_IN_TEAM,
        model="ResNet-18",
        hardware="V100 (AWS p3.2xlarge)",
        latency=12.5,
        cost=1.0625e-5,
        top1Accuracy=94.1,
        timestamp="2018-11-06",
    ),
}


def _write_sample(target: Path) -> bool:
    """The DAWNBench tree the docs import; True when it is the real, public one."""
    if (REAL_SAMPLE / "CIFAR10").is_dir():
        shutil.copytree(REAL_SAMPLE, target)
        return True
    for name, content in STAND_IN_SAMPLE.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
    return False


def _fresh_shell_environment(database: Path) -> dict[str, str]:
    """This process's environment less the site's settings and the virtualenv: nothing is activated."""
    environment = {key: value for key, value in os.environ.items() if key not in SETTINGS}
    venv_bin = str(VENV / "bin")
    environment["PATH"] = os.pathsep.join(
        entry for entry in environment.get("PATH", "").split(os.pathsep) if entry and not entry.startswith(venv_bin)
    )
    environment["DATABASE_URL"] = f"sqlite:///{database}"
    return environment


@dataclass
class Sandbox:
    terminal: Terminal
    real_sample: bool


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Sandbox:
    if not (VENV / "bin" / "python").exists():
        pytest.skip("no .venv: the documented commands run after `make install`")
    root = tmp_path_factory.mktemp("fresh-clone")
    repo = root / "repo"
    _lay_out_fresh_clone(repo)
    real_sample = _write_sample(root / "shared" / "dawnbench-sample")
    environment = _fresh_shell_environment(root / "db.sqlite3")
    migrated = subprocess.run(  # as `make run` does first
        [".venv/bin/python", "manage.py", "migrate", "--noinput"],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_SECONDS,
    )
    assert migrated.returncode == 0, migrated.stderr
    terminal = Terminal(repo, environment, root / "outputs")
    yield Sandbox(terminal, real_sample)
    terminal.close()


def _first_occurrences(commands: list[Command]) -> list[Command]:
    seen: set[str] = set()
    firsts = []
    for command in commands:
        if command.key not in seen:
            seen.add(command.key)
            firsts.append(command)
    return firsts


@pytest.mark.parametrize("command", _first_occurrences(COMMANDS), ids=lambda command: command.slug)
def test_documented_command_runs_as_written(command: Command, sandbox: Sandbox):
    if command.synopsis:
        pytest.skip(f"a synopsis (placeholders): {command.key}")
    if command.key in SKIPPED:
        pytest.skip(SKIPPED[command.key])
    quick = QUICK.get(command.key, Quick())  # unclassified: run anyway, so that its failure shows as written
    terminal = sandbox.terminal
    if quick.needs_site:
        terminal.start_site()
    else:
        terminal.stop_site()

    status, output = terminal.run(command.text)

    assert status == 0, f"exit {status}:\n{output[-3000:]}"
    expected = quick.prints + (quick.prints_with_real_sample if sandbox.real_sample else ())
    missing = [text for text in expected if text not in output]
    assert not missing, f"printed none of {missing}:\n{output[-3000:]}"
