"""Hardware resolution: every hardware string of the public DAWNBench sample, and the rules one by one."""

import json
from pathlib import Path

import pytest

from pricing.domain.catalog import parse_prices
from pricing.domain.resolver import KnownInstance, resolve_hardware

BUNDLED = Path(__file__).resolve().parents[2] / "pricing" / "data" / "prices.csv"
SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "dawnbench-sample"
NO_INSTANCE = "names no instance type"
PARTS = ("gcp", None, 1)
NO_KAKAO_PRICES = "Kakao Brain BrainCloud publishes no prices"
NO_PROVIDER = "names no instance type in the price catalog, and no provider in the price catalog"

# Every distinct `hardware` of the sample: (provider, instance, count), or None and why not.
EXPECTED = {
    "V100 (AWS p3.2xlarge)": ("aws", "p3.2xlarge", 1),
    "p3.2xlarge": ("aws", "p3.2xlarge", 1),
    "g3.4xlarge": ("aws", "g3.4xlarge", 1),
    "8 * V100 (AWS p3.16xlarge)": ("aws", "p3.16xlarge", 1),
    "1 K80 / 61 GB / 4 CPU (Amazon EC2 [p2.xlarge])": ("aws", "p2.xlarge", 1),
    "60 GB / 16 CPU (Google Cloud [n1-standard-16])": ("gcp", "n1-standard-16", 1),
    "1 K80 / 30 GB / 8 CPU (Google Cloud)": PARTS,  # by its parts: Google prices the VM and each GPU
    "1 P100 / 512 GB / 56 CPU (DAWN Internal Cluster)": (None, NO_PROVIDER),
    "1 P100 / 128 GB / 16 CPU": (None, NO_PROVIDER),
    "1 P100 / 384 GB / 48 CPU (x86_64 architecture machine)": (None, NO_PROVIDER),
    "Baidu Cloud Tesla 8*V100-16GB/448 GB/96 CPU": (None, "no baidu instance is 8 x V100, 96 vCPUs, 448 GB"),
    "Baidu Cloud Tesla V100*1-16GB/56 GB/12 CPU": ("baidu", "v100x1-12c56g", 1),  # its shape, priced by the month
    "Baidu Cloud Tesla V100*1/60 GB/12 CPU": (None, "no baidu instance is 1 x V100, 12 vCPUs, 60 GB"),
    "1 GPU (Nvidia GeForce GTX 1080 Ti)": (None, NO_PROVIDER),
    "IBM AC922 + Nvidia Tesla V100 (Nimbix np9g1)": (None, NO_PROVIDER),
    "IBM AC922 + 4 * Nvidia Tesla V100 (NCSA HAL)": (None, NO_PROVIDER),
    "Tesla V100 * 8 GPU / 32 GB / 40 CPU": (None, NO_PROVIDER),
    "Tesla V100 * 1 GPU / 488 GB / 56 CPU (Kakao Brain BrainCloud)": (None, NO_KAKAO_PRICES),
    "Tesla V100 * 4 GPU / 488 GB / 56 CPU (Kakao Brain BrainCloud)": (None, NO_KAKAO_PRICES),
    "Paperspace Volta (V100)": ("paperspace", "V100", 1),  # the only Paperspace V100 in the catalog
    "Lambda GPU Cloud - 4x GTX 1080 Ti": ("lambda", "gpu.4x", 1),  # the only Lambda 4 x GTX 1080 Ti
    "Huawei Cloud [pi2.2xlarge.4]": (None, "Huawei Cloud publishes no prices"),
}


def bundled_instances() -> list[KnownInstance]:
    rows = parse_prices(BUNDLED.read_text(encoding="utf-8"))
    unique = {(row.provider, row.instance): row for row in rows}
    return [
        KnownInstance(r.provider, r.instance, r.accelerator, r.accelerator_count, r.vcpus, r.memory_gib)
        for r in unique.values()
    ]


def sample_hardware() -> set[str]:
    if not SAMPLE.is_dir():
        pytest.skip(f"the DAWNBench sample is not at {SAMPLE}")
    return {json.loads(path.read_text(encoding="utf-8-sig"))["hardware"] for path in SAMPLE.glob("*/*/*.json")}


def test_the_table_covers_every_hardware_string_of_the_sample():
    assert sample_hardware() == set(EXPECTED)


@pytest.mark.parametrize("hardware", sorted(EXPECTED))
def test_each_sample_hardware_string_resolves_or_is_refused_with_a_reason(hardware):
    resolution = resolve_hardware(hardware, bundled_instances())

    expected = EXPECTED[hardware]
    if expected == PARTS:
        assert resolution.parts == (("n1-standard-8", 1), ("gpu-nvidia-tesla-k80", 1))
    elif expected[0] is None:
        assert not resolution.resolved
        assert expected[1] in resolution.reason
    else:
        assert (resolution.provider, resolution.instance, resolution.count) == expected
        assert resolution.reason


def test_how_many_sample_entries_resolve():
    entries = [json.loads(path.read_text(encoding="utf-8-sig")) for path in SAMPLE.glob("*/*/*.json")]
    if not entries:
        pytest.skip(f"the DAWNBench sample is not at {SAMPLE}")
    known = bundled_instances()

    resolved = [entry for entry in entries if resolve_hardware(entry["hardware"], known).resolved]

    assert (len(resolved), len(entries)) == (31, 52)


ALIBABA = [
    KnownInstance("alibaba", "ecs.gn6e-c12g1.24xlarge", "V100", 8),
    KnownInstance("alibaba", "ecs.gn6i-c8g1.2xlarge", "T4", 1),
]


def test_a_count_before_the_instance_name_is_the_number_of_instances():
    resolution = resolve_hardware("16 ecs.gn6e-c12g1.24xlarge (AlibabaCloud)", ALIBABA)

    assert (resolution.instance, resolution.count) == ("ecs.gn6e-c12g1.24xlarge", 16)


def test_a_measured_machine_priced_as_a_catalog_instance_is_that_instance_once():
    """The hardware `measure_inference` writes: the machine measured, then the instance it was priced as."""
    resolution = resolve_hardware("2 CPU cores (AMD EPYC 7B13), priced as aws/c5.large", bundled_instances())

    assert (resolution.provider, resolution.instance, resolution.count) == ("aws", "c5.large", 1)


def test_an_instance_in_brackets_is_found():
    resolution = resolve_hardware("Alibaba Cloud [ecs.gn6i-c8g1.2xlarge]", ALIBABA)

    assert (resolution.provider, resolution.instance, resolution.count) == ("alibaba", "ecs.gn6i-c8g1.2xlarge", 1)


def test_a_number_inside_a_word_is_no_count():
    resolution = resolve_hardware("1 K80 (Amazon EC2 [p2.xlarge])", [KnownInstance("aws", "p2.xlarge", "K80", 1)])

    assert resolution.count == 1


def test_two_instance_names_are_refused():
    resolution = resolve_hardware("p3.2xlarge then p3.16xlarge", bundled_instances())

    assert not resolution.resolved and "several instance types" in resolution.reason


def test_a_name_at_two_providers_needs_the_text_to_name_one():
    known = [KnownInstance("aws", "gpu.large", "V100", 1), KnownInstance("azure", "gpu.large", "V100", 1)]

    assert not resolve_hardware("gpu.large", known).resolved
    assert resolve_hardware("gpu.large (Microsoft Azure)", known).provider == "azure"


def test_an_accelerator_the_instance_does_not_carry_is_refused():
    resolution = resolve_hardware("8 * A100 (AWS p3.16xlarge)", bundled_instances())

    assert not resolution.resolved and "carries V100" in resolution.reason


SHAPED = [
    KnownInstance("lambda", "gpu.4x", "GTX 1080 Ti", 4),
    KnownInstance("lambda", "gpu.8x", "GTX 1080 Ti", 8),
    KnownInstance("baidu", "v100x1", "V100", 1, vcpus=12, memory_gib=56),
]


def test_an_instance_is_found_by_the_provider_and_the_accelerators_the_text_names():
    resolution = resolve_hardware("Lambda GPU Cloud - 8x GTX 1080 Ti", SHAPED)

    assert (resolution.provider, resolution.instance, resolution.count) == ("lambda", "gpu.8x", 1)
    assert "the only lambda instance in the catalog that is 8 x GTX 1080 Ti" in resolution.reason


def test_a_shape_whose_vcpus_or_memory_differ_from_the_instance_is_refused():
    assert resolve_hardware("Baidu Cloud Tesla V100*1-16GB/56 GB/12 CPU", SHAPED).instance == "v100x1"
    refused = resolve_hardware("Baidu Cloud Tesla V100*1/60 GB/12 CPU", SHAPED)

    assert not refused.resolved and "no baidu instance is 1 x V100, 12 vCPUs, 60 GB" in refused.reason


def test_a_shape_without_a_provider_is_refused_and_says_so():
    refused = resolve_hardware("4x GTX 1080 Ti", SHAPED)

    assert not refused.resolved and refused.reason.endswith("and no provider in the price catalog")


def test_an_accelerator_is_never_read_as_an_instance_name():
    known = [*bundled_instances()]

    assert resolve_hardware("V100 (AWS p3.2xlarge)", known).instance == "p3.2xlarge"  # not Paperspace's 'V100'


GOOGLE = [
    KnownInstance("gcp", "n1-standard-8", "", 0, vcpus=8, memory_gib=30),
    KnownInstance("gcp", "n1-custom-vcpu", "", 0, vcpus=1),
    KnownInstance("gcp", "n1-custom-memory-gib", "", 0, memory_gib=1),
    KnownInstance("gcp", "gpu-nvidia-tesla-k80", "K80", 1),
]


def test_a_google_machine_described_by_its_parts_is_its_machine_type_and_its_gpus():
    resolution = resolve_hardware("2 K80 / 30 GB / 8 CPU (Google Cloud)", GOOGLE)

    assert resolution.parts == (("n1-standard-8", 1), ("gpu-nvidia-tesla-k80", 2))
    assert "the n1-standard-8 machine type (8 vCPUs, 30 GB)" in resolution.reason


def test_a_google_machine_of_no_machine_type_is_priced_per_vcpu_and_per_gb():
    """At the custom machine's rates, never the predefined types' (resource-based billing) ones."""
    predefined = [
        KnownInstance("gcp", "n1-predefined-vcpu", "", 0, vcpus=1),
        KnownInstance("gcp", "n1-predefined-memory-gib", "", 0, memory_gib=1),
    ]
    resolution = resolve_hardware("1 K80 / 20 GB / 6 CPU (Google Cloud)", [*GOOGLE, *predefined])

    assert resolution.parts == (("n1-custom-vcpu", 6), ("n1-custom-memory-gib", 20), ("gpu-nvidia-tesla-k80", 1))


def test_a_machine_missing_a_part_in_the_catalog_is_refused_with_the_shape_it_looked_for():
    resolution = resolve_hardware("1 P4 / 20 GB / 6 CPU (Google Cloud)", GOOGLE)

    assert not resolution.resolved
    assert "no gcp instance is 1 x P4, 6 vCPUs, 20 GB" in resolution.reason


def test_an_accelerator_of_mixed_case_that_the_instance_does_not_carry_is_refused():
    resolution = resolve_hardware("4x GTX 1080 Ti (AWS p3.8xlarge)", bundled_instances())

    assert not resolution.resolved and "but p3.8xlarge carries V100" in resolution.reason


GOOGLE_TPU = [
    *GOOGLE,
    KnownInstance("gcp", "n1-standard-2", "", 0, vcpus=2, memory_gib=7.5),
    KnownInstance("gcp", "tpu-v2-8", "TPUv2", 1),
    KnownInstance("gcp", "tpu-v3-8", "TPUv3", 1),
]


def test_a_named_machine_type_beside_an_accelerator_is_priced_by_its_parts_never_as_the_machine_alone():
    """Google's own ImageNet entries name 'GCP n1-standard-2, Cloud TPU': the host VM and the TPU, billed apart."""
    tpu = resolve_hardware("GCP n1-standard-2, Cloud TPU v2", GOOGLE_TPU)
    gpus = resolve_hardware("2 x n1-standard-8, 4 K80 (Google Cloud)", GOOGLE_TPU)

    assert tpu.parts == (("n1-standard-2", 1), ("tpu-v2-8", 1))
    assert "the n1-standard-2 machine type, and 1 x tpu-v2-8" in tpu.reason
    assert gpus.parts == (("n1-standard-8", 2), ("gpu-nvidia-tesla-k80", 4))
    assert resolve_hardware("Cloud TPU v3-8 + n1-standard-2 (GCP)", GOOGLE_TPU).parts[1] == ("tpu-v3-8", 1)
    assert resolve_hardware("TPUv2 (GCP [tpu-v2-8])", GOOGLE_TPU).instance == "tpu-v2-8"


def test_a_named_machine_type_beside_an_accelerator_the_provider_does_not_sell_alone_is_refused():
    resolution = resolve_hardware("n1-standard-8 + 2 x P4 (Google Cloud)", GOOGLE_TPU)

    assert not resolution.resolved
    assert "names 2 x P4 beside n1-standard-8, which carries none" in resolution.reason


@pytest.mark.parametrize(
    ("hardware", "why"),
    [
        ("GCP n1-standard-2, Cloud TPU", "not its version"),
        ("GCP n1-standard-2, Cloud TPU v2 Pod", "pod"),
        ("Cloud TPU v3-32 (GCP)", "pod slice"),
        ("n1-standard-2 + Cloud TPUv3 Pod (GCP)", "pod"),
    ],
)
def test_a_tpu_without_its_version_or_a_pod_is_refused(hardware, why):
    resolution = resolve_hardware(hardware, GOOGLE_TPU)

    assert not resolution.resolved and why in resolution.reason


@pytest.mark.parametrize(
    ("hardware", "parts"),
    [
        ("n1-standard-16 V100 (GCP)", (("n1-standard-16", 1), ("gpu-nvidia-tesla-v100", 1))),  # 16: the name's
        ("GCP n1-standard-2 + 8 TPU v2 cores", (("n1-standard-2", 1), ("tpu-v2-8", 1))),  # 8 cores: one device
        ("GCP n1-standard-2, Cloud TPUs v2", (("n1-standard-2", 1), ("tpu-v2-8", 1))),
        ("n1-standard-8 + Volta (GCP)", (("n1-standard-8", 1), ("gpu-nvidia-tesla-v100", 1))),
        ("1 K80 / 30 GB / 8 CPU (Google Cloud [n1-standard-8])", (("n1-standard-8", 1), ("gpu-nvidia-tesla-k80", 1))),
    ],
)
def test_counts_beside_a_named_machine_type_are_read_only_where_they_stand_alone(hardware, parts):
    known = [*GOOGLE_TPU, KnownInstance("gcp", "n1-standard-16", "", 0, vcpus=16, memory_gib=60)]
    known.append(KnownInstance("gcp", "gpu-nvidia-tesla-v100", "V100", 1))

    assert resolve_hardware(hardware, known).parts == parts


@pytest.mark.parametrize(
    ("hardware", "why"),
    [
        ("GCP n1-standard-8 with 4 NVIDIA Tesla K80", "gives 4 beside n1-standard-8"),  # 4 GPUs, or 4 machines?
        ("n1-standard-8 + 4 GPUs (GCP)", "but not their model"),
        ("Cloud TPU v2 (256 cores) GCP", "pod"),
        ("TPU v2 x 32 cores", "pod"),
        ("Google Cloud 1 K80", "no gcp instance is 1 x K80"),  # a GPU alone is no Google machine
    ],
)
def test_a_machine_type_beside_accelerators_is_refused_where_the_text_leaves_a_doubt(hardware, why):
    resolution = resolve_hardware(hardware, GOOGLE_TPU)

    assert not resolution.resolved and why in resolution.reason


def test_a_version_and_core_count_outside_a_tpu_text_is_no_tpu_slice():
    resolution = resolve_hardware("Intel Xeon E5 v3-16 cores (AWS p3.2xlarge)", bundled_instances())

    assert resolution.instance == "p3.2xlarge"
