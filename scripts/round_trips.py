#!/usr/bin/env python3
"""PCIe round trips per unit of work, counted in every protocol kernel's PTX, without a GPU.

A kernel can be correct and still wait on PCIe far more often than its protocol needs: a load
from a peer GPU (or from host memory mapped into this one) takes a round trip of a microsecond or
more, and a warp that uses a loaded value before it issues its next remote load waits once per
load instead of once per wave. This script counts those waits in the PTX nvcc compiled for each
architecture (read from the build's objects like scripts/ptx_memory_ops.py: ptxas schedules
within the order PTX gives it, and does not move a load across a branch or a possibly aliasing
store), along every path of the kernel, and checks them against a bound per kernel family.
docs/round-trips.md defines what counts; in short:

  remote load   an instruction DeviceMem::load_peer or ::load_peer_byte emitted (kernels/mem_device.cuh:
                a data pack or byte of another rank's memory, or of host memory mapped into this GPU)
  data wait     the first instruction that reads a register of a remote load still in flight;
                it waits for every remote load issued so far (they travel together: one wave)
  flag wait     a poll of a flag or LL line inside a bounded wait (include/arbench/algo/wait.hpp);
                polls with no store and no remote load between them wait for events that happen
                on their own, so they are one wave (one flag wait)
  units         a loop whose `for` line carries a `round-trips:` marker: `per <what>` (each
                iteration is its own unit of work; its body counts once, and its waits are
                reported per <what>), `once` (at most one iteration per thread: thread-strided
                over at most `world` items), or `poll` (the spin loop of a bounded wait). A loop
                without a marker that issues remote loads or polls is a serialised loop: fail.
  paths         every branch is followed (predicated instructions count as executed); a count
                is the largest any path gives it (per region, a state per set of loads in flight)

  round_trips.py check --build-dir build/ci [--expect FILE] [--docs PAGE] [--header FILE]
  round_trips.py check --ptx FILE.ptx... --policy kernels/mem_device.cuh [--kernel NAME] [--expect FILE]
  round_trips.py table --build-dir build/ci [--write FILE] [--write-docs PAGE] [--write-header FILE]

Exit 0: within every bound (and equal to --expect, the docs table and the header where given);
1: a bound broken, a serialised loop, or a count that moved; 2: bad usage; 77: no nvcc.
"""
import collections
import concurrent.futures
import functools
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_flow  # noqa: E402  (scripts/ptx_flow.py: PTX as a control-flow graph)
import ptx_memory_ops  # noqa: E402  (the PTX of every protocol kernel, the policy's lines)
import round_trip_bounds  # noqa: E402  (scripts/round_trip_bounds.py: the bound per kernel, why)

MARK = re.compile(r"round-trips:\s*(poll|once|per [\w -]+?)\s*(?:\(|$|\*/)")
WAIT_FILE = "arbench/algo/wait.hpp"
REMOTE_OPS = {"load_peer", "load_peer_byte"}
POLL_OPS = {"load_acquire", "ll_load"}
STORE_OPS = {"store_release", "ll_store", "store_data", "store_byte"}
STATE_CAP = 4096


TREE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.lru_cache(maxsize=None)
def source_lines(path):
    """The lines of a file the PTX names. An object a compiler cache made in another checkout names
    that checkout's files; where it is gone, the same path under this tree is read (the markers
    are this tree's). A file found nowhere stops the check: without its lines no loop is marked."""
    path = os.path.normpath(path)
    if not os.path.exists(path):
        parts = path.strip(os.sep).split(os.sep)
        here = (os.path.join(TREE, *parts[i:]) for i in range(1, len(parts)))
        path = next((h for h in here if os.path.exists(h)), None)
        if path is None:
            sys.exit(f"round_trips: the PTX names {os.sep.join(parts)}, which is neither on this machine nor "
                     f"under {TREE}; rebuild the kernels (CCACHE_RECACHE=1 cmake --build ...)")
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def marker(path, line):
    lines = source_lines(path)
    if 0 < line <= len(lines):
        m = MARK.search(lines[line - 1])
        if m:
            return m.group(1).strip()
    return None


def width(opcode):
    n = 2 if ".v2." in opcode else 4 if ".v4." in opcode else 1
    m = re.search(r"\.[usbf](8|16|32|64)$", opcode)
    return n * (int(m.group(1)) // 8 if m else 4)


def short_fn(mangled):
    """arbench::algo::Fp8Payload<..>::sum_block<..>(..) -> sum_block (lambdas: the enclosing name)."""
    text = ptx_memory_ops.cuda_objects.demangle([mangled])[mangled] if mangled else ""
    if text == mangled and mangled.startswith("_ZN"):  # c++filt gave up: the nested name's last part
        names, rest = [], mangled[3:]
        while (m := re.match(r"(\d+)", rest)):
            n = int(m.group(1))
            names.append(rest[m.end():m.end() + n])
            rest = rest[m.end() + n:]
        return names[-1] if names else ""
    prev = None
    while prev != text:  # drop template arguments and parameter lists, innermost first
        prev, text = text, re.sub(r"<[^<>]*>|\([^()]*\)", "", text)
    names = re.findall(r"[A-Za-z_]\w*", text.split("::{lambda")[0].split(" ")[-1] if text else "")
    return names[-1] if names else ""


def policy_op(ins, plines, remote_ops):
    """(the DeviceMem member that emitted ins or None, its call site (file, line, function) outside
    the policy)."""
    for k, (f, line, _fn) in enumerate(ins.chain):
        if f.endswith(ptx_memory_ops.POLICY):
            op = plines.get(line)
            caller = ins.chain[k + 1] if k + 1 < len(ins.chain) else None
            if op in remote_ops and op not in REMOTE_OPS and op is not None:
                op = "load_peer"  # --remote-op: an older policy's load counted as remote
            return op, caller
    return None, None


def site(frame):
    """`function (file)` of a call site: no line number, so that the table and the header move only
    when the code does."""
    if not frame:
        return "?"
    f, _line, fn = frame
    name = short_fn(fn)
    return f"{name} ({os.path.basename(f)})" if name else os.path.basename(f)


class Kernel:
    """The counts of one kernel entry: regions (op or a unit loop) -> counters, and problems."""

    def __init__(self, entry, plines, remote_ops):
        self.e = entry
        self.problems = []
        self.ev = [self.classify(i, plines, remote_ops) for i in entry.instrs]
        self.loops, self.back = ptx_flow.loops(entry)
        self.parent = {}  # work loop region -> the work loop around it (None: the op)
        self.region_of = self.regions()
        self.result = self.walk()

    @staticmethod
    def classify(ins, plines, remote_ops):
        op, caller = policy_op(ins, plines, remote_ops)
        if op in REMOTE_OPS and ins.opcode.startswith("ld"):
            return ("load", caller)
        if op in POLL_OPS and ins.opcode.startswith("ld") and any(f.endswith(WAIT_FILE) for f, _, _ in ins.chain):
            return ("poll", caller)
        if op in STORE_OPS and ins.opcode.startswith("st"):
            return ("store", caller)
        return None

    def loop_mark(self, loop):
        """The marker on the source line of the loop's back-edge branch (the innermost frame of the
        branch that ends a latch): the `for` line of a loop with a condition; for a `for (;;)`,
        the statement that ends each pass (bounded_wait's timeout test)."""
        e = self.e
        for u in sorted(loop.latches):
            ins = e.instrs[e.blocks[u][1]]
            if ins.chain:
                f, line, _ = ins.chain[0]
                m = marker(f, line)
                if m:
                    return m, f"{os.path.basename(f)}:{line}"
        return None, None

    def regions(self):
        """Block -> region: the innermost `per` loop around it, or 'op'; problems for unmarked loops."""
        e = self.e
        region_of = [("op", "", -1)] * len(e.blocks)
        for loop in sorted(self.loops, key=lambda lp: -len(lp.blocks)):  # outer first: inner overrides
            mark, where = self.loop_mark(loop)
            if mark is None:
                events = [self.ev[i] for k in loop.blocks for i in range(e.blocks[k][0], e.blocks[k][1] + 1)
                          if self.ev[i] and self.ev[i][0] in ("load", "poll")]
                if events:
                    latch = e.instrs[e.blocks[min(loop.latches)][1]].chain
                    fn = short_fn(latch[0][2]) if latch else ""
                    at = f"{os.path.basename(latch[0][0])}:{latch[0][1]}" + (f" ({fn})" if fn else "") if latch else "?"
                    self.problems.append(
                        f"a serialised loop at {at}: its body issues {sum(ev[0] == 'load' for ev in events)} remote "
                        f"load(s) and {sum(ev[0] == 'poll' for ev in events)} poll(s) per iteration and its trips "
                        "are not units of work; issue the loads of all iterations before using them (unrolled), "
                        "or mark a loop over units `round-trips: per <what>`")
                continue
            if mark.startswith("per "):
                parent = region_of[loop.header]  # outer loops came first
                self.parent[(mark, where, loop.header)] = parent if parent[0] != "op" else None
                for k in loop.blocks:
                    region_of[k] = (mark, where, loop.header)
        return region_of

    def walk(self):
        """{region: counters} along every path of the DAG the back edges leave (each loop body once)."""
        e = self.e
        order = ptx_flow.reverse_postorder(e)
        states = collections.defaultdict(dict)  # block -> {(pending, wave): counters}
        states[0][(frozenset(), False)] = {}
        final = {}
        for k in order:
            here = self.coalesce(states.pop(k, {}))
            if len(here) > STATE_CAP:
                pend = frozenset().union(*(p for p, _ in here))
                merged = {}
                for c in here.values():
                    merged = merge(merged, c)
                here = {(pend, False): merged}
                self.problems.append(f"note: more than {STATE_CAP} path states at block {k}: merged (counts may be high)")
            outs = [s for s in e.succ[k] if (k, s) not in self.back]
            for (pending, wave), counters in here.items():
                key, c = self.run_block(k, pending, wave, counters)
                if not outs:
                    final = merge(final, c)
                for s in outs:
                    prev = states[s].get(key)
                    states[s][key] = c if prev is None else merge(prev, c)
        return final

    @staticmethod
    def coalesce(here):
        """States with equal wait counts (and wave) as one: its loads in flight the union of theirs,
        its other counts the largest. A path then waits where any of them would, no more often
        than the worst of them (the union only moves a wait earlier), and the 2^8 subsets of loads
        behind 8 `if (p < world)` stay one state."""
        groups = {}
        for (pending, wave), c in here.items():
            sig = (wave, tuple(sorted((str(r), v.get("flag", 0), v.get("data", 0)) for r, v in c.items())))
            if sig in groups:
                pend, prev = groups[sig]
                groups[sig] = (pend | pending, merge(prev, c))
            else:
                groups[sig] = (pending, c)
        return {(pend, sig[0]): c for sig, (pend, c) in groups.items()}

    def run_block(self, k, pending, wave, counters):
        e = self.e
        region = self.region_of[k]
        pend = dict(pending)  # register -> the remote load's call site
        c = {r: dict(v) for r, v in counters.items()}
        mine = c.setdefault(region, {})
        for i in range(e.blocks[k][0], e.blocks[k][1] + 1):
            ins, ev = e.instrs[i], self.ev[i]
            used = [pend[r] for r in ins.srcs if r in pend]
            if used and ins.opcode.startswith("mov"):
                for d in ins.dests:
                    pend[d] = used[0]
                continue
            if used and (ev is None or ev[0] != "poll"):
                mine["data"] = mine.get("data", 0) + 1
                mine.setdefault("waits_for", set()).update(set(pend.values()))
                pend.clear()
            for d in ins.dests:
                pend.pop(d, None)
            if ev is None:
                continue
            kind, caller = ev
            if kind == "load":
                for d in ins.dests:
                    pend[d] = site(caller)
                mine["loads"] = mine.get("loads", 0) + 1
                mine["load_bytes"] = mine.get("load_bytes", 0) + width(ins.opcode)
                wave = False
            elif kind == "poll":
                if not wave:
                    mine["flag"] = mine.get("flag", 0) + 1
                    mine.setdefault("polls", set()).add(site(caller))
                wave = True
            else:
                mine["stores"] = mine.get("stores", 0) + 1
                mine["store_bytes"] = mine.get("store_bytes", 0) + width(ins.opcode)
                wave = False
        return (frozenset(pend.items()), wave), c


def merge(a, b):
    out = {r: dict(v) for r, v in a.items()}
    for r, v in b.items():
        mine = out.setdefault(r, {})
        for key, x in v.items():
            if isinstance(x, set):
                mine[key] = mine.get(key, set()) | x
            else:
                mine[key] = max(mine.get(key, 0), x)
    return out


COUNTS = ("flag", "data", "loads", "load_bytes", "stores", "store_bytes")


def summarise(kernel):
    """{'op': counters, 'loops': [{label, file, ordinal, instances, counters, waits_for, polls}]}:
    a work loop's instances (unrolled copies of one source loop) reported once, at their largest."""
    out = {"op": {c: 0 for c in COUNTS}, "loops": []}
    by_src = {}
    for (label, where, header), v in sorted(kernel.result.items(), key=lambda kv: str(kv[0])):
        counts = {c: v.get(c, 0) for c in COUNTS}
        if label == "op":
            out["op"] = counts
            out["op_waits_for"] = sorted(v.get("waits_for", set()) | v.get("polls", set()))
            continue
        parent = kernel.parent.get((label, where, header))
        row = by_src.setdefault((label, where), {"label": label, "where": where, "instances": 0,
                                                 "inside": parent[1] if parent else None,
                                                 **{c: 0 for c in COUNTS}, "waits_for": set(), "polls": set()})
        row["instances"] += 1
        for c in COUNTS:
            row[c] = max(row[c], counts[c])
        row["waits_for"] |= v.get("waits_for", set())
        row["polls"] |= v.get("polls", set())
    seen = collections.Counter()
    for (label, where), row in sorted(by_src.items(), key=lambda kv: (kv[0][1].split(":")[0], int(kv[0][1].split(":")[1]))):
        f = where.split(":")[0]
        seen[(label, f)] += 1
        row["key"] = f"{label.replace(' ', '-')}@{f}#{seen[(label, f)]}"
        row["waits_for"], row["polls"] = sorted(row["waits_for"]), sorted(row["polls"])
        out["loops"].append(row)
    keys = {row["where"]: row["key"] for row in out["loops"]}
    for row in out["loops"]:
        row["inside"] = keys.get(row["inside"])
    return out


def bound_problems(source, entry, s, where):
    b = round_trip_bounds.BOUNDS.get(source)
    if b is None:
        return [f"{where}: {entry}: no bound for kernel source {source} in scripts/round_trip_bounds.py"]
    out = []
    flag, data = b["op"]
    if s["op"]["flag"] > flag or s["op"]["data"] > data:
        out.append(f"{where}: {entry}: {s['op']['flag']} flag and {s['op']['data']} data wait(s) outside its work "
                   f"loops, bound {flag} and {data} ({b['why']})")
    for row in s["loops"]:
        most = b["per"].get(row["label"])
        waits = row["flag"] + row["data"]
        if most is None:
            out.append(f"{where}: {entry}: a work loop `{row['label']}` at {row['where']}, which its bound does not "
                       f"name (scripts/round_trip_bounds.py)")
        elif waits > most:
            out.append(f"{where}: {entry}: {waits} wait(s) {row['label']} at {row['where']} ({row['flag']} flag, "
                       f"{row['data']} data: {', '.join(row['polls'] + row['waits_for'])}), bound {most} "
                       f"({b['why']})")
    return out


def analyse(text, plines, remote_ops=()):
    """[(entry short name, summary, problems)] of every kernel entry of one PTX file."""
    out = []
    entries = ptx_flow.parse(text)
    ptx_memory_ops.cuda_objects.demangle(e.name for e in entries)
    for e in entries:
        k = Kernel(e, plines, set(remote_ops))
        out.append((ptx_memory_ops.short(e.name), summarise(k), k.problems))
    return out


def expectation_rows(results):
    rows = {}
    for source, where, kernels in results:
        for entry, s, _ in kernels:
            for c in ("flag", "data", "loads"):
                rows[(where, entry, "op", c)] = s["op"][c]
            for row in s["loops"]:
                for c in ("flag", "data", "loads", "instances"):
                    rows[(where, entry, row["key"], c)] = row[c]
    return rows


def write_expected(path, results):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# scripts/round_trips.py's expectation: source arch kernel-entry region count-kind count\n"
                "# (region: op, or a work loop as <marker>@<file>#<n-th such loop in that file>; generated by\n"
                "# `round_trips.py table --build-dir build/ci --write FILE`; do not edit)\n")
        for (where, entry, region, what), n in sorted(expectation_rows(results).items()):
            f.write(f"{where} {entry} {region} {what} {n}\n")


def expect_problems(results, expected):
    got = expectation_rows(results)
    wheres = {where for _, where, _ in results}
    out = []
    for key in sorted(set(got) | {k for k in expected if k[0] in wheres}):
        if expected.get(key) != got.get(key):
            where, entry, region, what = key
            out.append(f"{where}: {entry}: {region} {what} is {got.get(key, 'gone')}, expected "
                       f"{expected.get(key, 'none')} (scripts/round_trips.expected; regenerate with `table --write` "
                       "once the change is understood)")
    return out


BEGIN = "<!-- round-trips:begin (generated by scripts/round_trips.py; do not edit) -->"
END = "<!-- round-trips:end -->"


def loop_text(row, rows):
    waits = " + ".join(x for x in (f"{row['flag']} flag" if row["flag"] else "",
                                   f"{row['data']} data" if row["data"] else "") if x) or "0"
    copies = f" ×{row['instances']} copies" if row["instances"] > 1 else ""
    inside = next((r["label"] for r in rows if r["key"] == row["inside"]), None)
    of = f" of a {inside[4:]}" if inside else ""  # "per unit of a peer", "per step of a round"
    return f"{row['label']}{of} ({row['key'].split('@')[1].split('#')[0]}{copies}): {waits}"


def docs_rows(results):
    """Markdown rows, one per (kernel, arch, summary); dtypes with equal counts share a row."""
    groups = collections.OrderedDict()
    for source, where, kernels in sorted(results, key=lambda r: r[1]):
        arch = where.split()[1]
        for entry, s, _ in kernels:
            name, dtype = entry.split("<")[0], entry.split("<")[1].rstrip(">") if "<" in entry else "-"
            loops = tuple((loop_text(r, s["loops"]), r["loads"], r["load_bytes"], r["stores"], r["store_bytes"],
                           tuple(r["polls"] + r["waits_for"])) for r in s["loops"])
            key = (source, name, arch, s["op"]["flag"], s["op"]["data"], loops, tuple(s.get("op_waits_for", [])))
            groups.setdefault(key, []).append(dtype)
    lines = ["| kernel | dtypes | arch | flag waits per op | waits per iteration of each work loop | remote loads "
             "per iteration | policy stores per iteration | what the waits are for |",
             "|---|---|---|---:|---|---|---|---|"]
    for (source, name, arch, flag, data, loops, op_for), dtypes in groups.items():
        op = f"{flag}" + (f" (+{data} data)" if data else "")
        waits = "<br>".join(l[0] for l in loops) or "—"
        loads = "<br>".join(f"{l[1]} ({l[2]} B)" if l[1] else "0" for l in loops) or "—"
        stores = "<br>".join(f"{l[3]} ({l[4]} B)" if l[3] else "0" for l in loops) or "—"
        what = "; ".join(sorted(set(op_for) | {w for l in loops for w in l[5]})) or "—"
        lines.append(f"| `{name}` | {', '.join(dtypes)} | {arch} | {op} | {waits} | {loads} | {stores} | {what} |")
    lines += ["", "| variant (no kernel wait: its streams wait) | stream waits | per | what they wait for |",
              "|---|---:|---|---|"]
    for variant, w in round_trip_bounds.STREAM_WAITS.items():
        lines.append(f"| `{variant}` | {w['waits']} | {w['per']} | {w['why']} |")
    return "\n".join(lines) + "\n"


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def header_rows(results):
    """The table's kernel rows, one per kernel source and set of counts: {counts: [(dtype, sm)]}, the
    counts as (kernel, flag, data, loops), each loop's `inside` an index into the same kernel's loops."""
    rows = collections.OrderedDict()
    for source, where, ks in sorted(results, key=lambda r: r[1]):
        sm = int(where.split()[1][3:])
        for entry, s, _ in ks:
            dtype = entry.split("<")[1].rstrip(">") if "<" in entry else ""
            index = {row["key"]: k for k, row in enumerate(s["loops"])}
            loops = tuple((row["label"][4:], row["flag"], row["data"], row["loads"], row["load_bytes"],
                           row["instances"], index.get(row["inside"], -1)) for row in s["loops"])
            rows.setdefault((source, s["op"]["flag"], s["op"]["data"], loops), []).append((dtype, sm))
    return rows


def header_text(results):
    """round_trips_table.hpp: a row per kernel source and set of counts, for the dtypes and
    architectures that share them (a row per architecture where the dtypes that share differ)."""
    kernels = []
    for (source, flag, data, loops), at in header_rows(results).items():
        by_dtypes = collections.OrderedDict()  # the dtypes of each architecture -> the architectures
        for sm in dict.fromkeys(sm for _, sm in at):
            by_dtypes.setdefault(",".join(d for d, s in at if s == sm), []).append(sm)
        variants = ",".join(round_trip_bounds.BOUNDS.get(source, {}).get("variants", ()))
        loop_rows = ", ".join(f"{{{cstr(per)}, {', '.join(str(n) for n in counts)}}}" for per, *counts in loops)
        for dtypes, sms in by_dtypes.items():
            kernels.append(f"    {{{cstr(source)}, {cstr(variants)}, {cstr(dtypes)}, {{{', '.join(map(str, sms))}}}, "
                           f"{flag}, {data}, {len(loops)},\n     {{{loop_rows}}}}},")
    streams = [f"    {{{cstr(v)}, {cstr(w['per'])}, {w['waits']}}},"
               for v, w in round_trip_bounds.STREAM_WAITS.items()]
    return HEADER.replace("@KERNELS@", "\n".join(kernels)).replace("@STREAMS@", "\n".join(streams))


HEADER = """\
// The PCIe round trips of every protocol kernel, counted from the PTX the build compiled for each
// architecture by scripts/round_trips.py; the rows are in round_trip_entry.hpp, the lookups in
// round_trips.hpp (include that one). GENERATED by `scripts/round_trips.py table --build-dir
// build/ci --write-header include/arbench/core/round_trips_table.hpp`; do not edit: the ctest
// `round_trips` fails when it is stale.
#pragma once

#include "arbench/core/round_trip_entry.hpp"

namespace arbench {

inline constexpr KernelRoundTrips kKernelRoundTrips[] = {
@KERNELS@
};

inline constexpr StreamRoundTrips kStreamRoundTrips[] = {
@STREAMS@
};

}  // namespace arbench
"""


def ptx_of_build(build_dir, keep=None):
    """[(kernel source name, 'file sm_XX', PTX text)] of every protocol kernel of the build."""
    import tempfile
    # The probe kernels (ptx_memory_ops.PROBES) time links, not an all-reduce: no round-trip bound.
    jobs = [(e, a) for e in ptx_memory_ops.protocol_sources(build_dir)
            if os.path.splitext(os.path.basename(e["file"]))[0] not in ptx_memory_ops.PROBES
            for a in ptx_memory_ops.cuda_objects.archs(e["command"])]
    if not jobs:
        raise SystemExit(f"no protocol kernel in {build_dir}/compile_commands.json")
    with tempfile.TemporaryDirectory() as tmp:
        out = keep or tmp
        os.makedirs(out, exist_ok=True)
        texts = [ptx_memory_ops.built_ptx(e, a, out) or ptx_memory_ops.compile_ptx(e, a, out) for e, a in jobs]
    return [(os.path.splitext(os.path.basename(e["file"]))[0], f"{os.path.basename(e['file'])} sm_{a}", t)
            for (e, a), t in zip(jobs, texts)]


def docs_table(path):
    text = open(path, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: markers {BEGIN} / {END} not found")
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n", text


def main(argv):
    ap = ptx_memory_ops.argument_parser(__doc__, round_trip_bounds.BOUNDS)
    ap.add_argument("--remote-op", action="append", default=[],
                    help="count this DeviceMem member's loads as remote too (an older policy without load_peer)")
    ap.add_argument("--docs")
    ap.add_argument("--header")
    ap.add_argument("--write-docs")
    ap.add_argument("--write-header")
    ap.add_argument("--json", help="write every count as JSON to this file")
    a = ap.parse_args(argv)
    source_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if a.ptx:
        plines = ptx_memory_ops.policy_lines(a.policy or os.path.join(source_dir, "kernels", ptx_memory_ops.POLICY))
        sources = ptx_memory_ops.read_ptx_files(a.ptx, a.kernel, round_trip_bounds.BOUNDS, ap.error)
    elif a.build_dir:
        if not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")):
            print("no nvcc: skipped")
            return 77
        plines = ptx_memory_ops.policy_lines(os.path.join(source_dir, "kernels", ptx_memory_ops.POLICY))
        sources = ptx_of_build(os.path.abspath(a.build_dir), a.keep and os.path.abspath(a.keep))
    else:
        ap.error("give --build-dir or --ptx")
    # One PTX file a process (the analysis is pure Python: the cores, not the threads, share it out).
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, min(len(sources), os.cpu_count() or 1))) as pool:
        analysed = list(pool.map(analyse, [t for _, _, t in sources], [plines] * len(sources),
                                 [tuple(a.remote_op)] * len(sources)))
    results = [(kernel, where, r) for (kernel, where, _), r in zip(sources, analysed)]
    if a.json:
        import json
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump([{"kernel": k, "where": w, "entries": [{"entry": e, **s, "problems": p} for e, s, p in ks]}
                       for k, w, ks in results], f, indent=1)
    table = docs_rows(results)
    if a.mode == "table":
        if a.write:
            write_expected(a.write, results)
        if a.write_docs:
            _, page = docs_table(a.write_docs)
            head, rest = page.split(BEGIN, 1)
            with open(a.write_docs, "w", encoding="utf-8") as f:
                f.write(head + BEGIN + "\n" + table + END + rest.split(END, 1)[1])
        if a.write_header:
            with open(a.write_header, "w", encoding="utf-8") as f:
                f.write(header_text(results))
        if not (a.write or a.write_docs or a.write_header):
            sys.stdout.write(table)
        return 0
    bad = []
    for kernel, where, ks in results:
        for entry, s, problems in ks:
            bad += [f"{where}: {entry}: {p}" for p in problems if not p.startswith("note:")]
            bad += bound_problems(kernel, entry, s, where)
    whole = True  # the build made every PTX file the checked-in expectation has
    if a.expect:
        expected = ptx_memory_ops.read_expected(a.expect)  # the same six columns
        bad += expect_problems(results, expected)
        missing = sorted({k[0] for k in expected} - {where for _, where, _ in results})
        if missing:
            whole = False
            print(f"note: the build has no {', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''} "
                  "(other CUDA architectures): the docs table and the header, generated from every one, "
                  "are not compared")
    if whole and a.docs and docs_table(a.docs)[0] != table:
        bad.append(f"{a.docs}: the round-trip table is stale; regenerate it with scripts/round_trips.py table "
                   f"--build-dir <build> --write-docs {a.docs}")
    if whole and a.header and (not os.path.exists(a.header) or
                               open(a.header, encoding="utf-8").read() != header_text(results)):
        bad.append(f"{a.header}: stale; regenerate it with scripts/round_trips.py table --build-dir <build> "
                   f"--write-header {a.header}")
    for v in bad:
        print(v)
    print(f"round-trips: {len(results)} PTX files, {sum(len(ks) for _, _, ks in results)} kernel entries, "
          f"{len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
