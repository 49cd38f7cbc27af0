"""The algorithm track's trials run on one torch thread in the tests: `make test` runs a test process on each core,
and two threads each on two shared cores slow these millisecond steps many times over (a trial then spends its
budget before reaching a target it reaches in a tenth of a second alone)."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(autouse=True)
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
