"""The microbenchmarks' harness (run on the GPU machine by micro.py): provenance, the loaded cubin and its
buffers (:class:`Bench`), cases launched and timed with CUDA events, and the ncu child runs (:func:`run_ncu`
starts ``ncu ... python3 micro.py launch SPEC.json``).  ``ARGS`` is set by micro.py's ``main`` (the cubin
and the records folder)."""
from __future__ import annotations

import csv
import datetime
import io
import json
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GiB = 1 << 30
MiB = 1 << 20
KiB = 1 << 10


MICRO = HERE / "micro.py"
ARGS = None   # micro.py main() sets it: .cubin, .rec

# ----------------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------------
def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sh(cmd, timeout=60) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return (p.stdout + p.stderr).strip()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"


def ncu_path() -> str | None:
    import shutil
    found = shutil.which("ncu")
    if found:
        return found
    for cand in ("/usr/local/cuda/bin/ncu", *sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"))):
        if Path(cand).exists():
            return str(cand)
    return None


def smi_clocks() -> str:
    return sh(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,"
               "clocks.applications.graphics,clocks.applications.memory,power.draw,power.limit,pstate,"
               "temperature.gpu,clocks_event_reasons.active", "--format=csv,noheader"], 20)


_PROV: dict | None = None


def provenance() -> dict:
    """GPU, driver, CUDA, CuPy, ncu, the cubin's nvcc, clocks, date.  Cached per process (clocks re-read)."""
    global _PROV
    import cupy as cp
    if _PROV is None:
        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)

        def ver(v):
            return f"{v // 1000}.{(v % 1000) // 10}"
        build = {}
        try:
            build = json.loads((Path(ARGS.cubin).with_suffix(".build.json")).read_text())
        except Exception:  # noqa: BLE001
            pass
        ncu = ncu_path()
        _PROV = {
            "gpu_name": name, "sm_count": int(props["multiProcessorCount"]),
            "compute_capability": f"{props['major']}.{props['minor']}",
            "sm_clock_max_mhz": props.get("clockRate", 0) / 1000.0,
            "mem_clock_max_mhz": props.get("memoryClockRate", 0) / 1000.0,
            "mem_bus_width_bits": int(props.get("memoryBusWidth", 0)), "l2_bytes": int(props.get("l2CacheSize", 0)),
            "shared_per_sm": int(props.get("sharedMemPerMultiprocessor", 0)),
            "shared_per_block_optin": int(props.get("sharedMemPerBlockOptin", 0)),
            "regs_per_sm": int(props.get("regsPerMultiprocessor", 0)),
            "driver": ver(cp.cuda.runtime.driverGetVersion()), "cuda_runtime": ver(cp.cuda.runtime.runtimeGetVersion()),
            "cupy": cp.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
            "ncu": (sh([ncu, "--version"], 30).splitlines() or [""])[-1] if ncu else None,
            "nvidia_smi_driver": sh(["nvidia-smi", "--query-gpu=name,driver_version,vbios_version,serial",
                                     "--format=csv,noheader"], 20),
            "cubin_build": build, "host": platform.node(),
        }
    out = dict(_PROV)
    out["date"] = now_utc()
    out["nvidia_smi_clocks_now"] = smi_clocks()
    return out


def save(name: str, doc: dict) -> Path:
    doc = dict(doc)
    doc.setdefault("provenance", provenance())
    p = Path(ARGS.rec) / f"{name}.json"
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=_jsonable))
    tmp.replace(p)
    return p


def _jsonable(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, flush=True)


# ----------------------------------------------------------------------------------------------------
# the bench: module, buffers, launchers
# ----------------------------------------------------------------------------------------------------
class Bench:
    def __init__(self, dram_bytes: int = GiB):
        import cupy as cp
        self.cp = cp
        self.mod = self._load()
        props = cp.cuda.runtime.getDeviceProperties(0)
        self.nsm = int(props["multiProcessorCount"])
        self.dram_bytes = dram_bytes
        self._bufs: dict = {}
        self.ticket = cp.zeros(4, dtype=cp.uint32)
        self.times = cp.zeros(4 * 132 * 64, dtype=cp.uint64)
        self.sink = cp.zeros(16, dtype=cp.float32)
        self.dram_cursor = 0
        self.ev0, self.ev1 = cp.cuda.Event(), cp.cuda.Event()
        self._smids = None
        self._carve: dict = {}

    def smids(self) -> list[int]:
        """The %smid values blocks land on (a grid of 8 blocks per SM), sorted."""
        if self._smids is None:
            cp = self.cp
            out = cp.zeros(self.nsm * 8, dtype=cp.uint32)
            self.f("setup_smid")((self.nsm * 8,), (32,), (out,))
            self.sync()
            self._smids = sorted(set(int(x) for x in out.get()))
        return self._smids

    def sm_threshold(self, sms: int) -> int:
        """Blocks with %smid below this work: the `sms` lowest SM ids (all SMs: no limit)."""
        if sms >= self.nsm:
            return 1 << 30
        return self.smids()[sms - 1] + 1

    def _load(self):
        cp = self.cp
        try:
            return cp.RawModule(path=str(ARGS.cubin))
        except Exception as e:  # noqa: BLE001 - rebuild here with the machine's nvcc
            log("cubin load failed, building with nvcc:", e)
            out = Path(tempfile.gettempdir()) / "micro_rebuilt.cubin"
            subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-O3", "-o", str(out), str(HERE / "micro.cu")],
                           check=True)
            return cp.RawModule(path=str(out))

    def f(self, name):
        return self.mod.get_function(name)

    def buf(self, key: str):
        """Lazily allocated device buffers, filled with ones (never zeros)."""
        cp = self.cp
        if key not in self._bufs:
            if key in ("A", "B"):
                a = cp.empty(self.dram_bytes // 4, dtype=cp.float32)
            elif key == "flush":
                a = cp.empty((128 * MiB) // 4, dtype=cp.float32)
            else:
                raise KeyError(key)
            a.fill(1.0)
            self._bufs[key] = a
        return self._bufs[key]

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def flush_l2(self, v: float = 2.0):
        self.buf("flush").fill(v)

    # ---- streams -------------------------------------------------------------------------------------
    @staticmethod
    def occupancy(warps: int) -> dict:
        """Launch shape for `warps` resident warps per SM: blocks per SM, threads per block, dynamic shared
        memory that admits no more blocks per SM, launch-bounds variant."""
        if warps <= 32:
            return {"bps": 1, "threads": 32 * warps, "smem": 120 * KiB, "lb": 1}
        if warps == 48:
            return {"bps": 2, "threads": 768, "smem": 100 * KiB, "lb": 2}
        if warps == 64:
            return {"bps": 2, "threads": 1024, "smem": 100 * KiB, "lb": 2}
        raise ValueError(warps)

    def stream_kernel(self, op, ilp, vec, cg, lb):
        name = f"mb_s_{op}_i{ilp}_v{vec}_cg{int(cg)}_lb{lb}"
        fn = self.f(name)
        return name, fn

    def stream_launch(self, cfg: dict, iters: int, timed: bool = True) -> dict:
        """One launch of a stream config; returns the in-kernel window and bytes.

        cfg keys: op, ilp, vec, cg, warps, sms, mem ("dram" | "l2"); optional spread (L2 sets: blocks start
        set / active_blocks apart instead of walking the set in step), smem (dynamic shared bytes instead of
        the occupancy limiter), carve (cudaFuncAttributePreferredSharedMemoryCarveout, percent)."""
        cp = self.cp
        op, ilp, vec, cg, warps, sms, mem = (cfg[k] for k in ("op", "ilp", "vec", "cg", "warps", "sms", "mem"))
        occ = self.occupancy(warps)
        smem = cfg.get("smem", occ["smem"])
        name, fn = self.stream_kernel(op, ilp, vec, cg, occ["lb"])
        if fn.max_dynamic_shared_size_bytes < smem:
            fn.max_dynamic_shared_size_bytes = smem
        carve = cfg.get("carve")
        if self._carve.get(name) != carve:       # set only when it changes (-1 = the driver's default)
            try:
                fn.preferred_shared_memory_carveout = -1 if carve is None else int(carve)
            except Exception as e:  # noqa: BLE001
                if carve is not None:
                    raise
                log("could not reset the carve-out preference of", name, e)
            self._carve[name] = carve
        A, B = self.buf("A"), self.buf("B")
        elems = self.dram_bytes // vec
        if mem == "dram":
            mask = elems - 1
            tmask = elems - 1
        else:
            set_bytes = 8 * MiB if op in ("read", "gather") else 4 * MiB
            mask = set_bytes // vec - 1
            tmask = set_bytes // vec - 1
        grid = self.nsm * occ["bps"]
        per_block = iters * ilp * occ["threads"]
        n_active = (sms if sms < self.nsm else self.nsm) * occ["bps"]
        if mem == "l2" and cfg.get("spread"):
            kstride = ((mask + 1) // n_active) // occ["threads"] * occ["threads"]
        else:
            kstride = per_block
        base = self.dram_cursor
        self.ticket.data.memset_async(0, 4)
        args = (A, B, np.uint64(mask), np.uint64(base), np.uint32(tmask), np.int32(iters), np.float32(1.0001),
                self.sink, self.times, self.ticket, np.uint32(self.sm_threshold(sms)), np.uint64(kstride))
        self.ev0.record()
        fn((grid,), (occ["threads"],), args, shared_mem=smem)
        self.ev1.record()
        self.ev1.synchronize()
        ev_ms = cp.cuda.get_elapsed_time(self.ev0, self.ev1)
        n = int(self.ticket[0].get())
        if n == 0:
            raise RuntimeError(f"no block ran on the selected SMs (smids {self.smids()[:4]}...)")
        t = self.times[: 4 * n].get().reshape(n, 4).astype(np.int64)
        if mem == "dram":
            self.dram_cursor = (self.dram_cursor + n * per_block) % elems
        window = int(t[:, 1].max() - t[:, 0].min()) if n else 0
        sms_used = np.unique(t[:, 3])
        per_sm = np.bincount(t[:, 3], minlength=int(t[:, 3].max()) + 1) if n else np.zeros(1)
        cyc = t[:, 2]
        dur = t[:, 1] - t[:, 0]
        mhz = float(np.median(cyc / np.maximum(dur, 1)) * 1000.0) if n else None
        rw = 2 if op in ("copy", "scale") else 1
        loads = n * per_block
        return {"kernel": name, "blocks_active": n, "sms_active": int(sms_used.size),
                "blocks_per_active_sm_max": int(per_sm.max()), "window_ns": window, "events_ms": ev_ms,
                "useful_bytes": loads * vec * rw, "loads": loads, "iters": iters, "sm_mhz": mhz}

    def stream_measure(self, cfg: dict, target_ns: float = 1.0e6, reps: int = 5) -> dict:
        occ = self.occupancy(cfg["warps"])
        _, fn = self.stream_kernel(cfg["op"], cfg["ilp"], cfg["vec"], cfg["cg"], occ["lb"])
        attrs = {"regs": fn.num_regs, "local_bytes": fn.local_size_bytes, "static_smem": fn.shared_size_bytes}
        if fn.local_size_bytes > 0:
            return {**cfg, **occ, **attrs, "skipped": "kernel spills to local memory at this launch bound"}
        active_blocks = (cfg["sms"] if cfg["sms"] < self.nsm else self.nsm) * occ["bps"]
        per_iter = active_blocks * cfg["ilp"] * occ["threads"]
        elems = self.dram_bytes // cfg["vec"]
        cap = max(1, (elems // 2) // per_iter) if cfg["mem"] == "dram" else 1 << 22
        iters = min(8, cap)
        r = self.stream_launch(cfg, iters)
        tries = 0
        while r["window_ns"] < 100_000 and iters < cap and tries < 4:
            iters = min(cap, iters * 8)
            r = self.stream_launch(cfg, iters)
            tries += 1
        iters = int(max(1, min(cap, round(iters * target_ns / max(r["window_ns"], 1)))))
        self.stream_launch(cfg, iters)        # warm-up at the final size
        runs = [self.stream_launch(cfg, iters) for _ in range(reps)]
        win = [x["window_ns"] for x in runs]
        med = sorted(runs, key=lambda x: x["window_ns"])[len(runs) // 2]
        bw = med["useful_bytes"] / med["window_ns"] if med["window_ns"] else None     # bytes/ns = GB/s
        out = {**cfg, **occ, **attrs, "cfg": dict(cfg), "smem": cfg.get("smem", occ["smem"]), "iters": iters, "window_ns_median": med["window_ns"], "window_ns_all": win,
               "events_ms_median": statistics.median(x["events_ms"] for x in runs),
               "useful_bytes": med["useful_bytes"], "loads": med["loads"], "gbps": bw,
               "blocks_active": med["blocks_active"], "sms_active": med["sms_active"],
               "blocks_per_active_sm_max": med["blocks_per_active_sm_max"], "sm_mhz": med["sm_mhz"],
               "warps_per_active_sm": med["blocks_per_active_sm_max"] * occ["threads"] // 32}
        if cfg["op"] == "gather":
            out["sector_gbps"] = med["loads"] * 32 / med["window_ns"] if med["window_ns"] else None
        return out


def _chain(cp, region_bytes: int, stride: int, rng, random_order=True):
    buf = cp.zeros(region_bytes // 8, dtype=cp.uint64)
    base = int(buf.data.ptr)
    n = region_bytes // stride
    order = rng.permutation(n) if random_order else np.arange(n)
    host = np.zeros(region_bytes // 8, dtype=np.uint64)
    nodes = order.astype(np.uint64) * np.uint64(stride // 8)
    nxt = np.roll(nodes, -1)
    host[nodes.astype(np.int64)] = np.uint64(base) + nxt * np.uint64(8)
    buf.set(host)
    start = buf[int(nodes[0]):]
    return buf, start, n


class AtomRunner:
    def __init__(self, b: Bench):
        import cupy as cp
        self.b, self.cp = b, cp
        self.ibuf = cp.zeros((64 * MiB) // 4, dtype=cp.uint32)
        self.fbuf = cp.zeros((64 * MiB) // 4, dtype=cp.float32)
        self.tmask = (16 * MiB) // 32 - 1

    def launch(self, c: dict, iters: int) -> float:
        cp, b = self.cp, self.b
        if c["op"].startswith("uniform"):
            fn = b.f(f"mb_atom_{c['op']}")
            args = (self.ibuf if c["op"] == "uniform_i" else self.fbuf, np.int32(iters))
        else:
            fn = b.f(f"mb_atom_{c['op']}")
            args = (self.ibuf, self.fbuf, np.int32(iters), np.uint32(c["naddr"]), np.uint32(c["spread"]),
                    np.int32(c["scatter"]), np.uint32(self.tmask), b.ticket)
        b.ev0.record()
        fn((c["grid"],), (c["block"],), args)
        b.ev1.record()
        b.ev1.synchronize()
        return cp.cuda.get_elapsed_time(b.ev0, b.ev1)

    def measure(self, c: dict, target_ms: float = 1.5, reps: int = 5) -> dict:
        iters = 1
        t = self.launch(c, iters)
        while t < 0.2 and iters < (1 << 20):
            iters *= 8
            t = self.launch(c, iters)
            if t > 50:
                break
        iters = int(max(1, min(1 << 22, round(iters * target_ms / max(t, 1e-3)))))
        self.launch(c, iters)
        ts = sorted(self.launch(c, iters) for _ in range(reps))
        ms = ts[len(ts) // 2]
        threads = c["grid"] * c["block"]
        ops = threads * iters                      # thread-level atomic operations (elements for wagg)
        warp_instr = (threads // 32) * iters
        # one atomic per warp: the warp-aggregated kernels, and ptxas's own aggregation of a uniform int add
        atomics_issued = warp_instr if (c["op"].startswith("wagg") or c["op"] == "uniform_i") else ops
        return {**c, "iters": iters, "ms_median": ms, "ms_all": ts, "thread_ops": ops, "warp_instructions": warp_instr,
                "atomic_ops_to_l2": atomics_issued,
                "thread_ops_per_ns": ops / (ms * 1e6), "atomics_per_ns": atomics_issued / (ms * 1e6),
                "warp_instr_per_ns": warp_instr / (ms * 1e6)}


# ----------------------------------------------------------------------------------------------------
# running cases (in the ncu child, or timed with events)
# ----------------------------------------------------------------------------------------------------
def _apply_smem_attrs(fn, c):
    need = max(c.get("dyn", 0), c.get("max_dyn_attr", 0))
    if need > 48 * KiB or c.get("max_dyn_attr"):
        fn.max_dynamic_shared_size_bytes = need
    if "carveout_pref" in c:
        fn.preferred_shared_memory_carveout = c["carveout_pref"]


def _reset_smem_attrs(fn, c):
    try:
        if "carveout_pref" in c:
            fn.preferred_shared_memory_carveout = -1
        if c.get("max_dyn_attr") or c.get("dyn", 0) > 48 * KiB:
            fn.max_dynamic_shared_size_bytes = 0
    except Exception:  # noqa: BLE001
        pass


class CaseRunner:
    def __init__(self, dram_bytes: int):
        import cupy as cp
        self.cp = cp
        self.b = Bench(dram_bytes=dram_bytes)
        self._table = None
        self._tr = {}
        self._atom = None

    def table(self):
        cp = self.cp
        if self._table is None:
            rng = np.random.default_rng(3)
            n = (1 * MiB) // 4
            self._table = cp.asarray(rng.integers(0, n, size=n, dtype=np.int32))
            self._tout = cp.zeros(1056 * 256, dtype=cp.int32)
        return self._table

    def run(self, c: dict):
        """Launch case c once (no sync beyond what the launcher does); returns a short dict."""
        b, cp = self.b, self.cp
        k = c["kind"]
        if k == "stream":
            cfg = dict(c["cfg"])
            if cfg["sms"] >= b.nsm:
                cfg["sms"] = b.nsm
            r = b.stream_launch(cfg, c["iters"])
            return {"window_ns": r["window_ns"], "useful_bytes": r["useful_bytes"], "kernel": r["kernel"]}
        if k == "ffma":
            fn = b.f("mb_ffma")
            x = cp.ones(256, dtype=cp.float32)
            fn((b.nsm * 8,), (256,), (x, np.int32(c["n"]), np.float32(0.9999), np.float32(0.0001), b.times))
            b.sync()
            return {"kernel": "mb_ffma"}
        if k in ("table_chase", "table_gather"):
            t = self.table()
            fn = b.f("mb_" + k)
            fn((1056,), (256,), (t, self._tout, np.int32(c["steps"]), np.int32(t.size - 1)))
            b.sync()
            return {"kernel": "mb_" + k}
        if k == "transpose":
            n = c["n"]
            if n not in self._tr:
                src = cp.asarray(np.random.default_rng(n).random((n, n), dtype=np.float32))
                self._tr[n] = (src, cp.zeros((n, n), dtype=cp.float32))
            src, dst = self._tr[n]
            fn = b.f("mb_transpose_naive")
            fn((n // 32, n // 32), (32, 32), (src, dst, np.int32(n), np.int32(n)))
            b.sync()
            ok = bool(cp.all(dst == src.T))
            return {"kernel": "mb_transpose_naive", "correct": ok}
        if k == "atom":
            if self._atom is None:
                self._atom = AtomRunner(b)
            ms = self._atom.launch(c["case"], c["iters"])
            return {"kernel": "mb_atom_" + c["case"]["op"], "ms": ms}
        if k in ("ffma_block", "chase_block"):
            fn = b.f(c["kernel"])
            if k == "ffma_block":
                fn((264,), (c["block"],), (cp.ones(1024, dtype=cp.float32), np.int32(4), np.float32(0.9),
                                           np.float32(0.1), b.times))
            else:
                t = self.table()
                fn((264,), (c["block"],), (t, self._tout, np.int32(4), np.int32(t.size - 1)))
            b.sync()
            return {"kernel": c["kernel"]}
        if k == "loaded_latency":
            return self.loaded_latency(c)
        if k == "smem":
            fn = b.f(c["kernel"])
            _apply_smem_attrs(fn, c)
            out = cp.zeros(4, dtype=cp.float32)
            if c["kernel"] == "mb_smem_regheavy":
                args = (cp.ones(1024, dtype=cp.float32), np.int32(4))
            elif c["kernel"].startswith("mb_smem_regs"):
                args = (cp.ones(1024, dtype=cp.float32), np.uint32(max(1, c["dyn"] // 4)), np.int32(4))
            elif c.get("stream_args"):
                b.ticket.data.memset_async(0, 4)
                args = (b.buf("A"), b.buf("B"), np.uint64(b.dram_bytes // 16 - 1), np.uint64(0), np.uint32(0),
                        np.int32(1), np.float32(1.0), b.sink, b.times, b.ticket, np.uint32(1 << 30),
                        np.uint64(8 * 1024))
            elif c["kernel"] in ("mb_smem_dyn", "mb_smem_s8192_dyn"):
                args = (out, np.uint32(max(1, c["dyn"] // 4)))
            else:
                args = (out,)
            fn((132 if c.get("stream_args") else 264,), (c["block"],), args, shared_mem=c["dyn"])
            b.sync()
            _reset_smem_attrs(fn, c)
            return {"kernel": c["kernel"]}
        raise ValueError(k)


def _loaded_latency_once(cr, c):
    cp, b = cr.cp, cr.b
    if not hasattr(cr, "_ll"):
        rng = np.random.default_rng(7)
        cr._ll = {"l2": _chain(cp, 2 * MiB, 2048, rng), "dram": _chain(cp, 64 * MiB, 32 * KiB, rng),
                  "lat": cp.zeros(1024, dtype=cp.uint32), "res": cp.zeros(8, dtype=cp.uint64),
                  "stat": cp.zeros(3, dtype=cp.uint64), "done": cp.zeros(1, dtype=cp.uint32)}
    ll = cr._ll
    buf, start, nodes = ll[c["chain"]]
    steps = min(nodes, 2048) if c["chain"] == "dram" else 2048
    mode, bps = c["mode"], c["bps"]
    mask4 = (8 * MiB) // 16 - 1 if mode == 1 else (b.dram_bytes // 16) - 1
    if c["chain"] == "dram":
        b.flush_l2(3.0)
    ll["done"].fill(0)
    ll["stat"][1] = np.uint64(2 ** 64 - 1)
    b.sync()
    b.f("mb_loaded_latency")((max(1, b.nsm * bps),), (256,), (
        start, np.int32(steps), np.int32(0 if c["chain"] == "dram" else 1), ll["lat"], np.int32(256), ll["res"],
        b.buf("A"), b.buf("B"), np.uint64(mask4), np.int32(mode), np.int32(200000), ll["done"], ll["stat"],
        np.uint32(50_000), b.sink, np.uint32(0xFFFFFFFF)))
    b.sync()
    r = ll["res"].get().astype(np.int64)
    return {"kernel": "mb_loaded_latency", "cycles_per_load": r[0] / steps, "ns_per_load": r[1] / steps}


CaseRunner.loaded_latency = _loaded_latency_once


def run_cases_events(cases, reps=5) -> list[dict]:
    """Each case: 1 warm-up, then median of `reps` CUDA-event times (boost clock, warm caches)."""
    cr = CaseRunner(dram_bytes=64 * MiB)
    out = []
    for c in cases:
        try:
            cr.run(c)
            ts = []
            for _ in range(reps):
                cr.b.ev0.record()
                r = cr.run(c)
                cr.b.ev1.record()
                cr.b.ev1.synchronize()
                ts.append(cr.cp.cuda.get_elapsed_time(cr.b.ev0, cr.b.ev1))
            out.append({"case": c, "ms_median": statistics.median(ts), "ms_all": ts, "last": r})
        except Exception as e:  # noqa: BLE001
            out.append({"case": c, "error": f"{type(e).__name__}: {e}"})
    return out


def section_launch(args) -> None:
    """The ncu child: launch each case of SPEC once, in order; write what happened next to SPEC."""
    spec = json.loads(Path(args.spec).read_text())
    cr = CaseRunner(dram_bytes=spec.get("dram_bytes", 256 * MiB))
    results = []
    for c in spec["cases"]:
        try:
            results.append({"ok": True, **cr.run(c)})
        except Exception as e:  # noqa: BLE001
            results.append({"ok": False, "error": f"{type(e).__name__}: {e}"})
        cr.b.sync()
    Path(args.spec).with_suffix(".result.json").write_text(json.dumps(results, default=_jsonable))


def _known_metrics() -> set | None:
    p = Path(ARGS.rec) / "ncu_metrics.txt"
    if p.exists():
        s = set(p.read_text().split())
        return s or None
    return None


def parse_raw_csv(text: str) -> list[dict]:
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not lines:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header, data = rows[0], rows[1:]
    if data and not data[0][0].strip().isdigit():
        data = data[1:]                 # the units row
    out = []
    for r in data:
        rec = dict(zip(header, r))
        d = {"id": rec.get("ID"), "kernel": rec.get("Kernel Name", ""), "grid": rec.get("Grid Size", ""),
             "block": rec.get("Block Size", "")}
        for k, v in rec.items():
            if "__" in k:
                t = v.strip().replace(",", "")
                try:
                    fv = float(t)
                    d[k] = int(fv) if fv.is_integer() and abs(fv) < 2 ** 53 else fv
                except ValueError:
                    d[k] = t if t not in ("", "n/a") else None
        out.append(d)
    return out


def run_ncu(cases, metrics, *, extra=(), tag="", dram_bytes=256 * MiB, sections=(), group=6,
            timeout=None) -> dict:
    """Profile each case once under ncu (groups of `group` cases per ncu process, so one failure loses one
    group); rows matched to cases in order.  Unknown metrics are dropped (by the --query-metrics list, then
    by ncu's own complaint)."""
    ncu = ncu_path()
    if not ncu:
        return {"error": "ncu not found"}
    known = _known_metrics()
    keep, dropped = [], []
    for m in metrics:
        base = m.split(".", 1)[0]
        if known is None or m.startswith("launch__") or base in known or m in known:
            keep.append(m)
        else:
            dropped.append(m)
    out = {"metrics_requested": list(metrics), "metrics_dropped": dropped, "extra_args": list(extra),
           "sections": list(sections), "rows": [], "groups": []}
    rec = Path(ARGS.rec)
    for g0 in range(0, len(cases), group):
        chunk = cases[g0:g0 + group]
        spec = rec / f"ncu_{tag}_{g0}.spec.json"
        spec.write_text(json.dumps({"cases": chunk, "dram_bytes": dram_bytes}))
        ginfo = {"first_case": g0, "n": len(chunk)}
        for attempt in range(6):
            cmd = [ncu, "--csv", "--page", "raw", "--print-units", "base", "-k", "regex:^mb_", *extra]
            for s in sections:
                cmd += ["--section", s]
            if keep:
                cmd += ["--metrics", ",".join(keep)]
            cmd += [sys.executable, str(MICRO), "--cubin", str(ARGS.cubin), "--rec", str(rec),
                    "launch", "--spec", str(spec)]
            t0 = time.time()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout or 240)
            except subprocess.TimeoutExpired as e:
                ginfo["error"] = f"timeout after {e.timeout}s"
                break
            ginfo["seconds"] = round(time.time() - t0, 1)
            both = p.stdout + p.stderr
            if p.returncode != 0 and "ailed to find metric" in both:
                bad_lines = [ln for ln in both.splitlines() if "ailed to find metric" in ln]
                bad = [m for m in keep if any(re.search(r"(?<![\w.])" + re.escape(m.split(".")[0]) + r"(?!\w)", ln)
                                              for ln in bad_lines)]
                if not bad:
                    ginfo["error"] = "unknown metric not identified: " + " | ".join(bad_lines)[:500]
                    break
                keep = [m for m in keep if m not in bad]
                dropped += bad
                continue
            (rec / f"ncu_{tag}_{g0}.csv").write_text(p.stdout[-4_000_000:])
            ginfo["rc"] = p.returncode
            ginfo["stderr_tail"] = p.stderr[-1500:]
            rows = parse_raw_csv(p.stdout)
            ginfo["rows"] = len(rows)
            try:
                res = json.loads(spec.with_suffix(".result.json").read_text())
            except Exception:  # noqa: BLE001
                res = [None] * len(chunk)
            # match rows to cases: each case launches exactly one mb_* kernel, in order
            ri = 0
            for i, c in enumerate(chunk):
                r = res[i] if i < len(res) else None
                row = None
                if r and r.get("ok"):
                    want = r.get("kernel")
                    while ri < len(rows):
                        cand = rows[ri]
                        ri += 1
                        if not want or cand["kernel"].split("(")[0].strip() == want:
                            row = cand
                            break
                out["rows"].append({"case": c, "launch": r, "ncu": row})
            break
        out["groups"].append(ginfo)
        log(f"ncu {tag} group {g0}: {ginfo}")
    out["metrics_kept"] = keep
    out["metrics_dropped"] = dropped
    return out


