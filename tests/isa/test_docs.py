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


def test_every_instruction_of_the_ptx_isa_is_supported_or_out_of_scope_with_a_reason():
    from gpusim.functional import registry
    from isa.opcodes import PTX_ISA, coverage
    table = registry.mnemonics()
    for section, name, key in PTX_ISA:
        status, what = coverage(name, key)         # raises for an instruction in neither list
        if status == "supported":
            assert what in table, f"{name}: in OPCODES but the emulator has no semantics for {what}"
        else:
            assert len(what) > 20
    assert set(OPCODES) <= set(table)              # every row of the table runs
    rows, n_in, n_out = docs.coverage_table()
    assert n_in + n_out == len(PTX_ISA) and f"{n_in} supported, {n_out} out of scope" in docs.generate()
