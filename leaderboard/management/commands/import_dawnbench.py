"""Import a tree laid out like the public dawn-bench-entries repository: a folder, or the repository itself downloaded
from GitHub (`--from-github [REF]`, docs/submitting/public-archives.md)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from dawnboard.archives import DAWNBENCH_DEFAULT_REF, dawnbench_archive
from dawnboard.rules import TASKS, Track
from leaderboard.management.public_archives import SHA256_HELP, described, from_github_options, unpacked_for_import
from leaderboard.services import Upload, entry_import

TASK_OF_FOLDER = {task.dawnbench_folder.lower(): task.slug for task in TASKS if task.dawnbench_folder}  # any case


class Command(BaseCommand):
    help = (
        "Import DAWNBench entries from PATH/{CIFAR10,ImageNet,SQuAD}/{train,inference}/*.json (+ same-stem .tsv), or "
        "with --from-github from the public dawn-bench-entries repository, downloaded."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, nargs="?", help="A clone of dawn-bench-entries (or a tree like it).")
        parser.add_argument(
            "--from-github",
            nargs="?",
            const=DAWNBENCH_DEFAULT_REF,
            metavar="REF",
            help=f"Download github.com/stanford-futuredata/dawn-bench-entries at REF (default {DAWNBENCH_DEFAULT_REF}) "
            "into the archive cache and import it.",
        )
        parser.add_argument("--sha256", metavar="HEX", help=SHA256_HELP)
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, path: Path | None, json: bool = False, **options):
        from_github, sha256 = options.get("from_github"), options.get("sha256")
        from_github_options(path=path, from_github=from_github, sha256=sha256, local="PATH")
        if from_github is None:
            self._import_tree(path, json=json)
            return
        try:
            archive = dawnbench_archive(from_github)
        except ValueError as error:
            raise CommandError(str(error)) from None
        with unpacked_for_import(archive=archive, expected_sha256=sha256) as unpacked:
            if not json:
                self.stdout.write(described(unpacked))
            self._import_tree(unpacked.tree.root, json=json, archive=unpacked.archive.as_dict())

    def _import_tree(self, path: Path, *, json: bool, archive: dict | None = None) -> None:
        if not path.is_dir():
            raise CommandError(f"{path} is not a folder.")
        outcomes = [self._import_one(task, track, entry_path) for task, track, entry_path in _entry_files(path)]
        if not outcomes:
            folders = ", ".join(sorted({task.dawnbench_folder for task in TASKS if task.dawnbench_folder}))
            raise CommandError(
                f"No entries found under {path}: expected <task>/{{train,inference}}/*.json, <task> one of {folders}."
            )
        summary = {
            status: sum(o["status"] == status for o in outcomes) for status in ("imported", "skipped", "rejected")
        }
        if json:
            self.stdout.write(
                _dumps({**({"archive": archive} if archive else {}), "files": outcomes, "summary": summary})
            )
        else:
            for outcome in outcomes:
                self.stdout.write(_describe(outcome))
            imported, skipped, rejected = summary["imported"], summary["skipped"], summary["rejected"]
            self.stdout.write(f"{imported} imported, {skipped} already imported, {rejected} rejected.")
        if summary["rejected"]:
            raise CommandError(f"{summary['rejected']} file(s) were rejected.")

    def _import_one(self, task: str, track: str, entry_path: Path) -> dict:
        log_path = entry_path.with_suffix(".tsv")
        outcome = entry_import(
            task_slug=task,
            track=track,
            source_name=entry_path.stem,
            entry=Upload(name=entry_path.name, content=entry_path.read_bytes()),
            logs=[Upload(name=log_path.name, content=log_path.read_bytes())]
            if track == Track.TRAIN and log_path.exists()
            else [],
        )
        return {
            "task": task,
            "track": track,
            "file": str(entry_path),
            "source_name": entry_path.stem,
            "status": outcome.status,
            "entry_id": outcome.entry_id,
            "errors": outcome.errors,
            "warnings": outcome.warnings,
        }


def _entry_files(root: Path):
    for task_folder in sorted(root.iterdir()):
        task = TASK_OF_FOLDER.get(task_folder.name.lower())
        if task is None or not task_folder.is_dir():
            continue
        for track in Track:
            for entry_path in sorted((task_folder / track).glob("*.json")):
                yield task, track, entry_path


def _describe(outcome: dict) -> str:
    where = f"{outcome['task']}/{outcome['track']}/{outcome['source_name']}"
    if outcome["status"] == "imported":
        warnings = outcome["warnings"]
        codes = ", ".join(warning["code"] for warning in warnings)
        warned = f" ({len(warnings)} warning{'' if len(warnings) == 1 else 's'}: {codes})" if warnings else ""
        return f"imported  {where} -> entry {outcome['entry_id']}{warned}"
    if outcome["status"] == "skipped":
        return f"skipped   {where} (already imported)"
    reasons = "; ".join(f"{error['code']}: {error['message']}" for error in outcome["errors"])
    return f"rejected  {where}: {reasons}"


def _dumps(document: dict) -> str:
    return json.dumps(document, indent=2)
