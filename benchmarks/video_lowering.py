"""The scalar video instructions as ptxas lowers them, against the emulator.

    python benchmarks/video_lowering.py [--inputs 200] [--only vshl] [--nvdisasm PATH] [--record JSON]
                                        [--record-only]

sm_90 has no video hardware: ptxas turns each scalar video instruction (vadd vsub vabsdiff vmin vmax vshl vshr
vset vmad) into a few 64-bit integer instructions, and the GPU runs those.  This script writes one kernel per
form (operation, the three types, .sat, .add/.min/.max or a merge into d.sel, part selectors; vmad's .shr7/.shr15,
its negations and .po: 6,320 forms), compiles them with the local ``ptxas -arch=sm_90``, disassembles with
``nvdisasm``, and runs each kernel's SASS in a small interpreter (the dozen opcodes that appear: PRMT, IADD3,
IMAD, LEA.HI.X.SX32, SHF, LOP3, ISETP, SEL) on the same inputs as
``gpusim.functional.inst_int.scalar_video_lane``; it prints how many outputs differ.  With ``--record`` it first
runs every scalar video instruction of the snippets of ``tests/golden/h100/isa/isa_device.json.gz`` on the record's
inputs: the interpreter against the H100's outputs, and the emulator against the interpreter (a record of
``benchmarks/isa_device.py --dry-run``, without outputs, gives the interpreter's prediction of new probes).

Needs ptxas (CUDA 12+) and nvdisasm (on PATH, or the ``nvidia-cuda-nvdisasm`` wheel's, or ``--nvdisasm``); no GPU.
"""
from __future__ import annotations

import argparse
import itertools
import gzip
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpusim.functional.inst_int import scalar_video_lane
from isa.parser import parse_ptx

M32 = 0xFFFFFFFF
TYPES = ("u32", "s32")
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def forms() -> list[str]:
    """Every form checked, as one instruction on %d, %a, %b, %c."""
    out = []

    def with_ends(base, a, b):
        out.append(f"{base} %d, %a{a}, %b{b};")
        out.extend(f"{base}.{o2} %d, %a{a}, %b{b}, %c;" for o2 in ("add", "min", "max"))
        out.extend(f"{base} %d.{ds}, %a{a}, %b{b}, %c;" for ds in ("b0", "b1", "b2", "b3", "h0", "h1"))

    for op, (dt, at, bt), sat in itertools.product(("vadd", "vsub", "vabsdiff", "vmin", "vmax"),
                                                   itertools.product(TYPES, repeat=3), ("", ".sat")):
        for a, b in (("", ""), (".b0", ".b1"), (".h1", ".h0"), (".b3", "")):
            with_ends(f"{op}.{dt}.{at}.{bt}{sat}", a, b)
    for op, (dt, at), mode, sat in itertools.product(("vshl", "vshr"), itertools.product(TYPES, repeat=2),
                                                     ("clamp", "wrap"), ("", ".sat")):
        for a, b in (("", ""), (".b0", ""), (".h1", ".b1")):
            with_ends(f"{op}.{dt}.{at}.u32{sat}.{mode}", a, b)
    for (at, bt), cmp in itertools.product(itertools.product(TYPES, repeat=2), ("eq", "ne", "lt", "le", "gt", "ge")):
        for a, b in (("", ""), (".b0", ".h1")):
            with_ends(f"vset.{at}.{bt}.{cmp}", a, b)
    # vmad: no .add/.min/.max and no d.sel; the negations ptxas takes ((-a xor -b) or -c; none with .po)
    for (dt, at, bt), sat, scale in itertools.product(itertools.product(TYPES, repeat=3), ("", ".sat"),
                                                      ("", ".shr7", ".shr15")):
        for po, (na, nb, nc) in VMAD_SIGNS:
            for a, b in (("", ""), (".b0", ".b1"), (".h1", ".h0"), (".b3", ""), ("", ".h1")):
                out.append(f"vmad.{dt}.{at}.{bt}{po}{sat}{scale} %d, {na}%a{a}, {nb}%b{b}, {nc}%c;")
    return out


# vmad's .po and the negations ptxas accepts: -a xor -b (the product), or -c, or both product signs and -c
VMAD_SIGNS = [("", ("", "", "")), ("", ("-", "", "")), ("", ("", "-", "")), ("", ("-", "-", "")),
              ("", ("", "", "-")), ("", ("-", "-", "-")), (".po", ("", "", ""))]


def module(instructions: list[str]) -> str:
    """Kernel k<i> loads a, b, c from p[0..2], sets d = c, runs instruction i, stores d to p[3]."""
    lines = [HEAD]
    for i, ins in enumerate(instructions):
        lines += [f".visible .entry k{i}(.param .u64 p)", "{", " .reg .b32 %a, %b, %c, %d; .reg .b64 %p;",
                  " ld.param.u64 %p, [p]; ld.global.u32 %a, [%p]; ld.global.u32 %b, [%p+4];",
                  " ld.global.u32 %c, [%p+8]; mov.b32 %d, %c;", " " + ins, " st.global.u32 [%p+12], %d;", " ret;", "}"]
    return "\n".join(lines) + "\n"


def find_nvdisasm(given: str | None) -> str:
    if given:
        return given
    found = shutil.which("nvdisasm")
    if found:
        return found
    try:        # the nvidia-cuda-nvdisasm wheel puts it in nvidia/cu*/bin
        import nvidia
        for base in map(Path, nvidia.__path__):
            for cand in base.glob("cu*/bin/nvdisasm"):
                return str(cand)
    except ImportError:
        pass
    sys.exit("nvdisasm not found: put it on PATH, pip install nvidia-cuda-nvdisasm, or pass --nvdisasm PATH")


def lowered(instructions: list[str], nvdisasm: str) -> list[list[str]]:
    """Each instruction's kernel as ptxas -arch=sm_90 compiles it: its SASS lines."""
    if not shutil.which("ptxas"):
        sys.exit("ptxas not found on PATH (it comes with the CUDA toolkit)")
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = Path(tmp) / "v.ptx", Path(tmp) / "v.cubin"
        ptx.write_text(module(instructions))
        subprocess.run(["ptxas", "-arch=sm_90", "-O3", str(ptx), "-o", str(cubin)], check=True)
        sass = subprocess.run([nvdisasm, "-c", str(cubin)], check=True, capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in sass.splitlines():
        m = re.match(r"^\.text\.(k\d+):", line.strip())
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = re.match(r"^\s+/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if m and cur is not None and not m.group(1).startswith(("NOP", "BRA", "LDC", "ULDC", "EXIT")):
            cur.append(m.group(1).replace(".reuse", ""))
    return [funcs[f"k{i}"] for i in range(len(instructions))]


def _s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


class Sass:
    """Runs one kernel's SASS for one lane: 32-bit registers, predicates, the loads of a, b, c and the store."""

    def __init__(self, a: int, b: int, c: int):
        self.r, self.p, self.mem, self.out = {}, {"PT": True}, {0: a, 4: b, 8: c}, None

    def val(self, op: str) -> int:
        neg, inv = op.startswith("-"), op.startswith("~")
        op = op.lstrip("-~")
        v = 0 if op == "RZ" else self.r.get(op, 0) if op.startswith("R") else int(op, 0) & M32
        return (-v) & M32 if neg else (~v) & M32 if inv else v

    def pred(self, op: str) -> bool:
        return self.p[op.lstrip("!")] != op.startswith("!")

    @staticmethod
    def next(reg: str) -> str:
        """The upper register of a pair."""
        return "RZ" if reg == "RZ" else f"R{int(reg[1:]) + 1}"

    def set(self, reg: str, v: int):
        if reg != "RZ":
            self.r[reg] = v & M32

    def run(self, code: list[str]) -> int:
        for line in code:
            m = re.match(r"@(!?P\w)\s+(.*)", line)
            if m:
                if not self.pred(m.group(1)):
                    continue
                line = m.group(2)
            name, _, rest = line.partition(" ")
            self.step(name.split("."), [o.strip() for o in rest.split(",")])
        return self.out

    def step(self, parts: list[str], ops: list[str]):
        op, d = parts[0], ops[0]
        if op == "LDG":
            m = re.search(r"\+0x([0-9a-f]+)\]", ",".join(ops[1:]))
            self.set(d, self.mem[int(m.group(1), 16) if m else 0])
        elif op == "STG":
            self.out = self.val(ops[-1])
        elif op == "PRMT":      # bytes of {b, a} picked by the selector's nibbles; bit 3 replicates the sign
            both, sel, r = (self.val(ops[3]) << 32) | self.val(ops[1]), self.val(ops[2]), 0
            for i in range(4):
                n = (sel >> 4 * i) & 0xF
                byte = (both >> 8 * (n & 7)) & 0xFF
                r |= ((0xFF if byte & 0x80 else 0) if n & 8 else byte) << 8 * i
            self.set(d, r)
        elif op == "SEL":
            self.set(d, self.val(ops[1]) if self.pred(ops[3]) else self.val(ops[2]))
        elif op == "LOP3":
            a, b, c, lut = (self.val(o) for o in ops[1:5])
            r = 0
            for i in range(8):
                if lut >> i & 1:
                    r |= (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
            self.set(d, r)
        elif op == "SHF":       # funnel shift of {hi, lo}; .S32/.S64 arithmetic; .HI keeps the upper word
            v = (self.val(ops[3]) << 32) | self.val(ops[1])
            if parts[2].startswith("S") and v >> 63:
                v -= 1 << 64
            sh = self.val(ops[2])
            sh = min(sh, 32) if parts[2].endswith("32") else sh & 63
            r = ((v >> sh) if parts[1] == "R" else (v << sh)) & ((1 << 64) - 1)
            self.set(d, r >> 32 if "HI" in parts else r)
        elif op == "ISETP":     # .EX: compare the upper words, ties take the lower words' predicate
            a, b = self.val(ops[2]), self.val(ops[3])
            if "U32" not in parts:
                a, b = _s32(a), _s32(b)
            cmp = parts[1]
            if "EX" in parts and a == b:
                f = self.pred(ops[5])
            elif "EX" in parts:
                f = a < b if cmp in ("LT", "LE") else a > b if cmp in ("GT", "GE") else cmp == "NE"
            else:
                f = {"LT": a < b, "LE": a <= b, "GT": a > b, "GE": a >= b, "EQ": a == b, "NE": a != b}[cmp]
            self.p[d] = f and self.pred(ops[4])
        elif op == "IADD3":     # a - b is a + ~b + 1: a carry out is "no borrow"; .X adds the carries in
            outs = [o for o in ops[1:3] if o.lstrip("!").startswith("P")]
            srcs = ops[1 + len(outs):]
            carries_in = [o for o in srcs if o.lstrip("!").startswith("P")] if "X" in parts else []
            total = sum(((~self.val(o[1:])) & M32) + 1 if o.startswith("-") else self.val(o)
                        for o in srcs if o not in carries_in) + sum(self.pred(o) for o in carries_in)
            self.set(d, total)
            for k, o in enumerate(outs):        # two outputs: the carries of a 3-input add, 0..2 in all
                self.p[o] = (total >> 32) > k
        elif op == "VIADD":
            self.set(d, self.val(ops[1]) + self.val(ops[2]))
        elif op == "IMAD" and "WIDE" in parts:  # a * b + {c+1, c}, 64 bits into {d+1, d}
            a, b = self.val(ops[1]), self.val(ops[2])
            if "U32" not in parts:
                a, b = _s32(a), _s32(b)
            r = a * b + ((self.val(self.next(ops[3])) << 32) | self.val(ops[3]))
            self.set(d, r)
            self.set(self.next(d), r >> 32)
        elif op == "IMAD":
            if "X" in parts:
                self.set(d, self.val(ops[1]) * self.val(ops[2]) + self.val(ops[3]) + self.pred(ops[4]))
            elif "MOV" in parts:
                self.set(d, self.val(ops[3]))
            else:
                self.set(d, self.val(ops[1]) * self.val(ops[2]) + self.val(ops[3]))
        elif op == "LEA" and parts[1:] == ["HI", "X", "SX32"]:     # b + hi(sext(a) << s) + carry
            hi = ((_s32(self.val(ops[1])) << self.val(ops[3])) >> 32) & M32
            self.set(d, self.val(ops[2]) + hi + self.pred(ops[4]))
        else:
            raise NotImplementedError(f"SASS {'.'.join(parts)} {', '.join(ops)}: extend the interpreter")


WORDS = [0, 1, 2, 3, 0x3C, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x8080, 0x00FF00FF, 0xFF00FF00, 0x7FFFFFFE,
         0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFC4, 0xFFFFBE78, 0x12345678, 0xDEADBEEF,
         0xC0000000, 0x40000000, 0x807F80FF, 0x7F807F80]
SHIFTS = list(range(41)) + [63, 64, 255, 0x10000, 0xFFFFFFFF, 0x80000020]


def inputs(rng: random.Random, n: int, shift: bool) -> list[tuple[int, int, int]]:
    """Mostly edge words (shift amounts for b of a shift), some random ones."""
    def pick(pool, p):
        return rng.choice(pool) if rng.random() < p else rng.getrandbits(32)
    return [(pick(WORDS, 0.8), pick(SHIFTS if shift else WORDS, 0.8), pick(WORDS, 0.7)) for _ in range(n)]


def check_record(path: Path, nvdisasm: str) -> dict[str, tuple[int, int]]:
    """Every scalar video instruction of the record's snippets (vmad included), on the record's inputs: the
    interpreter against the H100's outputs, and the emulator against the interpreter, per operation: {op:
    (interpreter outputs that differ from the H100's, H100 outputs, emulator outputs that differ from the
    interpreter's, outputs)}.  A record made with ``benchmarks/isa_device.py --dry-run`` (no outputs) gives the
    interpreter's prediction of the probes: only the emulator is compared then."""
    rec = json.loads(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes())
    pattern = (r"(v(?:add|sub|absdiff|min|max|shl|shr|set|mad))\.([\w.]+)\s+%(\w+)(\.[bh]\d)?,\s*(-?)%(\w+)"
               r"(\.[bh]\d)?,\s*(-?)%(\w+)(\.[bh]\d)?(?:,\s*(-?)%(\w+))?;")
    jobs = []
    for case in rec["sections"]["snippets"]:
        names = case.get("out_names") or []
        k0 = len(case["args"]) - len(names)
        params = re.findall(r"\.param \.u64 p_(\w+)", case["ptx"])[:k0]
        words = {p: [int(x, 16) for x in case["args"][i]["array"]] for i, p in enumerate(params)
                 if case["args"][i]["type"] in ("u32", "b32", "s32")}
        for m in re.finditer(pattern, case["ptx"]):
            op, mods, d, dsel, na, a, asel, nb, b, bsel, nc, c = m.groups()
            if d not in names or a not in words or b not in words or (c and c not in words):
                continue
            ins = f"{op}.{mods} %d{dsel or ''}, {na}%a{asel or ''}, {nb}%b{bsel or ''}" + (f", {nc}%c;" if c else ";")
            n = len(words[a])
            out = [int(x, 16) for x in case["outputs"][str(k0 + names.index(d))]] if "outputs" in case else None
            jobs.append((ins, words[a], words[b], words[c] if c else [0] * n, out))
    codes = lowered([j[0] for j in jobs], nvdisasm)
    kernels = parse_ptx(module([j[0] for j in jobs])).kernels
    counts: dict[str, list[int]] = {}
    for i, ((text, xs, ys, zs, outs), code) in enumerate(zip(jobs, codes)):
        ins = next(x for x in kernels[f"k{i}"].instructions if x.base.startswith("v"))
        lane = scalar_video_lane(ins.base, ins.types, ins.mods, ins.vsel or {})
        row = counts.setdefault(ins.base, [0, 0, 0, 0])
        for k, (x, y, z) in enumerate(zip(xs, ys, zs)):
            want = Sass(x, y, z).run(code)
            if outs is not None:
                row[0] += want != outs[k]
                row[1] += 1
            row[2] += lane(x, y, z) != want
            row[3] += 1
    return {op: tuple(v) for op, v in sorted(counts.items())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", type=int, default=200, help="inputs per form (default 200)")
    ap.add_argument("--only", default="", help="only the forms whose text contains this")
    ap.add_argument("--nvdisasm", help="path of nvdisasm")
    ap.add_argument("--record", type=Path, help="first check the interpreter against this H100 record")
    ap.add_argument("--record-only", action="store_true", help="with --record: only the record, not the forms")
    ap.add_argument("--show", type=int, default=20, help="forms that differ to print (default 20)")
    a = ap.parse_args(argv)
    nvdisasm = find_nvdisasm(a.nvdisasm)
    if a.record:
        counts = check_record(a.record, nvdisasm)
        for op, (bad, total, emu_bad, n) in counts.items():
            h100 = f"interpreter vs the H100 {bad} of {total} differ" if total else "no H100 outputs (a dry run)"
            print(f"  record {op:9s} {n:7d} outputs: {h100}; emulator vs interpreter {emu_bad} differ")
        bad, total = sum(v[0] for v in counts.values()), sum(v[1] for v in counts.values())
        emu_bad, n = sum(v[2] for v in counts.values()), sum(v[3] for v in counts.values())
        print(f"interpreter vs the H100 record: {bad} of {total} scalar video outputs differ; "
              f"emulator vs interpreter on the record's inputs: {emu_bad} of {n}")
        if a.record_only:
            return 1 if bad or emu_bad else 0
        record_bad = bad + emu_bad
    else:
        record_bad = 0
    t0 = time.time()
    texts = [f for f in forms() if a.only in f]
    codes = lowered(texts, nvdisasm)
    kernels = parse_ptx(module(texts)).kernels
    rng = random.Random(5)
    differ, examples, total = {}, {}, 0
    for i, (text, code) in enumerate(zip(texts, codes)):
        ins = next(x for x in kernels[f"k{i}"].instructions if x.base.startswith("v"))
        lane = scalar_video_lane(ins.base, ins.types, ins.mods, ins.vsel or {})
        for x, y, z in inputs(rng, a.inputs, ins.base in ("vshl", "vshr")):
            want, got = Sass(x, y, z).run(code), lane(x, y, z)
            total += 1
            if want != got:
                differ[text] = differ.get(text, 0) + 1
                examples.setdefault(text, f"a={x:#x} b={y:#x} c={z:#x}: ptxas {want:#x}, emulator {got:#x}")
        if (i + 1) % 500 == 0:
            print(f"  {i + 1}/{len(texts)} forms", file=sys.stderr)
    print(f"emulator vs ptxas's lowering: {len(texts)} forms x {a.inputs} inputs, {sum(differ.values())} of "
          f"{total} outputs differ in {len(differ)} forms ({time.time() - t0:.0f} s)")
    for text, n in sorted(differ.items(), key=lambda kv: -kv[1])[:a.show]:
        print(f"  {n:4d}  {text:55s} {examples[text]}")
    return 1 if differ or record_bad else 0


if __name__ == "__main__":
    sys.exit(main())
