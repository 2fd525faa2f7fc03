"""Hypothesis drives the parser with mutated real programs: it must succeed or raise a documented
PtxError, never any other exception."""
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from isa.errors import PtxError
from isa.opcodes import OPCODES
from isa.parser import parse_ptx

ROOT = Path(__file__).resolve().parents[2] / "programs"
SOURCES = [p.read_text() for p in sorted(ROOT.glob("*.ptx")) if p.stat().st_size < 20000][:12]
TOKEN = re.compile(r"\s+|[^\s]+")
OPS = sorted(OPCODES) + ["fma.rz.f16x2", "tex.2d", "call", "ld.global.v8.f32", "setp.lt.and.s32",
                         "cvt.rni.s32", "atom.global.cas.b32", "shfl.sync.idx.b32", "bar.sync"]
NASTY = list("{}[]();,.%@!|<>+-_=\"\\/*") + ["0f", "0d", "0x", "\n", ".reg", ".loc", "$", "9" * 30, "\x00",
                                                "é", "/*", "*/", "//", ".v4", "<99999999>"]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SOURCES))
    toks = TOKEN.findall(text)
    for _ in range(draw(st.integers(1, 4))):
        if not toks:
            break
        i = draw(st.integers(0, len(toks) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "opcode", "truncate", "number"]))
        if kind == "delete":
            del toks[i]
        elif kind == "duplicate":
            toks.insert(i, toks[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(toks) - 1))
            toks[i], toks[j] = toks[j], toks[i]
        elif kind == "insert":
            toks.insert(i, draw(st.sampled_from(NASTY) | st.text(max_size=3)))
        elif kind == "opcode":
            toks[i] = draw(st.sampled_from(OPS)) + draw(st.sampled_from(["", ".u32", ".f32", ".b64", ".pred"]))
        elif kind == "number":
            toks[i] = str(draw(st.integers(-2 ** 70, 2 ** 70)))
        else:
            toks = toks[:i]
    return "".join(toks)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutated_programs_raise_only_documented_errors(text):
    try:
        parse_ptx(text, "fuzz.ptx")
    except PtxError as e:
        assert str(e)
