"""Map an entry's free-text `hardware` to a catalog instance type and a count, or say why not.

It never guesses: an instance is matched only when the text names it (e.g. `[p2.xlarge]`,
`g3.4xlarge`, `16 ecs.gn6e-c12g1.24xlarge`), the name is unique (or a provider named in the text
settles it), and any accelerator the text names is the one that instance carries.
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
ACCELERATOR_WORDS = ("K80", "M60", "P100", "V100", "T4", "A10G", "A100", "H100", "H200", "L4", "P4")
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]")


@dataclass(frozen=True)
class KnownInstance:
    provider: str
    name: str
    accelerator: str
    accelerator_count: int


@dataclass(frozen=True)
class Resolution:
    """An instance and how many, or (instance None) the reason none is matched."""

    provider: str | None
    instance: str | None
    count: int
    reason: str

    @property
    def resolved(self) -> bool:
        return self.instance is not None


def resolve_hardware(text: str, known: Iterable[KnownInstance]) -> Resolution:
    by_name: dict[str, list[KnownInstance]] = {}
    for instance in known:
        by_name.setdefault(instance.name.lower(), []).append(instance)
    named = {}
    for match in TOKEN.finditer(text):
        candidates = by_name.get(match.group().lower().rstrip("."))
        if candidates:
            named.setdefault(match.group().lower(), (candidates, match.start()))
    if not named:
        return _refused("the text names no instance type in the price catalog")
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
    mentioned = _accelerators_named(text)
    if mentioned and instance.accelerator and instance.accelerator.upper() not in mentioned:
        return _refused(
            f"the text names {', '.join(sorted(mentioned))} but {instance.name} carries {instance.accelerator}"
        )
    count = _count_before(text, position)
    reason = f"names {instance.provider} {instance.name}" + (f" x {count}" if count > 1 else "")
    return Resolution(provider=instance.provider, instance=instance.name, count=count, reason=reason)


def _refused(reason: str) -> Resolution:
    return Resolution(provider=None, instance=None, count=0, reason=reason)


def _mentions_provider(text: str, provider: str) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in PROVIDER_HINTS.get(provider, (provider,)))


def _accelerators_named(text: str) -> set[str]:
    upper = text.upper()
    return {word for word in ACCELERATOR_WORDS if re.search(rf"(?<![A-Z0-9]){word}(?![A-Z0-9])", upper)}


def _count_before(text: str, position: int) -> int:
    """A count written right before the instance name ('16 ecs.gn6e-…', '2 x p3.16xlarge'); else 1."""
    # The number must stand alone ('EC2 [p2.xlarge]' holds no count).
    match = re.search(r"(?<![\w.])(\d+)\s*(?:[x×*]\s*)?[\[(]?\s*$", text[:position])  # noqa: RUF001
    return int(match.group(1)) if match and int(match.group(1)) > 0 else 1
