"""The import graph follows the layers: config and the functional emulator below memory, below timing, below
analysis and the front ends (isa, the bottom layer, has its own test: tests/isa/test_layering.py).

Read from the source with ``ast`` (imports inside functions count too): a lower layer never imports a higher
one, the memory system never sees the trace format (``gpusim.functional``), and the model's modules import
one another without a circle.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package -> the packages (prefixes) its modules may import from gpusim and isa
ALLOWED = {
    "gpusim.config": ("gpusim.config", "gpusim.errors", "isa"),
    "gpusim.functional": ("gpusim.functional", "gpusim.errors", "isa"),
    "gpusim.memory": ("gpusim.memory", "gpusim.config", "gpusim.errors", "isa"),
    "gpusim.timing": ("gpusim.timing", "gpusim.memory", "gpusim.config", "gpusim.functional", "gpusim.errors",
                      "isa"),
    "gpusim.analysis": ("gpusim.analysis", "gpusim.timing", "gpusim.memory", "gpusim.config",
                        "gpusim.functional", "gpusim.errors", "isa"),
}


def _modules():
    for path in sorted((ROOT / "gpusim").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        yield ".".join(parts), path


def _imports(name: str, path: Path, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else ast.walk(tree)
    out = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:     # ``from package import submodule`` depends on the submodule only
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in MODULES else node.module)
    return {m for m in out if m.split(".")[0] in ("gpusim", "isa")}


MODULES = dict(_modules())


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(package):
    allowed = ALLOWED[package]
    bad = {}
    for name, path in MODULES.items():
        if name == package or name.startswith(package + "."):
            wrong = {m for m in _imports(name, path)
                     if not any(m == a or m.startswith(a + ".") for a in allowed) and m != "gpusim"}
            if wrong:
                bad[name] = sorted(wrong)
    assert not bad, bad


def test_the_model_modules_import_one_another_without_a_circle():
    graph = {}
    for name, path in MODULES.items():
        if name.startswith(tuple(ALLOWED)):
            deps = {m for m in _imports(name, path, top_level_only=True) if m in MODULES}
            graph[name] = deps - {name}
    state: dict[str, int] = {}

    def visit(n, stack):
        state[n] = 1
        for d in graph.get(n, ()):
            if state.get(d) == 1:
                raise AssertionError("import circle: " + " -> ".join(stack[stack.index(d):] + [d]))
            if d in graph and not state.get(d):
                visit(d, stack + [d])
        state[n] = 2

    for n in graph:
        if not state.get(n):
            visit(n, [n])
