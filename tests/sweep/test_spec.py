"""sweep.toml parsing: points, ranges, zip, and errors that name the field."""
from pathlib import Path

import pytest

from gpusim.sweep import SweepSpecError, load_spec
from gpusim.sweep.runner import prepare


def test_grid_points_and_inclusive_range(spec_file):
    spec = load_spec(spec_file)
    assert spec.vary == {"sm.count": [2, 3], "scheduler": ["gto", "lrr"]}
    pts = spec.points()
    assert len(pts) == 4 and len({p.point_id for p in pts}) == 4
    assert spec.output == Path("tiny.csv")          # the current directory, not the study file's folder


def test_point_ids_are_stable_and_depend_on_the_base(tmp_path, write_spec):
    a = load_spec(write_spec(tmp_path)).points()
    assert [p.point_id for p in a] == [p.point_id for p in load_spec(write_spec(tmp_path)).points()]
    other = write_spec(tmp_path, body=(tmp_path / "tiny.toml").read_text().replace(
        '"memory.dram.channels" = 2', '"memory.dram.channels" = 4'), name="other.toml")
    assert not {p.point_id for p in a} & {p.point_id for p in load_spec(other).points()}


def test_geometric_range_zip_and_nested_keys(tmp_path, write_spec):
    body = """
    [sweep]
    gpu = "pmpp-device-d"
    combine = "zip"
    [[programs]]
    name = "vector_add"
    sizes = ["small"]
    [vary]
    memory.dram.channels = { from = 1, to = 8, times = 2 }
    regs_per_thread = [16, 20, 24, 32]
    """
    spec = load_spec(write_spec(tmp_path, body=body))
    assert spec.vary["memory.dram.channels"] == [1, 2, 4, 8]
    assert [dict(p.params)["regs_per_thread"] for p in spec.points()] == [16, 20, 24, 32]
    assert len(spec.points()) == 4


@pytest.mark.parametrize("change, field", [
    (('"sm.count" = {{ from = 2, to = 3 }}', '"sm.cout" = [2, 3]'), "vary.sm.cout"),
    (('"sm.count" = {{ from = 2, to = 3 }}', '"sm.count" = { from = 2, to = 3, step = 0 }'), "vary.sm.count.step"),
    (('"sm.count" = {{ from = 2, to = 3 }}', '"sm.count" = []'), "vary.sm.count"),
    (('"sm.count" = {{ from = 2, to = 3 }}', '"sm.count" = 4'), "vary.sm.count"),
    (('"sm.count" = {{ from = 2, to = 3 }}', '"memory.dram.chanels" = [1, 2]'), "vary.memory.dram.chanels"),
    (('"sm.count" = {{ from = 2, to = 3 }}', 'regs_per_thread = [0, 8]'), "vary.regs_per_thread"),
    (('name = "vector_add"', 'name = "no_such_program"'), "programs.name"),
    (('sizes = ["small"]', 'sizes = ["huge"]'), "programs.vector_add.sizes"),
    (('gpu = "pmpp-device-d"', 'gpu = "no-such-gpu"'), "sweep.gpu"),
    (('seeds = [0]', 'seeds = ["a"]'), "sweep.seeds"),
    (('seeds = [0]', 'seeds = [0]\nworkers = 3'), "sweep.workers"),
    (('"memory.dram.channels" = 2', '"memory.dram.channels" = 2\n"sm.count" = 4'), "gpu_overrides.sm.count"),
    (('[metrics]', '[metric]'), "metric"),
])
def test_errors_name_the_field(tmp_path, write_spec, small_text, change, field):
    text = small_text
    old = change[0].replace("{{", "{").replace("}}", "}")
    assert old in text, old
    p = write_spec(tmp_path, body=text.replace(old, change[1]))
    with pytest.raises(SweepSpecError) as e:
        load_spec(p)
    assert f"{p}: {field}" in str(e.value)


def test_zip_lengths_must_match(tmp_path, write_spec):
    p = write_spec(tmp_path, body=(write_spec(tmp_path).read_text()
                                   .replace('seeds = [0]', 'seeds = [0]\ncombine = "zip"')
                                   .replace('scheduler = ["gto", "lrr"]', 'scheduler = ["gto", "lrr", "two_level"]')),
                   name="zip.toml")
    with pytest.raises(SweepSpecError, match=r"vary: combine = 'zip' needs lists of one length.*sm.count: 2"):
        load_spec(p)


def test_metric_glob_matching_nothing_names_it(tmp_path, write_spec):
    p = write_spec(tmp_path, body=write_spec(tmp_path).read_text().replace('"dram__bytes_*"', '"nope__*"'),
                   name="m.toml")
    with pytest.raises(SweepSpecError, match=r"metrics.collect: 'nope__\*' matches no counter"):
        prepare(load_spec(p))
