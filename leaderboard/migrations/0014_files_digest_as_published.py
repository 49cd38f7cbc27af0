"""A submission's files digest over its entry as published (issue 22): two uploads that differ in the author's
address alone are the same files, so that a duplicate's answer never confirms a guessed address."""

from django.db import migrations, models

BATCH = 500


def digest_entries_as_published(apps, schema_editor):
    """Every stored submission's digest again, its entry read as published. Where two accepted submissions
    now share one (they differed in the address alone), the later keeps its old digest: the constraint of one
    accepted submission per files holds, and nothing is withdrawn here."""
    from dawnboard.formats.dawnbench.entry import published_entry_sha256  # plain Python, no models
    from leaderboard.models import Submission as CurrentSubmission  # for its pure digest_of alone

    Submission = apps.get_model("leaderboard", "Submission")
    SubmittedFile = apps.get_model("leaderboard", "SubmittedFile")
    accepted = set()
    for submission in Submission.objects.order_by("id").iterator(chunk_size=BATCH):
        files = {file.role: file for file in SubmittedFile.objects.filter(submission_id=submission.id)}
        entry, log = files.get("entry"), files.get("log")
        digest = CurrentSubmission.digest_of(
            task_slug=submission.task_slug,
            track=submission.track,
            entry_sha256=published_entry_sha256(bytes(entry.content)) if entry else "-",
            log_sha256s=[log.sha256] if log else [],  # one log, as then: the same digest as `log_sha256` gave
        )
        if submission.status == "accepted":
            key = (submission.task_slug, submission.track, digest)
            if key in accepted:
                continue
            accepted.add(key)
        Submission.objects.filter(id=submission.id).update(files_digest=digest)


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0013_hashed_api_tokens")]

    operations = [
        migrations.AlterField(
            model_name="submission",
            name="files_digest",
            field=models.CharField(
                blank=True,
                help_text="SHA-256 over the task, the track, the entry as published and the log's bytes.",
                max_length=64,
            ),
        ),
        migrations.RunPython(digest_entries_as_published, migrations.RunPython.noop, elidable=True),
    ]
