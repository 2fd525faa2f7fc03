"""Parse compute-sanitizer's text reports (memcheck, racecheck, initcheck, synccheck) into plain data.

    from programs.bugs.sanitizer.parse import parse_report
    run = parse_report(open("race_scan_war.racecheck.log").read(), tool="racecheck")
    run["findings"]        # one entry per distinct (kind, accesses): lines, count, threads, blocks, addresses
    run["error_summary"]   # N of "ERROR SUMMARY: N errors" (None if the report has no summary)

Standard library only: the device driver (``driver.py``) imports it on the GPU machine as well.

A report is a sequence of records.  A record starts with a header line ``========= <text>`` (one space
after the prefix) and goes on with indented lines ``=========     <text>``; a bare ``=========`` ends it.
Headers recognised (the four tools' formats as compute-sanitizer 2025.3 prints them, and a few older
spellings; anything else is kept as kind ``other`` with its text, so nothing is lost):

- memcheck: ``Invalid __global__ read of size 4 bytes`` + ``Access to 0x.. is out of bounds|is misaligned``
  (class ``out_of_bounds`` / ``misaligned`` / ``invalid_address``), hardware exceptions such
  as ``Misaligned Shared or Local Address`` or ``Warp Out-of-range Address`` (kind ``exception``);
- initcheck: ``Uninitialized __global__ memory read of size 4 bytes`` (kind ``uninitialized``),
  ``Host API uninitialized memory access`` (kind ``api_uninitialized``);
- racecheck: analysis records ``Error: Race reported between Write access at .. and Read access at ..
  [N hazards]`` (kind ``race``; one ``and ... access`` line per conflicting instruction), hazard records
  ``Error: Potential RAW hazard detected at __shared__ 0x.. in block (x,y,z) :`` with the two threads'
  lines (kind ``hazard``, class RAW/WAR/WAW; ``Warning: (Warp Level Programming) Potential ...`` for two
  lanes of one warp, kept as ``scope``), and ``Deadlock detected in Barrier|Syncwarp called by threads
  starting at (..) in block (..), (active mask: 0x..) at ..`` (kind ``deadlock``, with
  ``--racecheck-deadlock-timeout``);
- synccheck: ``Barrier error detected. <reason>`` (kind ``barrier``, class = the reason), and any other
  header naming a sync/warp error;
- ``Program hit cudaError...`` (kind ``api_error``), ``ERROR SUMMARY`` / ``RACECHECK SUMMARY`` (summaries).

A record's CUDA line is its ``at`` location, or, when that is inside a toolkit header (an inlined
intrinsic: ``at __syncwarp(unsigned int)+0x150 in sm_30_intrinsics.hpp:110``), its first ``Device Frame``
outside the headers.  File names are reduced to their base name (the device's paths differ from the
repository's).
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

PREFIX = "========="
MAX_SAMPLES = 8            # threads / blocks / addresses kept per finding

_HEADER = re.compile(r"^=========( (?P<text>\S.*))?$")
_BODY = re.compile(r"^=========\s{2,}(?P<text>\S.*)$")

_LOC = r"(?P<func>[^\s].*?)\+0x(?P<off>[0-9a-fA-F]+)(?: in (?P<file>.+?):(?P<line>\d+))?"
_AT = re.compile(r"^at " + _LOC + r"\s*$")
_DEVICE_FRAME = re.compile(r"^Device Frame:\s*" + _LOC + r"\s*(?:\[inlined\])?\s*$")
_BY_THREAD = re.compile(r"^by thread \((?P<t>[\d, ]+)\) in block \((?P<b>[\d, ]+)\)")
_ADDRESS = re.compile(r"^(?:Address|Access (?:at|to)) (?P<addr>0x[0-9a-fA-F]+)(?: is (?P<status>.+?))?\s*$")
_NEAREST = re.compile(r"^and is (?P<dist>[\d,]+) bytes? (?P<rel>before|after|inside) (?:the )?nearest allocation "
                      r"at (?P<base>0x[0-9a-fA-F]+) of size (?P<size>[\d,]+) bytes?")
_INVALID = re.compile(r"^Invalid (?P<space>__\w+__) (?P<op>read|write|atomic|access)\w* of size (?P<size>[\d,]+) bytes?")
_UNINIT = re.compile(r"^Uninitialized (?P<space>__\w+__) memory (?P<op>read|write|access) of size (?P<size>[\d,]+) bytes?")
_RACE = re.compile(r"^(?P<sev>Error|Warning|Info): Race reported between (?P<a>Read|Write|Atomic)\w* access at " + _LOC
                   + r"\s*$")
_RACE_AND = re.compile(r"^and (?P<a>Read|Write|Atomic)\w* access at " + _LOC + r"\s*(?:\[(?P<n>[\d,]+) hazards?\])?\s*$")
_HAZARD = re.compile(r"^(?P<sev>Error|Warning|Info): (?:\((?P<scope>[^)]*)\) )?Potential (?P<kind>RAW|WAR|WAW) "
                     r"hazard detected at (?P<space>__\w+__) (?P<addr>0x[0-9a-fA-F]+) in block \((?P<b>[\d, ]+)\)")
_DEADLOCK = re.compile(r"^Deadlock detected in (?P<what>\w+) called by threads starting at \((?P<t>[\d, ]+)\) in "
                       r"block \((?P<b>[\d, ]+)\), \(active mask: (?P<mask>0x[0-9a-fA-F]+)\) at " + _LOC + r"\s*$")
_HAZARD_THREAD = re.compile(r"^(?P<a>Read|Write|Atomic)\w* Thread \((?P<t>[\d, ]+)\) at " + _LOC + r"\s*$")
_BARRIER = re.compile(r"^Barrier error detected\.?\s*(?P<reason>.*?)\s*$")
_API = re.compile(r"^Program hit (?P<err>\w+) \(error (?P<code>\d+)\)(?: due to \"(?P<msg>[^\"]*)\")? on "
                  r"(?:CUDA API call to|CUDA API) ?(?P<call>\w+)?")
_API_UNINIT = re.compile(r"^Host API uninitialized memory access")
_ERROR_SUMMARY = re.compile(r"^ERROR SUMMARY: (?P<n>[\d,]+) errors?")
_RACE_SUMMARY = re.compile(r"^RACECHECK SUMMARY: (?P<n>[\d,]+) hazards? displayed \((?P<e>[\d,]+) errors?, "
                           r"(?P<w>[\d,]+) warnings?\)")
_EXCEPTION = re.compile(r"^(?:Warp |Lane )?(?:Misaligned|Out-of-range|Illegal|Invalid|Hardware|MMU|Malformed)")
_NOISE = re.compile(r"^(?:COMPUTE-SANITIZER|Saved host backtrace|Host Frame|Note:|Target application returned|"
                    r"Warning: Detected possible deadlock)")


def _int(s: str | None) -> int | None:
    return None if s is None else int(s.replace(",", ""))


def _dim3(s: str) -> list[int]:
    return [int(x) for x in s.replace(" ", "").split(",")]


def _func(name: str) -> str:
    """``kernel(int *, int)`` -> ``kernel``; ``void kernel<1>(...)`` keeps the template arguments."""
    name = name.strip()
    depth, cut = 0, len(name)
    for k in range(len(name) - 1, -1, -1):       # drop a trailing (...) argument list
        c = name[k]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                cut = k
                break
    if name.endswith(")"):
        name = name[:cut]
    return name.split(" ")[-1] if " " in name and "<" not in name else name


def _loc(m: re.Match, role: str | None = None) -> dict:
    d = {"func": _func(m.group("func")), "offset": int(m.group("off"), 16),
         "file": PurePosixPath(m.group("file")).name if m.group("file") else None, "line": _int(m.group("line"))}
    if role is not None:
        d = {"access": role, **d}
    return d


def split_records(text: str) -> list[dict]:
    """The report's records: ``{"header": str, "body": [str, ...]}`` in order (lines without the prefix and
    blank separators are dropped)."""
    records: list[dict] = []
    cur = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.startswith(PREFIX):
            continue
        body = _BODY.match(line)
        if body:
            if cur is None:                       # indented line with no header: keep it as its own record
                cur = {"header": "", "body": []}
                records.append(cur)
            cur["body"].append(body.group("text").strip())
            continue
        head = _HEADER.match(line)
        if head and head.group("text"):
            cur = {"header": head.group("text").strip(), "body": []}
            records.append(cur)
        else:
            cur = None                            # a bare "=========" ends the record
    return records


def parse_record(rec: dict) -> dict:
    """One record as a dict with at least ``kind`` and ``text`` (the header)."""
    h, body = rec["header"], rec["body"]
    out: dict = {"kind": "other", "text": h}
    if m := _INVALID.match(h):
        out.update(kind="invalid_access", space=m.group("space"), op=m.group("op"), size=_int(m.group("size")))
    elif m := _UNINIT.match(h):
        out.update(kind="uninitialized", space=m.group("space"), op=m.group("op"), size=_int(m.group("size")))
    elif _API_UNINIT.match(h):
        out.update(kind="api_uninitialized")
    elif m := _RACE.match(h):
        out.update(kind="race", severity=m.group("sev"), accesses=[_loc(m, m.group("a"))])
    elif m := _HAZARD.match(h):
        out.update(kind="hazard", severity=m.group("sev"), cls=m.group("kind"), space=m.group("space"),
                   address=m.group("addr"), block=_dim3(m.group("b")), accesses=[])
        if m.group("scope"):
            out["scope"] = m.group("scope")                       # "Warp Level Programming"
    elif m := _DEADLOCK.match(h):
        out.update(kind="deadlock", cls=m.group("what"), thread=_dim3(m.group("t")), block=_dim3(m.group("b")),
                   mask=m.group("mask"), at=_loc(m))
    elif m := _BARRIER.match(h):
        out.update(kind="barrier", cls=m.group("reason") or "unspecified")
    elif m := _API.match(h):
        out.update(kind="api_error", error=m.group("err"), code=_int(m.group("code")), call=m.group("call"))
    elif m := _ERROR_SUMMARY.match(h):
        out.update(kind="error_summary", count=_int(m.group("n")))
    elif m := _RACE_SUMMARY.match(h):
        out.update(kind="racecheck_summary", count=_int(m.group("n")), errors=_int(m.group("e")),
                   warnings=_int(m.group("w")))
    elif _NOISE.match(h):
        out.update(kind="note")
    elif _EXCEPTION.match(h):
        out.update(kind="exception", cls=h)
    elif re.search(r"(?i)\b(sync|barrier|warp|shfl|shuffle|vote|ballot|mask)\b", h) and "hazard" not in h:
        out.update(kind="sync_error", cls=h)

    frames = []
    for line in body:
        if m := _AT.match(line):
            out.setdefault("at", _loc(m))
        elif m := _DEVICE_FRAME.match(line):
            frames.append(_loc(m))
        elif m := _BY_THREAD.match(line):
            out["thread"], out["block"] = _dim3(m.group("t")), _dim3(m.group("b"))
        elif m := _ADDRESS.match(line):
            out["address"] = m.group("addr")
            if m.group("status"):
                out["status"] = m.group("status")
        elif m := _NEAREST.match(line):
            out["nearest"] = {"distance": _int(m.group("dist")), "relation": m.group("rel"),
                              "base": m.group("base"), "size": _int(m.group("size"))}
        elif (m := _RACE_AND.match(line)) and out["kind"] == "race":
            out["accesses"].append({**_loc(m, m.group("a")), "hazards": _int(m.group("n"))})
            out["hazards"] = out.get("hazards", 0) + (_int(m.group("n")) or 0)
        elif (m := _HAZARD_THREAD.match(line)) and out["kind"] == "hazard":
            out["accesses"].append({**_loc(m, m.group("a")), "thread": _dim3(m.group("t"))})
        elif line.startswith("Current Value") and out["kind"] == "hazard":
            out["values"] = line
    if frames:
        out["frames"] = frames
    if out["kind"] == "invalid_access":
        status = out.get("status", "")
        out["cls"] = ("misaligned" if "misaligned" in status else
                      "out_of_bounds" if "out of bounds" in status else "invalid_address")
    return out


NON_ERRORS = {"note", "error_summary", "racecheck_summary"}


HEADER_SUFFIXES = (".h", ".hpp")        # the toolkit's headers: sm_30_intrinsics.hpp, ...


def source_location(rec: dict) -> dict | None:
    """Where in the program's own source a record points: its ``at`` location, or, when that is inside a
    toolkit header (an inlined intrinsic such as ``__syncwarp``), the first device frame outside the
    headers."""
    for loc in [rec.get("at"), *rec.get("frames", [])]:
        if loc and loc.get("file") and not loc["file"].endswith(HEADER_SUFFIXES):
            return loc
    return rec.get("at")


def _lines_of(rec: dict) -> list[int]:
    if "accesses" in rec:
        return [a["line"] for a in rec["accesses"] if a.get("line") is not None]
    loc = source_location(rec)
    return [loc["line"]] if loc and loc.get("line") is not None else []


def finding_key(rec: dict) -> tuple:
    """What makes two records the same finding: kind, class/space/op/size and the (type, line) of each
    access."""
    if rec["kind"] in ("race", "hazard"):
        acc = tuple((a["access"], a.get("file"), a.get("line")) for a in rec["accesses"])
        if rec["kind"] == "race":
            acc = tuple(sorted(set(acc), key=lambda a: (a[1] or "", a[2] or 0, a[0])))
        return (rec["kind"], rec.get("cls"), rec.get("severity"), rec.get("scope"), rec.get("space"), acc)
    at = source_location(rec) or {}
    return (rec["kind"], rec.get("cls"), rec.get("space"), rec.get("op"), rec.get("size"),
            ((None, at.get("file"), at.get("line")),), rec.get("text") if rec["kind"] == "other" else None)


def aggregate(records: list[dict]) -> list[dict]:
    """Group error records into findings, in order of first appearance."""
    found: dict[tuple, dict] = {}
    for rec in records:
        if rec["kind"] in NON_ERRORS:
            continue
        key = finding_key(rec)
        f = found.get(key)
        if f is None:
            f = {"kind": rec["kind"]}
            for k in ("cls", "severity", "scope", "space", "op", "size", "error", "call"):
                if rec.get(k) is not None:
                    f[k] = rec[k]
            if rec["kind"] in ("other", "exception", "sync_error", "barrier", "api_error", "deadlock"):
                f["text"] = rec["text"]
            loc = source_location(rec) or (rec.get("accesses") or [{}])[0]
            f["kernel"], f["file"] = loc.get("func"), loc.get("file")
            f["lines"] = sorted(set(_lines_of(rec)))
            if rec["kind"] in ("race", "hazard"):
                f["accesses"] = [dict(t) for t in dict.fromkeys(
                    tuple({"access": a["access"], "line": a.get("line")}.items()) for a in rec["accesses"])]
            f.update(count=0, threads=[], blocks=[], addresses=[])
            if rec["kind"] == "race":
                f["hazards"] = 0
            found[key] = f
        f["count"] += 1
        if rec["kind"] == "race":
            f["hazards"] += rec.get("hazards", 1)
        threads = [rec["thread"]] if "thread" in rec else [a["thread"] for a in rec.get("accesses", []) if "thread" in a]
        for t in threads:
            if t not in f["threads"] and len(f["threads"]) < MAX_SAMPLES:
                f["threads"].append(t)
        if "block" in rec and rec["block"] not in f["blocks"] and len(f["blocks"]) < MAX_SAMPLES:
            f["blocks"].append(rec["block"])
        if "address" in rec and rec["address"] not in f["addresses"] and len(f["addresses"]) < MAX_SAMPLES:
            f["addresses"].append(rec["address"])
        if "nearest" in rec and "nearest" not in f:
            f["nearest"] = rec["nearest"]
    return list(found.values())


def parse_report(text: str, tool: str | None = None) -> dict:
    """The whole report: ``{"tool", "error_summary", "racecheck_summary", "errors" (count of error
    records), "findings", "lines", "notes"}``; ``lines`` is the sorted set of CUDA lines of all findings."""
    records = [parse_record(r) for r in split_records(text)]
    summary = next((r["count"] for r in records if r["kind"] == "error_summary"), None)
    race = next(({k: r[k] for k in ("count", "errors", "warnings")} for r in records
                 if r["kind"] == "racecheck_summary"), None)
    errors = [r for r in records if r["kind"] not in NON_ERRORS]
    findings = aggregate(records)
    return {"tool": tool, "error_summary": summary, "racecheck_summary": race, "errors": len(errors),
            "findings": findings, "lines": sorted({ln for f in findings for ln in f["lines"]}),
            "notes": [r["text"] for r in records if r["kind"] == "note" and not r["text"].startswith("COMPUTE")]}


def is_clean(run: dict) -> bool:
    """No error record and, where the report has one, a zero error summary."""
    return run["errors"] == 0 and not run.get("error_summary")
