"""The DAWNBench v1.0 format, read and written: the entry JSON and the tab-separated training log.

The readers turn bytes into what validation checks (an entry document, a `TrainingLog` of rows); the
writers turn those back into bytes the readers accept without a warning, so a reference job writes
its entry exactly as a submitter would.
"""

from dawnboard.formats.dawnbench.entry import (
    published_entry_sha256,
    read_entry,
    write_entry,
)
from dawnboard.formats.dawnbench.log import read_training_log, write_training_log

__all__ = [
    "published_entry_sha256",
    "read_entry",
    "read_training_log",
    "write_entry",
    "write_training_log",
]
