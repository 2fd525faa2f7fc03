import textwrap
from pathlib import Path

import pytest

SMALL = """
[sweep]
name = "tiny"
gpu = "pmpp-device-d"
seeds = [0]

[[programs]]
name = "vector_add"
sizes = ["small"]

[gpu_overrides]
"memory.dram.channels" = 2

[vary]
"sm.count" = {{ from = 2, to = 3 }}
scheduler = ["gto", "lrr"]
{extra}

[metrics]
collect = ["smsp__inst_executed.sum", "dram__bytes_*"]
"""


def write_spec(tmp_path: Path, extra: str = "", body: str | None = None, name: str = "tiny.toml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body if body is not None else SMALL.format(extra=extra)))
    return p


@pytest.fixture
def spec_file(tmp_path):
    return write_spec(tmp_path)


@pytest.fixture(name="write_spec")
def _write_spec_fixture():
    """write_spec(tmp_path, extra="", body=None, name="tiny.toml") -> the path of a sweep.toml."""
    return write_spec


@pytest.fixture
def small_text():
    return SMALL.format(extra="")


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
