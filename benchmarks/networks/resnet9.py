"""ResNet-9 of Myrtle.ai's DAWNBench-winning CIFAR-10 entry (David Page, "How to train your ResNet").

The network of `dawn.py` in https://github.com/davidcpage/cifar10-fast, the code of the DAWNBench entry
`davidcpage_resnet9_1v100-ec2_pytorch` (94% top-1 in 24 epochs): three convolution-BatchNorm-ReLU layers
that double the width and halve the resolution, residual pairs after the first and the third, a global
max pool and a linear classifier whose output is scaled by 1/8. About 6.57M parameters.
"""

from __future__ import annotations

import torch
from torch import nn

from benchmarks.networks.layers import conv_bn

CLASSIFIER_SCALE = 0.125  # Page's `Mul(weight)`: smaller logits trained better than a plain linear head


class Residual(nn.Module):
    """x + conv_bn(conv_bn(x)), at constant width and resolution."""

    def __init__(self, channels: int):
        super().__init__()
        self.body = nn.Sequential(conv_bn(channels, channels), conv_bn(channels, channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x)


class ResNet9(nn.Module):
    """Page's ResNet-9 for 32x32 images."""

    def __init__(self, num_classes: int = 10, widths: tuple[int, int, int, int] = (64, 128, 256, 512)):
        super().__init__()
        prep, layer1, layer2, layer3 = widths
        self.features = nn.Sequential(
            conv_bn(3, prep),
            conv_bn(prep, layer1),
            nn.MaxPool2d(2),
            Residual(layer1),
            conv_bn(layer1, layer2),
            nn.MaxPool2d(2),
            conv_bn(layer2, layer3),
            nn.MaxPool2d(2),
            Residual(layer3),
            nn.AdaptiveMaxPool2d(1),  # Page's MaxPool2d(4) on the 4x4 maps of a 32x32 input
            nn.Flatten(),
        )
        self.classifier = nn.Linear(layer3, num_classes, bias=False)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(images)) * CLASSIFIER_SCALE
