"""ResNet-9 (the cifar10/resnet9 recipe) training throughput on synthetic CIFAR-shaped data.

Times training steps (forward, loss with label smoothing, backward, SGD) of the recipe's own model, loss
and optimizer at its batch size of 512 on random 3x32x32 images, in the same run:

* baseline: fp32 in the default contiguous (NCHW) layout;
* ours: fp32 channels_last, the layout the job uses on the CPU (and, with bf16 autocast, on CUDA).

It prints images per second of each, their ratio, and the projected time to 94 % on the full dataset
(24 epochs x 50,000 images, as the recipe's schedule), beside public records: ResNet-9 on one V100 reached
94 % in 0.0206 h = 74 s (DAWNBench, davidcpage_resnet9_1v100-ec2_pytorch); airbench94 (Keller Jordan, 2024)
reaches it in 3.83 s on one A100. `--device cuda` runs the same on a GPU (with bf16 autocast).

Usage: .venv/bin/python bench/cifar_throughput.py [--steps 6] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.algorithms.recipes import recipe_optimizer  # noqa: E402
from benchmarks.runner.loop import mixed_precision  # noqa: E402
from benchmarks.workloads.cifar10 import ResNet9Cifar10  # noqa: E402

TRAIN_IMAGES, EPOCHS = 50_000, 24
V100_SECONDS, A100_AIRBENCH_SECONDS = 0.02056706 * 3600, 3.83


def images_per_second(device: torch.device, channels_last: bool, steps: int) -> float:
    workload = ResNet9Cifar10()
    torch.manual_seed(0)
    model = workload.build_model().to(device)
    layout = torch.channels_last if channels_last else torch.contiguous_format
    model = model.to(memory_format=layout)
    optimizer, schedule = recipe_optimizer(workload, model, steps_per_epoch=100)
    images = torch.randn(workload.batch_size, 3, 32, 32, device=device).contiguous(memory_format=layout)
    labels = torch.randint(0, 10, (workload.batch_size,), device=device)
    autocast = mixed_precision(device)
    model.train()

    def step():
        with autocast:
            loss = workload.loss(model, (images, labels))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        schedule.step()

    for _ in range(2):  # warm-up: allocator, cuDNN autotuning
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(steps):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return steps * workload.batch_size / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
        name = torch.cuda.get_device_name(0)
    else:
        name = f"{torch.get_num_threads()} CPU threads"
    contiguous = images_per_second(device, channels_last=False, steps=args.steps)
    channels_last = images_per_second(device, channels_last=True, steps=args.steps)
    projected = EPOCHS * TRAIN_IMAGES / channels_last
    print(f"ResNet-9, batch 512, {name}, torch {torch.__version__}")
    print(f"contiguous (NCHW): {contiguous:,.0f} images/s")
    print(f"channels_last:     {channels_last:,.0f} images/s  (ratio {channels_last / contiguous:.2f})")
    print(
        f"projected time to 94 % (24 epochs of 50,000 images, evaluation excluded): {projected:,.0f} s "
        f"= {projected / 3600:.2f} h; ResNet-9 on one V100 (DAWNBench): {V100_SECONDS:.0f} s "
        f"({projected / V100_SECONDS:,.0f}x); airbench94 on one A100: {A100_AIRBENCH_SECONDS} s"
    )


if __name__ == "__main__":
    main()
