"""AlgoPerf's `algoperf.pytorch_utils.pytorch_setup`, as a submission imports it: here one process, no DDP."""

from __future__ import annotations

import torch


def pytorch_setup() -> tuple[bool, int, torch.device, int]:
    """(use DDP, this process's rank, its device, the number of GPUs): one process, on the GPU where there is one."""
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    return False, 0, device, torch.cuda.device_count()
