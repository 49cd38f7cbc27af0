"""`/health/` for load balancers (django-health-check): 200 when every check passes, 503 naming what failed.

The checks: the database, the cache, the broker, the disk the submitted files are stored on, migrations not yet
applied, and the depth of the work queues. `Accept: application/json` (or `?format=json`) answers JSON, one key
a check; text/plain and HTML as django-health-check renders them. No check names a server path or a secret.
"""

from __future__ import annotations

import dataclasses
import shutil
import threading
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor
from health_check.base import HealthCheck
from health_check.checks import Cache, Database
from health_check.exceptions import ServiceUnavailable, ServiceWarning
from health_check.views import HealthCheckView

from leaderboard.selectors.operations import queue_depths


class QueueReading:
    """The work queues' depths, read from the broker once for the two checks of a request that need them (Broker and
    QueueDepth run side by side in threads): the first to ask connects, the other waits for its answer, or its error."""

    def __init__(self):
        self._lock = threading.Lock()
        self._read = False
        self._depths: dict[str, int] = {}
        self._error: Exception | None = None

    def depths(self) -> dict[str, int]:
        with self._lock:
            if not self._read:
                try:
                    self._depths = queue_depths(timeout=2.0)
                except Exception as error:  # kombu's OperationalError, a refused or timed-out connection
                    self._error = error
                self._read = True
        if self._error is not None:
            raise self._error
        return self._depths


@dataclasses.dataclass
class Broker(HealthCheck):
    """The Celery broker answers a connection within two seconds (tasks running in-process have none to check)."""

    queues: QueueReading = dataclasses.field(default_factory=QueueReading, repr=False, compare=False)

    def run(self):
        try:
            self.queues.depths()
        except Exception as error:
            raise ServiceUnavailable(f"the broker cannot be reached ({type(error).__name__})") from error


@dataclasses.dataclass
class QueueDepth(HealthCheck):
    """No work queue holds more than HEALTH_MAX_QUEUE_DEPTH messages (workers are missing or too few)."""

    queues: QueueReading = dataclasses.field(default_factory=QueueReading, repr=False, compare=False)

    def run(self):
        try:
            depths = self.queues.depths()
        except Exception:
            return  # the broker check says so
        deep = {role: depth for role, depth in depths.items() if depth > settings.HEALTH_MAX_QUEUE_DEPTH}
        if deep:
            listed = ", ".join(f"{role} {depth}" for role, depth in sorted(deep.items()))
            raise ServiceWarning(f"messages waiting over {settings.HEALTH_MAX_QUEUE_DEPTH}: {listed}")


@dataclasses.dataclass
class Migrations(HealthCheck):
    """Every migration is applied: a process started on code newer than its database would fail on some pages."""

    def run(self):
        connection = connections[DEFAULT_DB_ALIAS]
        try:
            executor = MigrationExecutor(connection)
            plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        except DatabaseError as error:
            raise ServiceUnavailable("the database cannot be read (the Database check says why)") from error
        finally:
            connection.close()  # this check's thread's own connection
        if plan:
            names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _ in plan[:5])
            raise ServiceUnavailable(f"{len(plan)} migration(s) not applied ({names}): run manage.py migrate")


@dataclasses.dataclass
class Disk(HealthCheck):
    """The disk holding the submitted files is below HEALTH_MAX_DISK_USAGE_PERCENT full."""

    def run(self):
        location = Path(getattr(default_storage, "location", settings.BASE_DIR))
        while not location.exists():  # the storage folder is made by the first file stored
            location = location.parent
        usage = shutil.disk_usage(location)
        percent = 100.0 * usage.used / usage.total
        if percent >= settings.HEALTH_MAX_DISK_USAGE_PERCENT:
            raise ServiceWarning(f"the files' disk is {percent:.0f} % full, {usage.free / 2**30:.1f} GiB free")


class DawnboardHealthView(HealthCheckView):
    checks = (Database, Cache, Broker, Disk, Migrations, QueueDepth)

    def get_checks(self):
        """This request's checks, Broker and QueueDepth sharing one reading of the queues (one broker connection)."""
        queues = QueueReading()
        for check in super().get_checks():
            if isinstance(check, Broker | QueueDepth):
                check.queues = queues
            yield check

    async def get(self, request, *args, **kwargs):
        response = await super().get(request, *args, **kwargs)
        if response.status_code == 500:  # a check failed: a load balancer's "unavailable", not a crash
            response.status_code = 503
        return response
