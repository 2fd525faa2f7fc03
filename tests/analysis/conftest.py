import pytest


@pytest.fixture(scope="session")
def transpose_run():
    """transpose_smem (small) in timing mode with its timeline: shared conflicts, global and DRAM traffic."""
    import gpusim
    return gpusim.run("transpose_smem", size="small", mode="timing", timeline=True)
