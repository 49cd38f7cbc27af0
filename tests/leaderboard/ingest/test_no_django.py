"""The ingest domain is plain Python: importing and running it must not pull in Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_ingest_runs_without_importing_django():
    code = (
        "import sys, json\n"
        "from decimal import Decimal\n"
        "from leaderboard.ingest import PERCENT, TaskRules, validate_submission\n"
        "rules = TaskRules('cifar10', 'v1.0', 'top-1', 'top1Accuracy', ('top1Accuracy',), Decimal('94'), PERCENT)\n"
        "entry = json.dumps({'version': 'v1.0', 'author': 'a', 'authorEmail': 'a@b.c', 'framework': 'f',\n"
        "    'model': 'm', 'hardware': 'h', 'timestamp': '2020-01-01'}).encode()\n"
        "result = validate_submission(task_slug='cifar10', track='train', entry_bytes=entry,\n"
        "    log_bytes=b'epoch\\thours\\ttop1Accuracy\\n0\\t0.5\\t95\\n', catalog={'cifar10': {'v1.0': rules}})\n"
        "assert result.accepted, result\n"
        "print(sorted(name for name in sys.modules if name == 'django' or name.startswith('django.')))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT)},
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"
