"""Regenerating a checked-in PTX with nvcc reproduces it byte for byte (skipped without nvcc)."""
from __future__ import annotations

import importlib.util
import shutil

import pytest

import programs

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")


def load_regenerate():
    path = programs.get("vector_add").ptx_path.parent / "regenerate.py"
    spec = importlib.util.spec_from_file_location("programs_regenerate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["vector_add", "matmul_tiled"])
def test_nvcc_reproduces_the_checked_in_ptx(name, tmp_path):
    regen = load_regenerate()
    spec = programs.get(name)
    out = tmp_path / f"{name}.ptx"
    regen.build_ptx(spec.cu_path, out)
    assert out.read_text() == spec.ptx_path.read_text()


def test_file_directive_is_reduced_to_the_file_name():
    regen = load_regenerate()
    text = '\t.file\t1 "/home/someone/repo/programs/blur.cu"\n\t.file\t2 "C:/x/y.h"\n'
    assert regen.normalise_file_directives(text) == '\t.file\t1 "blur.cu"\n\t.file\t2 "y.h"\n'
