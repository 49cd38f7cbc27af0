"""A small CNN for 8x8 digit images: three 3x3 conv layers with batch norm, two poolings, one linear layer."""

from __future__ import annotations

from torch import nn

from benchmarks.networks.layers import conv_bn


class DigitsCNN(nn.Module):
    def __init__(self, width: int = 32, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(1, width),
            conv_bn(width, 2 * width),
            nn.MaxPool2d(2),  # 8x8 -> 4x4
            conv_bn(2 * width, 4 * width),
            nn.MaxPool2d(2),  # 4x4 -> 2x2
            nn.Flatten(),
        )
        self.classifier = nn.Linear(4 * width * 2 * 2, num_classes)

    def forward(self, images):
        return self.classifier(self.features(images))
