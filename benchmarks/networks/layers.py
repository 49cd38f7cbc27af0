"""Building blocks several reference networks share."""

from __future__ import annotations

from torch import nn


def conv_bn(in_channels: int, out_channels: int) -> nn.Sequential:
    """A 3x3 convolution (no bias: the BatchNorm after it has one), BatchNorm and ReLU."""
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False),
        nn.BatchNorm2d(out_channels),
        nn.ReLU(inplace=True),
    )
