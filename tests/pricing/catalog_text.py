"""Small price catalogs written in code for the pricing tests (the real one is pricing/data/prices.csv).

The instances belong to a provider of their own, `testcloud`, so the bundled catalog (loaded by a
migration into every test database) never answers for them.
"""

HEADER = (
    "provider,instance,accelerator,accelerator_count,vcpus,memory_gib,region,pricing_model,usd_per_hour,"
    "valid_from,source_url,note"
)
P3_2X = "aws,p3.2xlarge,V100,1,8,61,us-east-1"
P3_16X = "aws,p3.16xlarge,V100,8,64,488,us-east-1"
ONE_GPU = "testcloud,tc.gpu1,V100,1,8,61,test-1"
EIGHT_GPU = "testcloud,tc.gpu8,V100,8,64,488,test-1"
SOURCE = "https://example.org/testcloud/pricing"


def catalog(*rows: str) -> str:
    return "\n".join([HEADER, *rows]) + "\n"


def row(instance: str, model: str, price: str, valid_from: str) -> str:
    return f"{instance},{model},{price},{valid_from},{SOURCE},test row"


BASE = catalog(
    row(ONE_GPU, "on-demand", "3.00", "2017-01-01"),
    row(ONE_GPU, "spot", "0.90", "2017-01-01"),
    row(EIGHT_GPU, "on-demand", "24.00", "2017-01-01"),
    row(P3_2X, "on-demand", "3.06", "2017-10-25"),
)
