"""ResNet-50 v1.5 (He et al., 2016, "Deep Residual Learning"), in plain torch.

v1.5 is the variant every ImageNet benchmark since has trained (torchvision's `resnet50`, NVIDIA's and
MLPerf's references): a bottleneck that downsamples does it with stride 2 in its 3x3 convolution rather
than in the first 1x1, which costs a little speed and gains about 0.5% top-1. With 1000 classes it has
25,557,032 parameters, as torchvision's.

Initialisation follows Goyal et al. (2017, "Accurate, Large Minibatch SGD"): He (fan-out) normal for the
convolutions, N(0, 0.01) for the classifier, and the last batch-norm scale of every residual branch set
to zero, so that each block starts as the identity and the network trains as a shallow one at first.
"""

from __future__ import annotations

import torch
from torch import nn

EXPANSION = 4  # a bottleneck's output has 4x the channels of its 3x3 convolution
STAGES = ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2))  # (width, blocks, stride of the first block)


class Bottleneck(nn.Module):
    """1x1 (reduce) -> 3x3 (stride here: v1.5) -> 1x1 (expand), added to the input (projected when the
    shape changes)."""

    def __init__(self, in_channels: int, width: int, stride: int):
        super().__init__()
        out_channels = width * EXPANSION
        self.conv1 = nn.Conv2d(in_channels, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.downsample: nn.Module | None = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False), nn.BatchNorm2d(out_channels)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet50(nn.Module):
    """ResNet-50 v1.5 for `num_classes` classes, on images of any size of at least 32 x 32 (224 x 224 in
    the recipe): a 7x7 stem, four stages of bottlenecks, global average pooling, one linear layer.

    Args:
        num_classes: the classifier's outputs.
        zero_init_residual: start each residual branch at zero (Goyal et al.); False gives the usual ones.
    """

    def __init__(self, num_classes: int = 1000, zero_init_residual: bool = True):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, stride=2, padding=1),
        )
        stages = []
        in_channels = 64
        for width, blocks, stride in STAGES:
            layers = []
            for index in range(blocks):
                layers.append(Bottleneck(in_channels, width, stride if index == 0 else 1))
                in_channels = width * EXPANSION
            stages.append(nn.Sequential(*layers))
        self.stages = nn.Sequential(*stages)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(in_channels, num_classes)
        self.reset_parameters(zero_init_residual)

    def reset_parameters(self, zero_init_residual: bool = True) -> None:
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
        nn.init.normal_(self.fc.weight, std=0.01)
        nn.init.zeros_(self.fc.bias)
        if zero_init_residual:
            for module in self.modules():
                if isinstance(module, Bottleneck):
                    nn.init.zeros_(module.bn3.weight)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        features = self.stages(self.stem(images))
        return self.fc(torch.flatten(self.pool(features), 1))
