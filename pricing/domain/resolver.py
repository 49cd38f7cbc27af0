"""Map an entry's free-text `hardware` to a catalog instance type and a count, or say why not.

It never guesses. An instance is matched when the text names it (e.g. `[p2.xlarge]`, `g3.4xlarge`,
`16 ecs.gn6e-c12g1.24xlarge`), the name is unique (or a provider named in the text settles it), and any
accelerator the text names is the one that instance carries. A text that names no instance is matched by its
shape only when it names a provider and its accelerators (`Lambda GPU Cloud - 4x GTX 1080 Ti`), every vCPU and
GB figure it gives is the instance's, and exactly one instance of that provider in the catalog has that shape.
A machine the provider bills by its parts is priced so: a Google machine given by its GPUs, vCPUs and GB, or a
named machine type beside accelerators it does not carry ('GCP n1-standard-2, Cloud TPU v2').
A refusal says what is missing: the provider, a part, or prices (a provider that publishes none).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

PROVIDER_HINTS = {
    "aws": ("aws", "amazon", "ec2"),
    "gcp": ("google", "gcp", "gce"),
    "azure": ("azure", "microsoft"),
    "alibaba": ("alibaba", "aliyun"),
    "huawei": ("huawei",),
    "baidu": ("baidu",),
    "paperspace": ("paperspace",),
    "lambda": ("lambda",),
}
# Providers that publish no price list: an entry on their machines cannot be checked, and says why.
NO_PUBLIC_PRICES = {
    "Huawei Cloud": ("huawei",),
    "Kakao Brain BrainCloud": ("kakao", "braincloud"),
}
ACCELERATOR_WORDS = (
    "K80", "M60", "P100", "V100", "T4", "A10G", "A100", "H100", "H200", "L4", "P4", "GTX 1080 Ti", "TPUv2", "TPUv3",
)  # fmt: skip
VOLTA = re.compile(r"\bvolta\b", re.IGNORECASE)
TPU = re.compile(r"TPU", re.IGNORECASE)
TPU_VERSION = re.compile(r"\bTPUs?[\s_-]*v?([23])\b", re.IGNORECASE)  # 'TPU v2', 'TPUs v3', 'TPUv2': TPUv2 / TPUv3
TPU_UNVERSIONED = re.compile(r"\bTPUs?\b(?![\s_-]*v?[23]\b)", re.IGNORECASE)
TPU_SLICE = re.compile(
    r"\bv[23]-(\d+)\b", re.IGNORECASE
)  # in a TPU text, 'v2-8' is one device (8 cores); 'v3-32' a slice
TPU_CORES = re.compile(r"(?<![\w.-])(\d+)\s*(?:cloud\s*)?(?:TPUs?\s*)?(?:v[23]\s*)?cores?\b", re.IGNORECASE)
TPU_POD = re.compile(r"\bTPU.*\bpods?\b|\bpods?\b.*\bTPU", re.IGNORECASE)
TPU_CORES_PER_DEVICE = 8
GENERIC_ACCELERATOR = re.compile(r"\b(?:GPUs?|TPUs?|accelerators?)\b", re.IGNORECASE)
STANDALONE_NUMBER = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w.])")
FIGURE_UNITS = re.compile(r"\s*(?:GB|GiB|v?CPUs?|vCPUs?|cores?)\b", re.IGNORECASE)
CUSTOM_MACHINE = "custom"  # a provider's per-vCPU and per-GB prices for a machine of any shape: n1-custom-vcpu
PRICED_BY_PARTS = ("gcp",)  # providers billing a VM and its GPUs apart: a GPU-only row is a part, never a machine
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]")


@dataclass(frozen=True)
class KnownInstance:
    provider: str
    name: str
    accelerator: str
    accelerator_count: int
    vcpus: int = 0
    memory_gib: float = 0


@dataclass(frozen=True)
class Resolution:
    """An instance and how many; or a machine priced by its parts (`parts`: catalog instance names and counts, a
    machine and its GPUs, or vCPUs, GB and GPUs); or, neither given, the reason none is matched."""

    provider: str | None
    instance: str | None
    count: int
    reason: str
    parts: tuple[tuple[str, int], ...] = ()

    @property
    def resolved(self) -> bool:
        return self.instance is not None or bool(self.parts)


def resolve_hardware(text: str, known: Iterable[KnownInstance]) -> Resolution:
    accelerator_text = text
    if TPU.search(text):
        cores = [int(n) for n in TPU_SLICE.findall(text) + TPU_CORES.findall(text)]
        if TPU_POD.search(text) or any(n != TPU_CORES_PER_DEVICE for n in cores):
            return _refused(
                "the text names a Cloud TPU pod or pod slice, and the catalog prices single TPU devices only"
            )
        if TPU_UNVERSIONED.search(text):
            return _refused("the text names a Cloud TPU but not its version (v2 or v3), which sets its price")
        # Accelerators are read with 'TPU v2' written as the catalog writes it, and a device's '8 cores' as no count;
        # instance names from the text itself.
        accelerator_text = TPU_CORES.sub(lambda found: found.group().replace(found.group(1), "", 1), text)
        accelerator_text = TPU_VERSION.sub(lambda found: f"TPUv{found.group(1)}", accelerator_text)
    known = list(known)
    by_name: dict[str, list[KnownInstance]] = {}
    for instance in known:
        by_name.setdefault(instance.name.lower(), []).append(instance)
    named = {}
    accelerator_names = {word.lower() for word in ACCELERATOR_WORDS}
    for match in TOKEN.finditer(text):
        if match.group().lower() in accelerator_names:  # 'V100' names a GPU, even where an instance is so called
            continue
        candidates = by_name.get(match.group().lower().rstrip("."))
        if candidates:
            named.setdefault(match.group().lower(), (candidates, match.start()))
    if not named:
        return _by_shape(accelerator_text, list(by_name.values()))
    if len(named) > 1:
        return _refused(f"the text names several instance types ({', '.join(sorted(named))})")
    ((candidates, position),) = named.values()
    if len(candidates) > 1:
        hinted = [candidate for candidate in candidates if _mentions_provider(text, candidate.provider)]
        if len(hinted) != 1:
            providers = ", ".join(sorted(candidate.provider for candidate in candidates))
            return _refused(f"'{candidates[0].name}' exists at several providers ({providers}) and the text names none")
        candidates = hinted
    instance = candidates[0]
    count = _count_before(text, position)
    mentioned = _accelerators_named(accelerator_text)
    if not instance.accelerator and mentioned:
        return _machine_type_and_accelerators(accelerator_text, instance, known, count=count)
    if not instance.accelerator and GENERIC_ACCELERATOR.search(text):
        return _refused(f"the text names accelerators beside {instance.name}, which carries none, but not their model")
    if mentioned and instance.accelerator and instance.accelerator.upper() not in mentioned:
        return _refused(
            f"the text names {', '.join(sorted(mentioned))} but {instance.name} carries {instance.accelerator}"
        )
    reason = f"names {instance.provider} {instance.name}" + (f" x {count}" if count > 1 else "")
    return Resolution(provider=instance.provider, instance=instance.name, count=count, reason=reason)


def _machine_type_and_accelerators(
    text: str, machine: KnownInstance, known: list[KnownInstance], *, count: int
) -> Resolution:
    """A named machine type that carries no accelerator, beside accelerators the text names ('GCP n1-standard-2,
    Cloud TPU v2'): priced by its parts, the machine type and each accelerator at the provider's own price for
    one, when the provider sells them so; else refused, never priced as the machine type alone."""
    accelerators = _accelerator_counts(text)
    if len(accelerators) > 1:
        return _refused(f"the text names several accelerators ({', '.join(sorted(accelerators))})")
    ((accelerator, accelerator_count),) = accelerators.items()
    stray = _unexplained_numbers(text, machine, counts=(count, accelerator_count))
    if stray:
        return _refused(
            f"the text gives {', '.join(stray)} beside {machine.name} and its {accelerator}, a number that is neither "
            "how many of either nor the machine type's vCPUs or GB"
        )
    singles = [i for i in known if i.provider == machine.provider and _one_accelerator_alone(i, accelerator)]
    if len(singles) != 1:
        return _refused(
            f"the text names {accelerator_count} x {accelerator} beside {machine.name}, which carries none, and the "
            f"catalog has no {machine.provider} price for one {accelerator} on its own"
        )
    machines = f"{count} x the {machine.name} machine type" if count > 1 else f"the {machine.name} machine type"
    reason = f"priced by its parts: {machines}, and {accelerator_count} x {singles[0].name}"
    parts = ((machine.name, count), (singles[0].name, accelerator_count))
    return Resolution(provider=machine.provider, instance=None, count=1, reason=reason, parts=parts)


def _unexplained_numbers(text: str, machine: KnownInstance, *, counts: tuple[int, ...]) -> list[str]:
    """Numbers standing alone in the text that are no count taken and no vCPU or GB figure of the machine
    ('GCP n1-standard-32 with 4 NVIDIA Tesla V100': 4 GPUs, or one each on 4 machines?)."""
    unexplained = []
    explained_counts = list(counts)
    for found in STANDALONE_NUMBER.finditer(text):
        number = float(found.group())
        if FIGURE_UNITS.match(text, found.end()):
            if number not in (machine.vcpus, machine.memory_gib):
                unexplained.append(found.group())
        elif number in explained_counts:
            explained_counts.remove(number)
        else:
            unexplained.append(found.group())
    return unexplained


def _by_shape(text: str, instances: list[list[KnownInstance]]) -> Resolution:
    """The one instance of the provider the text names with the accelerators, vCPUs and GB it gives; or why not."""
    for name, hints in NO_PUBLIC_PRICES.items():
        if any(hint in text.lower() for hint in hints):
            return _refused(f"the text names no instance type in the price catalog: {name} publishes no prices")
    providers = [provider for provider in PROVIDER_HINTS if _mentions_provider(text, provider)]
    if len(providers) != 1:
        return _refused(
            "the text names no instance type in the price catalog, and "
            + ("no provider in the price catalog" if not providers else f"several providers ({', '.join(providers)})")
        )
    (provider,) = providers
    accelerators = _accelerator_counts(text)
    if not accelerators:
        return _refused(f"the text names no instance type in the price catalog, and no accelerator of a {provider} one")
    if len(accelerators) > 1:
        return _refused(f"the text names several accelerators ({', '.join(sorted(accelerators))})")
    ((accelerator, count),) = accelerators.items()
    vcpus, memory = _figure(text, r"(?:v?CPUs?|vCPUs?)"), _figure(text, r"GB")
    shaped = [
        instance
        for same_name in instances
        for instance in same_name
        if instance.provider == provider
        and instance.accelerator.upper() == accelerator.upper()
        and instance.accelerator_count == count
        and not (provider in PRICED_BY_PARTS and not instance.vcpus)  # a GPU alone is no machine there
        and vcpus in (None, instance.vcpus)
        and memory in (None, instance.memory_gib)
    ]
    shape = f"{count} x {accelerator}"
    shape += (f", {vcpus:g} vCPUs" if vcpus else "") + (f", {memory:g} GB" if memory else "")
    if not shaped and vcpus and memory:
        by_parts = _by_parts(provider, accelerator, count, vcpus, memory, [i for same in instances for i in same])
        if by_parts is not None:
            return by_parts
    if len(shaped) != 1:
        found = "no" if not shaped else "several"
        return _refused(f"the text names no instance type in the price catalog; {found} {provider} instance is {shape}")
    instance = shaped[0]
    reason = f"the only {provider} instance in the catalog that is {shape}: {instance.name}"
    return Resolution(provider=provider, instance=instance.name, count=1, reason=reason)


def _by_parts(
    provider: str, accelerator: str, count: int, vcpus: float, memory: float, instances: list[KnownInstance]
) -> Resolution | None:
    """A machine the provider prices by its parts (Google: a VM, and GPUs per GPU): the GPUs as the provider's
    GPU-only instance of that accelerator, and the VM as its machine type of exactly those vCPUs and GB, or else
    as so many vCPUs and GB at its per-vCPU and per-GB prices. None when the catalog lacks any part."""
    own = [instance for instance in instances if instance.provider == provider]
    gpus = [i for i in own if _one_accelerator_alone(i, accelerator)]
    machines = [i for i in own if not i.accelerator and i.vcpus == vcpus and i.memory_gib == memory]
    custom = [i for i in own if not i.accelerator and CUSTOM_MACHINE in i.name]  # not the predefined types' rates
    per_vcpu = [i for i in custom if i.vcpus == 1 and not i.memory_gib]
    per_gib = [i for i in custom if not i.vcpus and i.memory_gib == 1]
    if len(gpus) != 1 or not (len(machines) == 1 or (len(per_vcpu) == 1 and len(per_gib) == 1)):
        return None
    if len(machines) == 1:
        vm_parts = ((machines[0].name, 1),)
        vm = f"the {machines[0].name} machine type ({vcpus:g} vCPUs, {memory:g} GB)"
    else:
        vm_parts = ((per_vcpu[0].name, int(vcpus)), (per_gib[0].name, int(memory)))
        vm = f"{vcpus:g} vCPUs and {memory:g} GB at {provider}'s per-vCPU and per-GB prices"
    reason = f"priced by its parts: {vm}, and {count} x {gpus[0].name}"
    parts = (*vm_parts, (gpus[0].name, count))
    return Resolution(provider=provider, instance=None, count=1, reason=reason, parts=parts)


def _one_accelerator_alone(instance: KnownInstance, accelerator: str) -> bool:
    """A catalog row pricing one `accelerator` on its own, with no VM (Google's gpu-nvidia-tesla-k80, tpu-v2-8)."""
    same_accelerator = instance.accelerator.upper() == accelerator.upper()
    return same_accelerator and instance.accelerator_count == 1 and not instance.vcpus


def _accelerator_counts(text: str) -> dict[str, int]:
    """Each accelerator the text names, with the count written beside it ('4x GTX 1080 Ti', 'V100*1', '8 * V100',
    'V100 * 4 GPU'), or 1; 'Volta' alone reads as a V100."""
    counts = {}
    for word in ACCELERATOR_WORDS:
        pattern = re.escape(word).replace(r"\ ", r"\s+")
        before = r"(?:(?<![\w.-])(\d+)\s*[x×*]?\s*)?"  # a count stands alone: n1-standard-16's 16 is none  # noqa: RUF001
        after = r"(?:[-\w]*\s*[x×*]\s*(\d+))?"  # noqa: RUF001
        found = re.search(rf"{before}(?<![A-Za-z0-9]){pattern}(?![A-Za-z0-9]){after}", text, re.IGNORECASE)
        if found:
            counts[word] = int(found.group(1) or found.group(2) or 1)
    if not counts and VOLTA.search(text):
        counts["V100"] = 1
    return counts


def _figure(text: str, unit: str) -> float | None:
    """The number written before `unit` ('30 GB', '8 CPU'), if the text gives one."""
    found = re.search(rf"(?<![\w.-])(\d+(?:\.\d+)?)\s*{unit}\b", text, re.IGNORECASE)  # not a GPU's '-16GB'
    return float(found.group(1)) if found else None


def _refused(reason: str) -> Resolution:
    return Resolution(provider=None, instance=None, count=0, reason=reason)


def _mentions_provider(text: str, provider: str) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in PROVIDER_HINTS.get(provider, (provider,)))


def _accelerators_named(text: str) -> set[str]:
    """The accelerators the text names, upper-cased ('GTX 1080 TI' too: a word is matched whatever its case)."""
    upper = text.upper()
    words = (word.upper() for word in ACCELERATOR_WORDS)
    named = {word for word in words if re.search(rf"(?<![A-Z0-9]){re.escape(word)}(?![A-Z0-9])", upper)}
    return named or ({"V100"} if VOLTA.search(text) else set())


def _count_before(text: str, position: int) -> int:
    """A count written right before the instance name ('16 ecs.gn6e-…', '2 x p3.16xlarge'); else 1."""
    # The number must stand alone ('EC2 [p2.xlarge]' holds no count).
    match = re.search(r"(?<![\w.])(\d+)\s*(?:[x×*]\s*)?[\[(]?\s*$", text[:position])  # noqa: RUF001
    return int(match.group(1)) if match and int(match.group(1)) > 0 else 1
