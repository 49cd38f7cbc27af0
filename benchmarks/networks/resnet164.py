"""Pre-activation ResNet-164 with bottleneck blocks, for CIFAR-10 (He et al. 2016, "Identity Mappings in
Deep Residual Networks").

As the DAWN team's reference, `PreActResNet164` in
https://github.com/stanford-futuredata/dawn-bench-models (pytorch/CIFAR10/benchmark/cifar10/models/resnet.py),
the network of the `dawn_resnet164_b_*` DAWNBench entries: a 3x3 convolution to 16 channels, three stages of
18 bottleneck blocks (1x1, 3x3, 1x1; widths 16, 32 and 64, expanded 4x to 64, 128 and 256), the second and
third stage starting with stride 2, then BatchNorm, ReLU, global average pool and a linear classifier.
Each block is BN-ReLU-conv three times; where the shape changes, a 1x1 projection of the pre-activated
input is the shortcut. 164 = 3 x 18 x 3 convolutions + the first convolution + the classifier. About 1.70M
parameters.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

EXPANSION = 4


class PreActBottleneck(nn.Module):
    """BN-ReLU-conv1x1, BN-ReLU-conv3x3 (strided), BN-ReLU-conv1x1, plus the shortcut."""

    def __init__(self, in_channels: int, width: int, stride: int = 1):
        super().__init__()
        out_channels = width * EXPANSION
        self.bn1 = nn.BatchNorm2d(in_channels)
        self.conv1 = nn.Conv2d(in_channels, width, kernel_size=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_channels, kernel_size=1, bias=False)
        self.projection = (
            nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=stride, bias=False)
            if stride != 1 or in_channels != out_channels
            else None
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        activated = F.relu(self.bn1(x))
        # He et al.: a projection shortcut takes the pre-activated input; an identity one the raw input.
        shortcut = self.projection(activated) if self.projection is not None else x
        out = self.conv1(activated)
        out = self.conv2(F.relu(self.bn2(out)))
        out = self.conv3(F.relu(self.bn3(out)))
        return out + shortcut


class PreActResNet(nn.Module):
    """A pre-activation ResNet of bottleneck blocks for 32x32 images."""

    def __init__(self, blocks_per_stage: int = 18, widths: tuple[int, ...] = (16, 32, 64), num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], kernel_size=3, padding=1, bias=False)
        stages = []
        in_channels = widths[0]
        for stage_index, width in enumerate(widths):
            blocks = []
            for block_index in range(blocks_per_stage):
                stride = 2 if stage_index > 0 and block_index == 0 else 1
                blocks.append(PreActBottleneck(in_channels, width, stride))
                in_channels = width * EXPANSION
            stages.append(nn.Sequential(*blocks))
        self.stages = nn.Sequential(*stages)
        self.bn = nn.BatchNorm2d(in_channels)
        self.fc = nn.Linear(in_channels, num_classes)

        # The reference's initialisation (He et al. 2015): N(0, 2 / (k * k * out_channels)) for convolutions.
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                fan_out = module.kernel_size[0] * module.kernel_size[1] * module.out_channels
                nn.init.normal_(module.weight, 0.0, math.sqrt(2.0 / fan_out))
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        out = self.stages(self.conv1(images))
        out = F.relu(self.bn(out))
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.fc(out)


def preact_resnet164(num_classes: int = 10) -> PreActResNet:
    """ResNet-164: 18 bottleneck blocks per stage."""
    return PreActResNet(blocks_per_stage=18, widths=(16, 32, 64), num_classes=num_classes)
