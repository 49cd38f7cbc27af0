"""The prepared GPU check (`make gpu-check`): every CUDA path of the project on one GPU, with its figures.

Run it whenever a machine with a GPU is at hand; it takes a few minutes and prints, section by section:

1. the machine: torch, the GPU, its memory, the CPU threads;
2. training steps of each reference network on batches of the real shapes (the recipe's batch, CIFAR's 32 x 32,
   ImageNet's 288 x 288 upstream crops cut to 224, SQuAD batches padded to 256 context and 32 question tokens
   over a vocabulary of 90,000 words): the job's own step (`benchmarks.runner.loop.training_step`: the
   augmentation on the device, bf16 autocast, channels_last where the recipe uses it, the optimizer), items
   per second on the GPU against the same step on the CPU (fp32, a smaller batch where the recipe's would
   take minutes there);
3. every recipe through the job itself on CUDA (`benchmarks.runner.job.reference_run`): digits to its threshold,
   the others one epoch on a tiny dataset in its real on-disk format (which rarely reaches a threshold, so the
   board refuses it with threshold_not_reached: what is checked is that it reads the files): the files written,
   read back by the board's ingest, the GPU named in the run record;
4. the clock on the GPU: `bench/clock_noise.py --device cuda` (one seed 10 times, and 5 seeds), and the same
   on 2 CPU threads of this machine (idle, unlike the shared machine the project is built on), the goal being
   a coefficient of variation of at most 5 % for one seed;
5. onnxruntime's execution providers: whether the CUDA provider is installed;
6. inference through MLPerf LoadGen (`inference.loadgen`): ResNet-9, ResNet-50 (bf16 autocast, channels_last) and
   SQuAD's BiDAF (bf16 autocast, questions of 100-180 context tokens, padded in batches) in eval mode answering
   LoadGen's queries, single stream (its 90th percentile and the early-stopping
   estimate) and offline (samples per second at the batch given), each a calibrated test of at least 3 s, on the
   GPU and, single stream, on the CPU.

A section that fails prints its error and the check goes on; the exit status is 1 when any failed.

Usage: make gpu-check  (or: python bench/gpu_check.py [--device cuda|cpu] [--sections 1,2,3,4,5])
`--device cpu` runs the same paths on the CPU alone, to try the script on a machine without a GPU.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from benchmarks.runner.algorithm import Algorithm  # noqa: E402
from benchmarks.runner.config import Device, RunConfig  # noqa: E402
from benchmarks.runner.job import reference_run  # noqa: E402
from benchmarks.runner.loop import mixed_precision, model_on, synchronize, training_step  # noqa: E402
from benchmarks.workloads import workload_class  # noqa: E402
from benchmarks.workloads.squad import SquadBatch  # noqa: E402

# SQuAD v1.1 batches as the recipe meets them: padded to the longest paragraph and question of the batch.
SQUAD_CONTEXT_TOKENS, SQUAD_QUESTION_TOKENS, SQUAD_WORDS, SQUAD_CHARACTERS = 256, 32, 90_000, 300
IMAGENET_CLASSES = 1000
GPU_STEPS, CPU_STEPS = 10, 2


@dataclass(frozen=True)
class RealShapes:
    """One reference network with a batch of its real shapes, ready for the job's training step."""

    task: str
    recipe: str
    make: Callable[[int, torch.Generator], tuple[object, object]]  # (batch size, generator) -> (workload, batch)
    cpu_batch: int | None = None  # a smaller batch on the CPU; None: the recipe's

    @property
    def batch_size(self) -> int:
        """The recipe's batch."""
        return workload_class(self.task, self.recipe)().batch_size


def _with_synthetic_batch(task: str, recipe: str) -> Callable[[int, torch.Generator], tuple[object, object]]:
    def make(size: int, generator: torch.Generator):
        workload = workload_class(task, recipe)()
        return workload, workload.synthetic_batch(size, generator)

    return make


def _imagenet(size: int, generator: torch.Generator):
    workload = workload_class("imagenet", "resnet50")()
    workload.classes = tuple(f"n{index:08d}" for index in range(IMAGENET_CLASSES))  # what `load` counts
    side = int(workload.config["upstream_size"])
    images = torch.randint(0, 256, (size, 3, side, side), generator=generator, dtype=torch.uint8)
    return workload, (images, torch.randint(0, IMAGENET_CLASSES, (size,), generator=generator))


def _squad(size: int, generator: torch.Generator):
    workload = workload_class("squad", "bidaf")()
    workload.word_dim = int(workload.config["word_dim"])  # what `load` sets, without word vectors
    workload.words = {f"w{index}": index for index in range(2, SQUAD_WORDS + 2)}
    workload.chars = {chr(index): index for index in range(2, SQUAD_CHARACTERS + 2)}
    workload.pretrained_ids = torch.zeros(0, dtype=torch.long)
    workload.pretrained_vectors = torch.zeros(0, workload.word_dim)
    chars = int(workload.config["max_word_chars"])

    def ids(high: int, *shape: int) -> torch.Tensor:
        return torch.randint(2, high + 2, shape, generator=generator)

    start = torch.randint(0, SQUAD_CONTEXT_TOKENS - 16, (size,), generator=generator)
    batch = SquadBatch(
        ids(SQUAD_WORDS, size, SQUAD_CONTEXT_TOKENS),
        ids(SQUAD_CHARACTERS, size, SQUAD_CONTEXT_TOKENS, chars),
        ids(SQUAD_WORDS, size, SQUAD_QUESTION_TOKENS),
        ids(SQUAD_CHARACTERS, size, SQUAD_QUESTION_TOKENS, chars),
        start,
        start + torch.randint(0, 15, (size,), generator=generator),
    )
    return workload, batch


NETWORKS = (
    RealShapes("digits", "cnn", _with_synthetic_batch("digits", "cnn")),
    RealShapes("cifar10", "resnet9", _with_synthetic_batch("cifar10", "resnet9")),
    RealShapes("cifar10", "resnet164", _with_synthetic_batch("cifar10", "resnet164"), cpu_batch=32),
    RealShapes("imagenet", "resnet50", _imagenet, cpu_batch=16),
    RealShapes("squad", "bidaf", _squad, cpu_batch=12),
)


def items_per_second(network: RealShapes, device: torch.device, batch_size: int | None, steps: int) -> float:
    """The job's training step, timed over `steps` after two warm-up steps (cuDNN's autotuning, the allocator)."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    size = batch_size or network.batch_size
    workload, batch = network.make(size, generator)
    model = model_on(workload, device)
    model.train()
    steps_taken = Algorithm.of(workload).start(workload, model, steps_per_epoch=100, autocast=mixed_precision(device))
    augmentation = torch.Generator(device=device).manual_seed(0)

    def step() -> None:
        training_step(workload, model, steps_taken, batch, device, augmentation)

    for _ in range(2):
        step()
    synchronize(device)
    started = time.perf_counter()
    for _ in range(steps):
        step()
    synchronize(device)
    return steps * size / (time.perf_counter() - started)


def section_machine(device: torch.device) -> None:
    print(f"  torch {torch.__version__}, {torch.get_num_threads()} CPU threads, {os.cpu_count()} CPUs")
    if device.type == "cuda":
        properties = torch.cuda.get_device_properties(device)
        print(
            f"  GPU {properties.name}: {properties.total_memory / 2**30:.1f} GiB, {properties.multi_processor_count} "
            f"multiprocessors, capability {properties.major}.{properties.minor}, CUDA {torch.version.cuda}, "
            f"cuDNN {torch.backends.cudnn.version()}"
        )
    print(f"  load average {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


def section_steps(device: torch.device) -> None:
    """On a GPU, the recipe's batch there against the CPU's figure; with --device cpu, the CPU's figure alone."""
    torch.backends.cudnn.benchmark = True
    on_gpu = device.type == "cuda"
    print(f"  {'network':18} {'batch':>6} {'GPU items/s':>12} {'CPU batch':>10} {'CPU items/s':>12} {'ratio':>7}")
    for network in NETWORKS:
        batch = network.batch_size
        fast = items_per_second(network, device, None, GPU_STEPS) if on_gpu else None
        slow = items_per_second(network, torch.device("cpu"), network.cpu_batch, CPU_STEPS)
        gpu_cells = f"{batch:>6} {fast:>12,.0f}" if fast else f"{'':>6} {'-':>12}"
        ratio = f"{fast / slow:>6,.1f}x" if fast else f"{'-':>7}"
        name = f"{network.task}/{network.recipe}"
        print(f"  {name:18} {gpu_cells} {network.cpu_batch or batch:>10} {slow:>12,.1f} {ratio}")


def section_jobs(device: torch.device) -> None:
    from tests.benchmarks.tiny_datasets import TINY_DATASETS

    recipes = {("digits", "cnn"): (None, {}), **TINY_DATASETS}  # digits' data is real: trained to its threshold
    failed = []
    with tempfile.TemporaryDirectory() as folder:
        for (task, recipe), (write, overrides) in recipes.items():
            data_dir = write(Path(folder) / task / "data") if write else None
            config = RunConfig(
                task=task,
                recipe=recipe,
                data_dir=data_dir,
                device=Device(device.type),
                max_epochs=1 if write else None,
                overrides=dict(overrides),
            )
            started = time.perf_counter()
            try:
                report = reference_run(config, Path(folder) / task / recipe)
            except Exception as error:
                failed.append(f"{task}/{recipe}")
                print(f"  {task}/{recipe:10} FAILED: {type(error).__name__}: {error}")
                traceback.print_exc(limit=4)
                continue
            machine = report.written.record["machine"] if report.written else {}
            verdict = report.verdict
            reading = "accepted" if verdict is not None and verdict.accepted else "refused"
            codes = ", ".join(str(issue.code) for issue in getattr(verdict, "errors", []))
            epochs = len(report.result.evaluations)
            print(
                f"  {task + '/' + recipe:18} {epochs} epoch(s) in {time.perf_counter() - started:5.1f} s, quality "
                f"{report.result.evaluations[-1].quality:.2f}, the board's reading: {reading} {codes}, "
                f"the record's GPU: {machine.get('gpu_model')} x {machine.get('gpu_count')}"
            )
    if failed:
        raise RuntimeError(f"the job failed for {', '.join(failed)}")


def section_clock(device: torch.device) -> None:
    runs = [["--device", device.type, "--repeats", "10", "--seeds", "5"]]
    if device.type == "cuda":
        runs.append(["--device", "cpu", "--threads", "2", "--repeats", "10", "--seeds", "0"])
    failed = False
    for arguments in runs:
        print(f"  $ bench/clock_noise.py {' '.join(arguments)}", flush=True)
        completed = subprocess.run([sys.executable, str(ROOT / "bench" / "clock_noise.py"), *arguments], check=False)
        failed = failed or completed.returncode != 0
    if failed:
        raise RuntimeError("bench/clock_noise.py failed")


# Inference through MLPerf LoadGen: each image network in eval mode answering LoadGen's queries (the job's mixed
# precision and layout), over items of its real shape held in memory.
# (task, recipe, items, offline batch): SQuAD's questions of the dev set's typical lengths, batched padded.
LOADGEN_NETWORKS = (("cifar10", "resnet9", 1024, 512), ("imagenet", "resnet50", 256, 256), ("squad", "bidaf", 512, 256))
LOADGEN_MIN_DURATION_MS = 3000


def torch_answer(model: torch.nn.Module, device: torch.device, channels_last: bool) -> Callable:
    @torch.inference_mode()
    def answer(batch):
        if isinstance(batch, tuple):  # a reader's four arrays of ids: its start and end logits
            with mixed_precision(device):
                outputs = model(*(torch.from_numpy(array).to(device) for array in batch))
            return tuple(output.float().cpu().numpy() for output in outputs)
        inputs = torch.from_numpy(batch).to(device)
        inputs = inputs.contiguous(memory_format=torch.channels_last) if channels_last else inputs
        with mixed_precision(device):
            return model(inputs).float().cpu().numpy()

    return answer


def loadgen_test(answer: Callable, items, scenario: str, out_dir: Path, **chosen):
    """A calibrated LoadGen test of at least LOADGEN_MIN_DURATION_MS, as `measure_inference` runs the MLPerf
    profile but shorter."""
    from inference.loadgen import LoadGenSettings, calibrated, loadgen_run

    asked = replace(
        LoadGenSettings.of(scenario, items=len(items), quick=False, **chosen), min_duration_ms=LOADGEN_MIN_DURATION_MS
    )
    settings = calibrated(asked, answer, items, out_dir / f"{scenario}-probe")
    return loadgen_run(answer, items, settings, out_dir / scenario).test


def section_loadgen(device: torch.device) -> None:
    from bench.made_up_items import held_library, made_up_items

    columns = f"{'single stream p90 (early stopping)':>36} {'mean':>9} {'offline batch':>13} {'samples/s':>11}"
    print(f"  {'network':18} {'where':6} {columns}")
    generator = torch.Generator().manual_seed(0)
    with tempfile.TemporaryDirectory() as folder:
        for task, recipe, count, batch_size in LOADGEN_NETWORKS:
            network = next(network for network in NETWORKS if (network.task, network.recipe) == (task, recipe))
            workload, _ = network.make(1, generator)  # a workload ready to build its model
            items = held_library(*made_up_items(workload, count, generator))
            places = [device, torch.device("cpu")] if device.type == "cuda" else [device]
            for place in places:
                answer = torch_answer(model_on(workload, place).eval(), place, workload.channels_last)
                out_dir = Path(folder) / f"{recipe}-{place.type}"
                single = loadgen_test(answer, items, "single-stream", out_dir)
                on_gpu = place.type == "cuda"
                offline = loadgen_test(answer, items, "offline", out_dir, batch_size=batch_size) if on_gpu else None
                invalid = [test.scenario for test in (single, offline) if test is not None and not test.valid]
                latency = f"{single.p90_ms:.3f} ms ({single.early_stopping_p90_ms:.3f} ms)"
                rate = f"{batch_size:>13} {offline.samples_per_second:>11,.0f}" if offline else f"{'-':>13} {'-':>11}"
                print(
                    f"  {task + '/' + recipe:18} {place.type:6} {latency:>36} {single.mean_ms:>6.3f} ms {rate}"
                    + (f"  INVALID: {', '.join(invalid)}" if invalid else "")
                )


def section_onnxruntime(device: torch.device) -> None:
    try:
        import onnxruntime
    except ImportError:
        print("  onnxruntime is not installed here")
        return
    providers = onnxruntime.get_available_providers()
    print(f"  onnxruntime {onnxruntime.__version__}, providers: {', '.join(providers)}")
    if "CUDAExecutionProvider" not in providers:
        print("  the CUDA execution provider is not installed (onnxruntime-gpu): inference stays on the CPU here")


SECTIONS = {
    "1": ("the machine", section_machine),
    "2": ("training steps on batches of the real shapes", section_steps),
    "3": ("every recipe through the job: digits to its threshold, the others one epoch on tiny data", section_jobs),
    "4": ("the clock, one seed repeated and several seeds", section_clock),
    "5": ("onnxruntime", section_onnxruntime),
    "6": ("inference through MLPerf LoadGen: single stream and offline", section_loadgen),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=[device.value for device in Device], default=Device.CUDA.value)
    parser.add_argument("--sections", default=",".join(SECTIONS), help="which, comma-separated (default: all)")
    arguments = parser.parse_args()
    if arguments.device == "cuda" and not torch.cuda.is_available():
        print("gpu-check: torch sees no CUDA device here; run it on a machine with a GPU (or --device cpu).")
        return 2
    device = torch.device(arguments.device)
    started = time.perf_counter()
    failed = []
    for key in arguments.sections.split(","):
        title, section = SECTIONS[key]
        print(f"\n{key}. {title}", flush=True)
        section_started = time.perf_counter()
        try:
            section(device)
        except Exception as error:
            failed.append(key)
            print(f"  section {key} FAILED: {type(error).__name__}: {error}")
            traceback.print_exc(limit=6)
        print(f"  ({time.perf_counter() - section_started:.1f} s)", flush=True)
    verdict = f"FAILED in section(s) {', '.join(failed)}" if failed else "PASSED"
    print(f"\ngpu-check {verdict}, {time.perf_counter() - started:.0f} s in all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
