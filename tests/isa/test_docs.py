"""isa/README.md is generated from the opcode table and must stay equal to it."""
from isa import docs
from isa.opcodes import OPCODES


def test_readme_is_the_generated_text():
    assert docs.README.read_text() == docs.generate(), "isa/README.md is stale: run `python -m isa.docs --write`"


def test_every_opcode_has_a_row():
    text = docs.generate()
    for name, spec in OPCODES.items():
        assert f"| `{name}` |" in text
        assert spec.semantics.replace("|", "\\|") in text
