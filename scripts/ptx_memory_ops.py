#!/usr/bin/env python3
"""The PTX the device memory policy emits, checked without a GPU (issue 29, docs/verification.md).

The model checker (tests/model/) proves the protocols under the C++ memory model; that carries
over to the GPU only if every policy operation compiles to the PTX operation the mapping assumes.
This script reads the PTX of every custom protocol kernel (kernels/{symm,ring,fused,island,fp8,ce}/*.cu)
and of the probe kernels (bench/topo/gpu/probe_kernels.cu)
for every architecture the build targets from the object the build made (nvcc embeds the
compute_XX PTX it gave ptxas; scripts/cuda_objects.py reads it; -lineinfo is in the build's flags),
or, where that PTX cannot be unpacked here (zstd-compressed, and no libzstd nor zstd command),
compiles it again with the build's own command (compile_commands.json); it attributes each
memory instruction to the DeviceMem member
(kernels/mem_device.cuh) whose line emitted it (nvcc's `.loc`, following `inlined_at` out of an
intrinsic's header), and checks:

  1. every instruction of a policy operation is one that operation may emit (RULES: flags
     st.release.sys / ld.acquire.sys, LL lines volatile v2.u64, data one 16-byte v4 access,
     ring slots ld.global.cg.v4, counters plain u32);
  2. no ld.global.nc anywhere (a non-coherent load may serve peer-written memory from a stale
     cache), no .release/.acquire below .sys scope, and no .release/.acquire/.volatile outside a
     policy operation (a protocol that bypassed the policy);
  3. each kernel has its protocol's operations (REQUIRED), so a dropped flag or a data path that
     no longer goes through the policy fails;
  4. the probe kernels (bench/topo/gpu/probe_kernels.cu: the link and pattern probes that time
     pulls) load only what L1 cannot serve: ld.global.cg, .cv, .volatile or ld.acquire/relaxed.sys.
     A plain ld.global or ld.global.nc there may be answered by the SM's own L1 when a probe reads
     the same peer addresses again (kernels/mem_device.cuh: L1 may hold peer lines), and the
     probe would time its cache, not the link; their instructions count as policy op "probe";
  5. with --expect: per (source, arch, kernel entry, policy op, opcode) the instruction count
     equals the checked-in expectation (scripts/ptx_memory_ops.expected), so one dropped fence or
     flag among several fails too. Counts differ between architectures (sm_120 unrolls some
     loops) and may move with the nvcc version: after checking the change, regenerate the file
     with `table --build-dir build/ci --write scripts/ptx_memory_ops.expected`.

  ptx_memory_ops.py check --build-dir build/ci [--expect FILE] [--keep DIR]
                                                   check the PTX of every protocol kernel
                                                   (--keep: leave the PTX files in DIR)
  ptx_memory_ops.py check --ptx FILE.ptx... --policy kernels/mem_device.cuh [--kernel NAME] [--expect FILE]
                                                   the same rules on saved PTX files (tests); a file
                                                   named NAME.cu.sm_XX.ptx (as --keep writes them)
                                                   names its kernel and architecture
  ptx_memory_ops.py table --build-dir build/ci [--write FILE]
                                                   per source, arch, kernel entry: policy op, opcode,
                                                   count (--write: as the expectation file)

Exit 0: clean; 1: violations (one line each); 2: bad usage; 77: no nvcc (skipped).
"""
import argparse
import collections
import concurrent.futures
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

# The protocol kernels and the policy operations each must contain (at least one instruction).
REQUIRED = {
    "oneshot_pull": ("store_release", "load_acquire", "load_peer", "store_data", "counter_load", "counter_store"),
    "oneshot_push": ("ll_store", "ll_load", "counter_load", "counter_store"),
    "twoshot": ("store_release", "load_acquire", "load_peer", "store_data", "counter_load", "counter_store"),
    # kernels/fp8: the oneshot-pull and twoshot protocols with the FP8 payload: the same operations,
    # and the units' scale bytes (store_byte, load_peer_byte)
    "oneshot_fp8": ("store_release", "load_acquire", "load_peer", "load_peer_byte", "store_data", "store_byte",
                    "counter_load", "counter_store"),
    "twoshot_fp8": ("store_release", "load_acquire", "load_peer", "load_peer_byte", "store_data", "store_byte",
                    "counter_load", "counter_store"),
    "ring": ("store_release", "load_acquire", "load_data_cg", "store_data", "counter_load", "counter_store"),
    "fused_oneshot": ("store_release", "load_acquire", "load_peer", "store_data", "counter_load", "counter_store"),
    "fused_twoshot": ("store_release", "load_acquire", "load_peer", "store_data", "counter_load", "counter_store"),
    "add_rmsnorm": (),  # the norm kernel alone: no peer memory (its all-reduce is oneshot_pull's)
    "ce_reduce": (),  # the copy-engine variants' reduce: own memory only, no policy operation
    # kernels/island: LL within the island and across (oneshot), or staging, release flags and
    # 1/k partials (twoshot); the fused forms also stage rows for the norm.
    "island_oneshot": ("ll_store", "ll_load", "counter_load", "counter_store"),
    "island_twoshot": ("store_release", "load_acquire", "load_data", "load_peer", "store_data", "counter_load",
                       "counter_store"),
    "fused_island": ("ll_store", "ll_load", "counter_load", "counter_store"),
    "fused_island_twoshot": ("store_release", "load_acquire", "load_data", "load_peer", "store_data", "counter_load",
                             "counter_store"),
}
# The probe kernels (bench/topo/gpu): no memory policy, but every load must bypass L1 (rule 4).
PROBES = ("probe_kernels",)
UNCACHED_LOAD = re.compile(r"^ld\.(?:global\.(?:cg|cv)\.|volatile\.|(?:acquire|relaxed)\.sys\.)")
# Kernels whose results must match their host twins bit for bit through fp32 subnormals: no
# flush-to-zero anywhere (CMakeLists.txt compiles them with -ftz=false; algo/fp8/e4m3.hpp says why).
NO_FTZ = ("oneshot_fp8", "twoshot_fp8")
V4 = ("u32", "b32", "f32")  # nvcc types a 16-byte vector by its use
RULES = {
    "store_release": {"st.release.sys.global.u32"},
    "load_acquire": {"ld.acquire.sys.global.u32"},
    "ll_store": {"st.volatile.global.v2.u64"},
    "ll_load": {"ld.volatile.global.v2.u64"},
    "load_data": {f"ld.global.v4.{t}" for t in V4},
    "load_peer": {f"ld.global.v4.{t}" for t in V4},
    "load_peer_byte": {"ld.global.u8"},
    "store_byte": {"st.global.u8"},
    "load_data_cg": {f"ld.global.cg.v4.{t}" for t in V4},
    "store_data": {f"st.global.v4.{t}" for t in V4},
    "counter_load": {"ld.global.u32"},
    "counter_store": {"st.global.u32"},
    "claim": {"atom.global.cas.b32", "atom.relaxed.global.cas.b32"},  # own memory; sm_90 / sm_120 spelling
}
MEM = re.compile(r"^\s*(?:@!?%p\d+\s+)?((?:ld|st|atom|red)\.[a-z0-9_.]*)\s")
FTZ = re.compile(r"^\s*(?:@!?%p\d+\s+)?[a-z0-9_]+(?:\.[a-z0-9_]+)*\.ftz[.\s]")
ENTRY = re.compile(r"^(?:\.visible\s+)?\.entry\s+([^\s(]+)\(")
LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:.*inlined_at\s+(\d+)\s+(\d+))?")
FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
POLICY = "mem_device.cuh"


def policy_lines(cuh):
    """{line number: DeviceMem member} for every line inside a member's body."""
    out, cur, depth = {}, None, 0
    with open(cuh, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"ARB_HD static [\w:<>]+\s*\*?\s*(\w+)\(", line)
            if m and cur is None:
                cur, depth = m.group(1), 0
            if cur:
                out[n] = cur
                depth += line.count("{") - line.count("}")
                if depth <= 0 and "}" in line:
                    cur = None
    return out


def short(mangled):
    text = cuda_objects.demangle([mangled])[mangled].strip()
    m = re.search(r"(\w+)<([^>]*)>\(", text)
    if not m:  # a plain function: its name, no namespace nor parameters (one word, as the expectation needs)
        plain = re.search(r"(\w+)\(", text)
        return plain.group(1) if plain else text
    targs = m.group(2).replace("(arbench::DType)0", "bf16").replace("(arbench::DType)1", "fp16")
    return f"{m.group(1)}<{targs.replace('(arbench::DType)2', 'fp32')}>"


def scan(ptx_text, plines):
    """Counter{(entry, policy op or '-', opcode): n}; the PTX's .file table is at its end."""
    lines = ptx_text.splitlines()
    files = {m.group(1): m.group(2) for m in map(FILE.match, lines) if m}
    cuda_objects.demangle(m.group(1) for m in map(ENTRY.match, lines) if m)  # one c++filt for all
    table = collections.Counter()
    entry, loc = None, None
    for line in lines:
        m = ENTRY.match(line)
        if m:
            entry, loc = short(m.group(1)), None
            continue
        m = LOC.match(line)
        if m:
            loc = (files.get(m.group(1), "?"), int(m.group(2)))
            if not loc[0].endswith(POLICY) and m.group(3) and files.get(m.group(3), "").endswith(POLICY):
                loc = (files[m.group(3)], int(m.group(4)))  # an intrinsic inlined into a member (__ldcg)
            continue
        if entry is not None and FTZ.match(line):
            table[(entry, "-", "ftz")] += 1
        m = MEM.match(line)
        if not m or entry is None:
            continue
        opcode = m.group(1)
        if opcode.startswith("ld.param") or ".shared" in opcode or ".local" in opcode:
            continue
        op = plines.get(loc[1], "-") if loc and loc[0].endswith(POLICY) else "-"
        table[(entry, op, opcode)] += 1
    return table


def violations(table, kernel, where):
    out = []
    seen = collections.defaultdict(set)
    for (entry, op, opcode), n in sorted(table.items()):
        seen[entry].add(op)
        what = f"{where}: {entry}: {n}x {opcode}"
        if ".nc" in opcode:
            out.append(f"{what}: a non-coherent load (may return a stale peer write); use a plain or .cg load")
        if (".release" in opcode or ".acquire" in opcode) and ".sys" not in opcode:
            out.append(f"{what}: below system scope (a peer GPU over PCIe needs .sys)")
        if op in RULES and opcode not in RULES[op]:
            out.append(f"{what} emitted by DeviceMem::{op}, which may emit only {', '.join(sorted(RULES[op]))}")
        if opcode == "ftz":
            if kernel in NO_FTZ:
                out.append(f"{where}: {entry}: {n} flush-to-zero instruction(s) (.ftz): this kernel must keep fp32 "
                           "subnormals to match its host twin bit for bit; compile it with -ftz=false (CMakeLists.txt)")
            continue
        if kernel in PROBES and opcode.startswith("ld.") and not UNCACHED_LOAD.match(opcode):
            out.append(f"{what}: a load L1 may cache in a probe kernel (a repeated peer read would time the SM's own "
                       "L1, not the link); load with __ldcg (ld.global.cg), .volatile or ld.acquire.sys")
        if op == "-" and any(s in opcode for s in (".release", ".acquire", ".volatile")):
            out.append(f"{what} outside the memory policy (kernels/{POLICY}): a protocol bypassed it")
    if not seen:
        out.append(f"{where}: no kernel entry with memory instructions (did the compile fail?)")
    for entry, ops in sorted(seen.items()):
        missing = [op for op in REQUIRED.get(kernel, ()) if op not in ops]
        if missing:
            out.append(f"{where}: {entry}: no instruction of DeviceMem::{', ::'.join(missing)}; the protocol "
                       "dropped them or moves that memory behind the policy's back")
    return out


def count_rows(results):
    """{(where, entry, op, opcode): n} of the policy operations; where = 'file sm_XX'."""
    return {(where, entry, op, opcode): n for _, where, table in results
            for (entry, op, opcode), n in table.items() if op != "-"}


def read_expected(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                file, arch, entry, op, opcode, n = line.split()
                rows[(f"{file} {arch}", entry, op, opcode)] = int(n)
    return rows


def count_violations(results, expected):
    got = count_rows(results)
    wheres = {where for _, where, _ in results}
    out = []
    for key in sorted(set(got) | {k for k in expected if k[0] in wheres}):
        want, have = expected.get(key), got.get(key, 0)
        if want != have:
            where, entry, op, opcode = key
            who = "the probe" if op == "probe" else f"DeviceMem::{op}"
            out.append(f"{where}: {entry}: {who} emitted {have}x {opcode}, expected {want or 0}x "
                       "(scripts/ptx_memory_ops.expected; regenerate with `table --write` once the change is "
                       "understood)")
    return out


def compile_commands(build_dir):
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        return json.load(f)


def protocol_sources(build_dir):
    entries = compile_commands(build_dir)
    return [e for e in entries if e["file"].endswith(".cu") and
            os.path.splitext(os.path.basename(e["file"]))[0] in (*REQUIRED, *PROBES)]


def as_probe(kernel, table):
    """A probe kernel's memory instructions, which no policy emits, counted as op 'probe'."""
    if kernel not in PROBES:
        return table
    return collections.Counter({(entry, "probe" if op == "-" else op, opcode): n
                                for (entry, op, opcode), n in table.items()})


def compile_ptx(entry, arch, tmp):
    args = [a for a in shlex.split(entry["command"]) if not a.startswith("--generate-code") and a != "-c"]
    if os.path.basename(args[0]) in ("ccache", "sccache"):
        args = args[1:]
    out = os.path.join(tmp, f"{os.path.basename(entry['file'])}.sm_{arch}.ptx")
    i = args.index("-o")
    args[i + 1] = out
    args += [f"-arch=sm_{arch}", "-ptx"]
    p = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"compiling {entry['file']} for sm_{arch} failed:\n{p.stderr}")
    with open(out, encoding="utf-8") as f:
        return f.read()


def built_ptx(entry, arch, out):
    """The compute_<arch> PTX nvcc embedded in the entry's object (written to out as compile_ptx
    names it), or None when it cannot be unpacked here; a missing or stale object fails."""
    try:
        obj = cuda_objects.object_path(entry)
        found = cuda_objects.fatbin_entries(obj, cuda_objects.KIND_PTX)
    except cuda_objects.NoZstd:
        return None
    except cuda_objects.Unreadable as e:
        raise SystemExit(f"ptx-memory-ops: {e}")
    if int(arch) not in found:
        raise SystemExit(f"ptx-memory-ops: {obj} has no compute_{arch} PTX (rebuild it)")
    text = found[int(arch)].decode()
    with open(os.path.join(out, f"{os.path.basename(entry['file'])}.sm_{arch}.ptx"), "w", encoding="utf-8") as f:
        f.write(text)
    return text


def from_build(build_dir, source_dir, keep=None):
    """[(kernel, 'file sm_XX', table)] for every protocol kernel and architecture of the build."""
    plines = policy_lines(os.path.join(source_dir, "kernels", POLICY))
    jobs = [(e, a) for e in protocol_sources(build_dir) for a in cuda_objects.archs(e["command"])]
    if not jobs:
        raise SystemExit(f"no protocol kernel in {build_dir}/compile_commands.json")
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, os.cpu_count() or 1)) as pool:
        out = keep or tmp
        os.makedirs(out, exist_ok=True)
        texts = [built_ptx(e, a, out) for e, a in jobs]
        again = [j for j, t in zip(jobs, texts) if t is None]  # compile again only what could not be read
        redone = iter(pool.map(lambda j: compile_ptx(j[0], j[1], out), again))
        texts = [next(redone) if t is None else t for t in texts]
    kernels = [os.path.splitext(os.path.basename(e["file"]))[0] for e, _ in jobs]
    return [(k, f"{os.path.basename(e['file'])} sm_{a}", as_probe(k, scan(t, plines)))
            for k, (e, a), t in zip(kernels, jobs, texts)]


def read_ptx_files(paths, kernel, known, error):
    """[(kernel source name, 'file sm_XX', PTX text)] of PTX files given on the command line (this
    script's and round_trips.py's --ptx): NAME.cu.sm_XX.ptx (what --keep writes) names its source
    and arch; another name needs `kernel` (--kernel), one of `known`, else error(message) (exit 2)."""
    out = []
    for path in paths:
        m = re.match(r"((\w+)\.cu)\.(sm_\d+)\.ptx$", os.path.basename(path))
        name = kernel or (m.group(2) if m else None)
        if name not in known:
            error(f"{path}: name the kernel with --kernel (one of {', '.join(sorted(known))})")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        target = re.search(r"^\.target\s+(sm_\d+)", text, re.M)
        where = f"{m.group(1)} {m.group(3)}" if m else f"{os.path.basename(path)} {target.group(1) if target else 'sm_?'}"
        out.append((name, where, text))
    return out


def argument_parser(doc, kernels):
    """The command line this script and round_trips.py share: check or table, PTX from --build-dir
    or --ptx, and the expectation to compare with (--expect) or write (--write)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("mode", choices=("check", "table"))
    ap.add_argument("--build-dir")
    ap.add_argument("--ptx", nargs="+")
    ap.add_argument("--policy")
    ap.add_argument("--kernel", choices=sorted(kernels))
    ap.add_argument("--keep")
    ap.add_argument("--expect")
    ap.add_argument("--write")
    return ap


def main(argv):
    ap = argument_parser(__doc__, (*REQUIRED, *PROBES))
    a = ap.parse_args(argv)
    source_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if a.ptx:
        if not a.policy:
            ap.error("--ptx needs --policy")
        plines = policy_lines(a.policy)
        results = [(kernel, where, as_probe(kernel, scan(text, plines)))
                   for kernel, where, text in read_ptx_files(a.ptx, a.kernel, (*REQUIRED, *PROBES), ap.error)]
    elif a.build_dir:
        if not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")):
            print("no nvcc: skipped")
            return 77
        results = from_build(os.path.abspath(a.build_dir), source_dir, a.keep and os.path.abspath(a.keep))
    else:
        ap.error("give --build-dir or --ptx")
    if a.mode == "table":
        lines = [f"{where} {entry} {op} {opcode} {n}" for (where, entry, op, opcode), n in sorted(count_rows(results).items())]
        if a.write:
            with open(a.write, "w", encoding="utf-8") as f:
                f.write("# scripts/ptx_memory_ops.py's expectation: source arch kernel-entry policy-op opcode count\n"
                        "# (generated by `ptx_memory_ops.py table --build-dir build/ci --write FILE`; do not edit)\n")
                f.write("\n".join(lines) + "\n")
        else:
            print("\n".join(lines))
        return 0
    bad = [v for kernel, where, table in results for v in violations(table, kernel, where)]
    if a.expect:
        bad += count_violations(results, read_expected(a.expect))
    for v in bad:
        print(v)
    print(f"ptx-memory-ops: {len(results)} PTX files, {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
