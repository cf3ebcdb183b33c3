#!/usr/bin/env python3
"""Resource usage of every CUDA kernel, read from the objects the build made, without a GPU.

Reads, for each CUDA source of the build that defines kernels (compile_commands.json), the cubins
nvcc embedded in its object for every architecture the build targets (scripts/cuda_objects.py):
registers, shared memory, stack frame and barriers per kernel and architecture, what ptxas's
`--resource-usage` report says. A cubin does not record spill bytes, but a spill lives in the
function's stack frame: a frame of 0 B means no spill, and a source whose functions have a frame
is compiled again with `--resource-usage` for ptxas's spill figures. (The build already ran
ptxas; compiling every kernel again for two architectures took minutes.)

  kernel_resources.py check --build-dir build/ci [--docs docs/variants.md]
      fails (exit 1) when any kernel has a stack frame or spills, when a kernel falls below its
      expected register floor or barrier count (the sign of a kernel whose body compiled away),
      when a kernel has no expectation below, or when the table in --docs is stale
  kernel_resources.py table --build-dir build/ci [--write-docs docs/variants.md]
      prints the Markdown table (or rewrites it between the markers in the docs page)
  kernel_resources.py check --report FILE --source NAME.cu    the same checks on a saved ptxas report
      of one source file (tests)
  kernel_resources.py check --object FILE.o --source NAME.cu  the same checks on one object nvcc
      made (tests; spill bytes of a function with a stack frame show as ?)
  ... --report FILE --source NAME.cu --peer     the report of a peer adapter (the peers' rules)

Peers (kernels/peers/*.cu: other projects' kernels built from the user's copy, docs/variants.md
"Peers") are checked for what arbench asks of any kernel it runs, no spill, and their expectations
(PEER_EXPECT); a stack frame their code keeps (a local array indexed at run time) is reported in
their own table, printed after the check, never a failure, and they are left out of the docs page's
table (a build without the peers, as CI's, has none).

Expectations: EXPECT maps a kernel's name to (barriers, register floor). The barrier count is
exact: every kernel that syncs its block has one named barrier (bar.sync 0), the others none. The
register floor is about half of what the kernel used when the table was made: compiler versions
move register counts a little, a kernel whose protocol body is gone drops to a handful.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_objects  # noqa: E402  (scripts/cuda_objects.py: the device code in nvcc's objects)

# kernel name (demangled, without namespace and template arguments), or "source.cu:name" when two
# sources define kernels of one name -> (barriers, min registers)
EXPECT = {
    "start_gate.cu:gate_kernel": (0, 10),
    "probe_kernels.cu:gate_kernel": (0, 5),
    "fanout_copy_kernel": (1, 16),
    "clock_pingpong_kernel": (0, 8),
    "resolve_peer_pointers": (0, 6),
    "peer_probe_kernel": (0, 7),
    "peer_flag_kernel": (0, 14),
    "peer_bulk_fill_kernel": (0, 8),
    "peer_bulk_store_kernel": (0, 11),
    "copy_kernel": (0, 16),
    "pingpong_kernel": (0, 6),
    "oneshot_pull_kernel": (1, 28),
    "oneshot_push_kernel": (1, 56),
    "twoshot_kernel": (1, 32),
    "oneshot_fp8_kernel": (1, 32),
    "twoshot_fp8_kernel": (1, 32),
    "ring_kernel": (1, 30),
    "add_rmsnorm_kernel": (1, 18),
    "fused_oneshot_kernel": (1, 32),
    "fused_twoshot_kernel": (1, 45),
    "island_oneshot_kernel": (1, 30),
    "island_twoshot_kernel": (1, 30),
    "fused_island_kernel": (1, 45),
    "fused_island_twoshot_kernel": (1, 40),
    "hold_kernel": (0, 2),
    "phase_marker_kernel": (0, 5),
    "timer_resolution_kernel": (0, 6),
    # run --beside's background load (bench/measure/gpu/beside_kernels.cu): a floor well above the
    # 4 registers of a memory kernel whose loads the compiler dropped (an unreachable store).
    "fma_kernel": (0, 10),
    "memory_kernel": (0, 11),
    "ce_reduce": (0, 11),
}

# The peers' kernels (kernels/peers/), by the same rule: the barrier count exact, the register floor
# about half of what the kernel used at the smallest instantiation (FlashInfer at fb28d7242b35, nvcc 13.0).
PEER_EXPECT = {
    "ipc_tp2_remote_push_kernel": (1, 12),
    "ipc_rsag_push_param_kernel": (1, 20),
    "ipc_rsag_ring_push_param_kernel": (1, 24),
    "ipc_topo_rsag8_push_param_kernel": (1, 20),
    "ipc_topo_rsag8_block_param_kernel": (1, 28),
    "ipc_topo_rsag8_ring_push_param_kernel": (1, 16),
    "push_oneshot_param_kernel": (1, 20),
    "allreduce_fusion_kernel_oneshot_lamport": (1, 24),
    "allreduce_fusion_kernel_twoshot_sync": (1, 28),
    "cross_device_reduce_1stage": (1, 15),
    "cross_device_reduce_2stage": (1, 21),
}
PEER_DIR = "/kernels/peers/"

BEGIN = "<!-- kernel-resources:begin (generated by scripts/kernel_resources.py; do not edit) -->"
END = "<!-- kernel-resources:end -->"

DTYPES = {"0": "bf16", "1": "fp16", "2": "fp32"}


def short_name(mangled):
    """fused_twoshot_kernel<fp16> from the mangled name (c++filt when present)."""
    text = cuda_objects.demangle([mangled])[mangled].strip()
    m = re.search(r"(\w+)(?:<([^>]*)>)?\(", text)
    if not m:
        return text, ""
    name, targs = m.group(1), m.group(2) or ""
    targs = re.sub(r"\(arbench::DType\)(\d)", lambda d: DTYPES.get(d.group(1), d.group(1)), targs)
    targs = targs.replace("arbench::DType::", "")
    return name, targs


def parse_report(text, source=""):
    """Records {function, name, targs, arch, registers, barriers, smem, stack, spill_stores,
    spill_loads, entry, source} from ptxas --resource-usage output (several architectures may mix)."""
    cuda_objects.demangle(re.findall(r"Function properties for (\S+)", text))
    records = []
    arch = None
    entry = None
    current = None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)' for '(sm_\d+a?)'", line)
        if m:
            entry, arch = m.group(1), m.group(2)
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            fn = m.group(1)
            name, targs = short_name(fn)
            current = {"function": fn, "name": name, "targs": targs, "arch": arch, "entry": fn == entry, "source": source,
                       "registers": None, "barriers": 0, "smem": 0, "stack": 0, "spill_stores": 0,
                       "spill_loads": 0}
            records.append(current)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current is not None:
            current["stack"], current["spill_stores"], current["spill_loads"] = map(int, m.groups())
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current is not None:
            current["registers"] = int(m.group(1))
            b = re.search(r"used (\d+) barriers", line)
            current["barriers"] = int(b.group(1)) if b else 0
            s = re.search(r"(\d+) bytes smem", line)
            current["smem"] = int(s.group(1)) if s else 0
            continue
    return records


def spill(n):
    return "?" if n is None else n  # read from an object: a cubin does not record spill bytes


def problems(records):
    out = []
    kernels = [r for r in records if r["entry"]]
    if not kernels:
        out.append("no kernel found in the ptxas report (did the compile fail?)")
    for r in records:
        what = f"{r['name']}<{r['targs']}> ({r['arch']})" if r["targs"] else f"{r['name']} ({r['arch']})"
        if r.get("peer"):
            out += peer_problems(r, what)
            continue
        if r["stack"] or r["spill_stores"] or r["spill_loads"]:
            out.append(f"{what}: {r['stack']} B stack frame, {spill(r['spill_stores'])} B spill stores, "
                       f"{spill(r['spill_loads'])} B spill loads; a latency-bound kernel must keep everything "
                       "in registers (narrow the live ranges, or give it more registers per thread)")
        if not r["entry"]:
            continue
        key = f"{r['source']}:{r['name']}" if f"{r['source']}:{r['name']}" in EXPECT else r["name"]
        if key not in EXPECT:
            out.append(f"{what}: no expectation in scripts/kernel_resources.py EXPECT; add "
                       f"({r['barriers']}, ~half of {r['registers']}) for it")
            continue
        barriers, floor = EXPECT[key]
        if r["barriers"] != barriers:
            out.append(f"{what}: {r['barriers']} barriers, expected {barriers}; the block-wide syncs of its "
                       "protocol are gone or new (was it compiled without its protocol body?)")
        if r["registers"] is None or r["registers"] < floor:
            out.append(f"{what}: {r['registers']} registers, below the floor of {floor}; the kernel "
                       "compiled to almost nothing (check the compile flags and nvcc's warnings)")
    return out


def peer_problems(r, what):
    """A peer's kernel: no spill (known: a function with a stack frame is compiled again for ptxas's
    figures), its barriers and register floor; its stack frame is its code's, reported, not a fault."""
    out = []
    if r["spill_stores"] is None or r["spill_loads"] is None:
        out.append(f"{what}: spill bytes unknown (a peer's function with a stack frame is read from ptxas's report; "
                   "check it with --build-dir)")
    elif r["spill_stores"] or r["spill_loads"]:
        out.append(f"{what}: {r['spill_stores']} B spill stores, {r['spill_loads']} B spill loads in a peer's kernel "
                   "(built from the user's copy: a change of its code or of nvcc; report it with the copy's version)")
    if not r["entry"]:
        return out
    if r["name"] not in PEER_EXPECT:
        out.append(f"{what}: a peer's kernel with no expectation in scripts/kernel_resources.py PEER_EXPECT; add "
                   f"({r['barriers']}, ~half of {r['registers']}) for it")
        return out
    barriers, floor = PEER_EXPECT[r["name"]]
    if r["barriers"] != barriers:
        out.append(f"{what}: {r['barriers']} barriers, expected {barriers} (a peer's kernel compiled differently)")
    if r["registers"] is None or r["registers"] < floor:
        out.append(f"{what}: {r['registers']} registers, below the floor of {floor}; the peer's kernel compiled to "
                   "almost nothing (check the adapter's flags)")
    return out


def kernel_sources(build_dir):
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    chosen = []
    for e in entries:
        src = e["file"]
        if not src.endswith(".cu"):
            continue
        text = open(src).read()
        roots = [os.path.dirname(src)] + [a[2:] for a in shlex.split(e["command"]) if a.startswith("-I")]
        local = [os.path.join(r, inc) for inc in re.findall(r'#include "([^"]+\.cuh)"', text) for r in roots]
        if "__global__" in text or any(os.path.exists(p) and "__global__" in open(p).read() for p in local):
            chosen.append(e)
    return chosen


def compile_one(entry, tmp):
    args = shlex.split(entry["command"])
    if os.path.basename(args[0]) in ("ccache", "sccache"):
        args = args[1:]
    if shutil.which("ccache"):  # ccache keeps ptxas's report: a rerun of unchanged sources is instant
        args = ["ccache"] + args
    if "-o" in args:
        i = args.index("-o")
        args[i + 1] = os.path.join(tmp, os.path.basename(entry["file"]) + ".o")
    args.append("--resource-usage")
    p = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"compiling {entry['file']} failed:\n{p.stderr}")
    return p.stdout + p.stderr


def from_object(obj, arch_numbers, source):
    """Records of the kernels in one object nvcc made, for the given architectures (numbers); spill
    bytes 0 for a function without a stack frame (a spill needs one), else None (not recorded)."""
    cubins = cuda_objects.fatbin_entries(obj, cuda_objects.KIND_CUBIN)
    missing = [f"sm_{a}" for a in arch_numbers if int(a) not in cubins]
    if missing:
        raise cuda_objects.Unreadable(f"{obj} has no cubin for {', '.join(missing)} (rebuild it)")
    functions = {a: cuda_objects.cubin_functions(cubins[int(a)], int(a)) for a in arch_numbers}
    cuda_objects.demangle(f["function"] for fs in functions.values() for f in fs)
    records = []
    for a in arch_numbers:
        for f in functions[a]:
            name, targs = short_name(f["function"])
            unknown = None if f["stack"] else 0
            records.append(dict(f, name=name, targs=targs, arch=f"sm_{a}", source=source,
                                spill_stores=unknown, spill_loads=unknown))
    return records


def read_built(entry, tmp):
    """Records of one source's kernels from the object the build made; a source with a stack frame
    somewhere is compiled again for ptxas's spill bytes (it fails the check either way)."""
    obj, source = cuda_objects.object_path(entry), os.path.basename(entry["file"])
    records = from_object(obj, cuda_objects.archs(entry["command"]), source)
    if any(r["stack"] for r in records):
        records = parse_report(compile_one(entry, tmp), source)
    for r in records:
        r["peer"] = PEER_DIR in entry["file"]
    return records


def collect(build_dir):
    """Records of every kernel of the build, each tagged with its source file's name."""
    entries = kernel_sources(build_dir)
    with tempfile.TemporaryDirectory() as tmp:
        return [r for e in entries for r in read_built(e, tmp)]


def table(records, peers=False):
    """The Markdown table of arbench's kernels (peers=True: of the peers' kernels)."""
    rows = sorted((r for r in records if r["entry"] and bool(r.get("peer")) == peers),
                  key=lambda r: (r["source"], r["name"], r["targs"], r["arch"]))
    lines = ["| source | kernel | arch | registers | shared memory (B) | stack (B) | spill stores / loads (B) | barriers |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        name = f"`{r['name']}<{r['targs']}>`" if r["targs"] else f"`{r['name']}`"
        lines.append(f"| {r['source']} | {name} | {r['arch']} | {r['registers']} | {r['smem']} | {r['stack']} | "
                     f"{spill(r['spill_stores'])} / {spill(r['spill_loads'])} | {r['barriers']} |")
    return "\n".join(lines) + "\n"


def docs_table(path):
    text = open(path).read()
    if BEGIN not in text or END not in text:
        return None, text
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n", text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["check", "table"])
    ap.add_argument("--build-dir", help="a configured build folder (its compile_commands.json)")
    ap.add_argument("--report", help="a saved ptxas --resource-usage report instead of compiling")
    ap.add_argument("--object", help="an object nvcc made (all the architectures it holds) instead of the build's")
    ap.add_argument("--source", default="report", help="with --report or --object: the source file it came from")
    ap.add_argument("--peer", action="store_true",
                    help="with --report or --object: that source is a peer adapter (kernels/peers/; tests)")
    ap.add_argument("--docs", help="check mode: fail when the table in this page is stale")
    ap.add_argument("--write-docs", help="table mode: rewrite the table between the markers in this page")
    a = ap.parse_args()
    if sum(map(bool, (a.build_dir, a.report, a.object))) != 1:
        ap.error("give exactly one of --build-dir, --report and --object")
    try:
        if a.report:
            records = parse_report(open(a.report).read(), a.source)
        elif a.object:
            built = sorted(cuda_objects.fatbin_entries(a.object, cuda_objects.KIND_CUBIN))
            records = from_object(a.object, [str(arch) for arch in built], a.source)
        else:
            records = collect(a.build_dir)
        if a.peer:
            for r in records:
                r["peer"] = True
    except cuda_objects.Unreadable as e:
        raise SystemExit(f"kernel-resources: {e}")
    t = table(records)
    if a.mode == "table":
        if a.write_docs:
            old, page = docs_table(a.write_docs)
            if old is None:
                raise SystemExit(f"{a.write_docs}: markers {BEGIN} / {END} not found")
            head, rest = page.split(BEGIN, 1)
            open(a.write_docs, "w").write(head + BEGIN + "\n" + t + END + rest.split(END, 1)[1])
            print(f"wrote the table of {sum(r['entry'] for r in records)} kernels into {a.write_docs}")
        else:
            sys.stdout.write(t)
        return 0
    found = problems(records)
    if a.docs:
        old, _ = docs_table(a.docs)
        if old != t:
            found.append(f"{a.docs}: the kernel resource table is stale; regenerate it with "
                         f"scripts/kernel_resources.py table --build-dir <build> --write-docs {a.docs}")
    sys.stdout.write(t)
    if any(r.get("peer") for r in records):
        sys.stdout.write("\npeers (kernels/peers/: their code, built from the user's copy; a stack frame is theirs, "
                         "a spill would fail):\n" + table(records, peers=True))
    for p in found:
        print("kernel-resources: " + p, file=sys.stderr)
    print(f"kernel-resources: {sum(r['entry'] for r in records)} kernels, {len(found)} problem(s)",
          file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
