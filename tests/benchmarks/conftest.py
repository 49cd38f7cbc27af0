import pytest
import torch


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """The tests' tensors are tiny and gain nothing from threads, while torch's intra-op threads spin-wait:
    on a 2-core machine shared with other work, a ResNet-164 step on 4 images took a hundred times longer
    with two threads than with one."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
