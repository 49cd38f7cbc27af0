"""API tokens stored hashed: each plaintext token of DRF's `authtoken` app becomes a knox token.

knox keeps a token's SHA-512 digest and its first characters, never the token, so a submitter's existing token
keeps working (it now expires TOKEN_TTL_DAYS after this migration); then the plaintext table is dropped. A fresh
database never had that table (the app is no longer installed) and has nothing to move. Reverse: nothing to do,
since the plaintext tokens are gone for good.
"""

from datetime import UTC, timedelta

from django.conf import settings
from django.db import migrations
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from knox.crypto import hash_token
from knox.settings import CONSTANTS

LEGACY_TABLE = "authtoken_token"


def hash_legacy_tokens(apps, schema_editor):
    """Read `authtoken_token` with plain SQL (its model is no longer installed), store each key hashed, drop it."""
    connection = schema_editor.connection
    if LEGACY_TABLE not in connection.introspection.table_names():
        return
    AuthToken = apps.get_model("knox", "AuthToken")
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {quote('key')}, {quote('user_id')}, {quote('created')} FROM {quote(LEGACY_TABLE)}")
        rows = cursor.fetchall()
    expiry = timezone.now() + timedelta(days=settings.TOKEN_TTL_DAYS)
    for key, user_id, created in rows:
        digest = hash_token(key)
        AuthToken.objects.update_or_create(
            digest=digest,
            defaults={"token_key": key[: CONSTANTS.TOKEN_KEY_LENGTH], "user_id": user_id, "expiry": expiry},
        )
        # `created` is set to now on insert (auto_now_add); the token's own date is written after.
        AuthToken.objects.filter(digest=digest).update(created=_aware(created))
    schema_editor.execute(f"DROP TABLE {quote(LEGACY_TABLE)}")
    # The app is gone with its table: were it installed again, `migrate` should create the table afresh.
    MigrationRecorder(connection).migration_qs.filter(app="authtoken").delete()


def _aware(created):
    """A datetime as read by plain SQL: SQLite gives it naive (stored in UTC) or as text, PostgreSQL aware."""
    if isinstance(created, str):
        created = parse_datetime(created)
    if created is None:
        return timezone.now()
    return created if timezone.is_aware(created) else created.replace(tzinfo=UTC)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0012_entry_log_fingerprints"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [migrations.RunPython(hash_legacy_tokens, migrations.RunPython.noop)]
