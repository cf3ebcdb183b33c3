#!/usr/bin/env python3
"""The flag waits of the peers' kernels (FlashInfer's, vLLM's), counted in the PTX a peers build compiled.

arbench's own kernels mark their loads and loops for scripts/round_trips.py; another project's
kernel carries no marker, so this counts what its PTX shows without one:

  flag load   a volatile, acquire or relaxed load from global or generic memory (a flag, a
              Lamport slot, a sentinel-carrying pack): `ld.volatile.*`, `ld.acquire.*`, `ld.relaxed.*`
  poll loop   a natural loop whose continuation branch depends on a flag load in the loop's own
              blocks (not an inner loop's): a spin until a peer's value arrives
  wave        polls with no global store between them wait for events that happen on their own,
              so they are one wait (one wave), as docs/round-trips.md counts arbench's kernels;
              a store (st, red, atom to global or generic memory) between two polls makes them two
  count       the most waves any path through the kernel passes, every loop's body once (a work
              loop's body is one unit of work: its waits are per unit, as the peer traffic prices)

What this cannot see, and the floor keeps from the peers' code as read (kernels/peers/peer_traffic.cpp):
which loads read a peer (a pull's data wave is not a flag load), and a chain of waits that crosses
threads (one thread polls, computes, stores, and another thread's poll waits for that store). So the
count is what one thread waits, at least: a lower bound on the kernel's chain.

A few polls wait on the GPU's own memory, not on a peer (LOCAL_POLLS: the source function of the
poll, as the PTX's line table names it, with where that was read); they are not PCIe waits.

  peer_waits.py table --build-dir build/peers [--write-cpp FILE]
  peer_waits.py table --ptx FILE.ptx...

Prints one line per kernel key (peer/world/kernel) with the fewest waves over its instantiations and
architectures; --write-cpp writes the table as C++ (arbench's peer traffic reads it). Exit 0; 1: a
peer kernel whose name matches no key (a new FlashInfer kernel: map it here); 2: bad usage.
"""
import argparse
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_flow  # noqa: E402  (scripts/ptx_flow.py: PTX as a control-flow graph)
import ptx_memory_ops  # noqa: E402  (the build's objects: their embedded PTX)

ADAPTERS = ("flashinfer_pcie_ipc", "flashinfer_fusion", "vllm_custom_ar")

# Polls on the GPU's own memory: FlashInfer's fused kernels (trtllm_allreduce_fusion.cuh at
# fb28d7242b35, LamportComm::update and SyncComm::update) spin, in block 0 thread 0 only, until
# every block of this grid has counted itself in a local counter, then advance the flag for the
# next call. No peer takes part.
LOCAL_POLLS = ((re.compile(r"trtllm_allreduce_fusion\.cuh$"), re.compile(r"(LamportComm|SyncComm).*update")),)

# Mangled kernel name -> key (peer/world/kernel), the names kernels/peers/peer_traffic.cpp prices.
KEYS = (
    (r"ipc_tp2_remote_push_kernel", lambda m: "flashinfer-pcie-ipc/2"),
    (r"push_oneshot_param_kernelI\w+?Li(\d+)E", lambda m: f"flashinfer-pcie-ipc/{m.group(1)}/unstaged"),
    (r"ipc_rsag_ring_push_param_kernelI\w+?Li(\d+)E", lambda m: f"flashinfer-pcie-ipc/{m.group(1)}/staged-ring"),
    (r"ipc_rsag_push_param_kernelI\w+?Li(\d+)E",
     lambda m: f"flashinfer-pcie-ipc/{m.group(1)}/{'flat-staged' if m.group(1) == '8' else 'staged'}"),
    (r"ipc_topo_rsag8_push_param_kernel", lambda m: "flashinfer-pcie-ipc/8/unstaged"),
    (r"ipc_topo_rsag8_block_param_kernel", lambda m: "flashinfer-pcie-ipc/8/staged"),
    (r"ipc_topo_rsag8_ring_push_param_kernel", lambda m: "flashinfer-pcie-ipc/8/staged-ring"),
    (r"cross_device_reduce_(1|2)stageI\w+?Li(\d+)E", lambda m: f"vllm-custom/{m.group(2)}/{m.group(1)}stage"),
    (r"allreduce_fusion_kernel_(oneshot|twoshot)_\w+?Li(\d+)E", lambda m: f"flashinfer-fused/{m.group(2)}/{m.group(1)}"),
)


def key_of(mangled):
    for pattern, key in KEYS:
        m = re.search(pattern, mangled)
        if m:
            return key(m)
    return None


def is_flag_load(op):
    return (op.startswith("ld.") and not re.search(r"\.(param|local|shared|const)\b", op)
            and re.search(r"\.(volatile|acquire|relaxed)\b", op) is not None)


def is_store(op):
    return op.startswith(("st.", "red.", "atom.")) and not re.search(r"\.(local|shared|param)\b", op)


def is_local_poll(ins):
    return any(f.search(frame[0]) and fn.search(frame[2] or "") for frame in ins.chain for f, fn in LOCAL_POLLS)


def poll_blocks(e):
    """The blocks of e whose flag loads are polls: the own blocks of a loop that spins on them."""
    loops, _ = ptx_flow.loops(e)
    out = set()
    for loop in loops:
        inner = [x.blocks for x in loops if x is not loop and x.blocks < loop.blocks]
        own = set(loop.blocks).difference(*inner)
        body = [i for b in loop.blocks for i in range(e.blocks[b][0], e.blocks[b][1] + 1)]
        tainted = {r for i in body if e.block_of[i] in own and is_flag_load(e.instrs[i].opcode)
                   and not is_local_poll(e.instrs[i]) for r in e.instrs[i].dests}
        changed = bool(tainted)
        while changed:  # what the flag's value flows into, inside the loop
            changed = False
            for i in body:
                ins = e.instrs[i]
                if tainted.intersection(ins.srcs) and not tainted.issuperset(ins.dests):
                    tainted.update(ins.dests)
                    changed = True
        if any(e.instrs[i].opcode.startswith("bra") and e.instrs[i].guard and e.instrs[i].guard[1] in tainted
               for i in body):
            out |= own
    return out


def waves(e):
    """The most waves a path through e passes (loops' bodies once)."""
    _, back = ptx_flow.loops(e)
    polls = poll_blocks(e)
    none = -1
    # per block: [most waves arriving with the last event a store (or none), ... a poll]
    best = [[none, none] for _ in e.blocks]
    if e.blocks:
        best[0] = [0, none]
    most = 0
    for k in ptx_flow.reverse_postorder(e):
        after_store, after_poll = best[k]
        if after_store == none and after_poll == none:
            continue
        for i in range(e.blocks[k][0], e.blocks[k][1] + 1):
            ins = e.instrs[i]
            if k in polls and is_flag_load(ins.opcode) and not is_local_poll(ins):
                after_store, after_poll = none, max(after_poll, after_store + 1 if after_store != none else none)
            elif is_store(ins.opcode):
                after_store, after_poll = max(after_store, after_poll), none
        most = max(most, after_store, after_poll)
        for s in e.succ[k]:
            if (k, s) not in back:
                best[s] = [max(best[s][0], after_store), max(best[s][1], after_poll)]
    return most


def count(texts):
    """({key: fewest waves}, [unmapped kernel names]) over the PTX texts given."""
    table, unmapped = {}, []
    for text in texts:
        for e in ptx_flow.parse(text):
            key = key_of(e.name)
            if key is None:
                unmapped.append(e.name)
                continue
            n = waves(e)
            table[key] = min(n, table.get(key, n))
    return table, unmapped


def ptx_of_build(build_dir):
    jobs = [(e, a) for e in ptx_memory_ops.compile_commands(build_dir)
            if e["file"].endswith(".cu") and os.path.splitext(os.path.basename(e["file"]))[0] in ADAPTERS
            for a in ptx_memory_ops.cuda_objects.archs(e["command"])]
    if not jobs:
        raise SystemExit(f"peer-waits: no peer adapter in {build_dir}/compile_commands.json (not a peers build)")
    with tempfile.TemporaryDirectory() as tmp:
        return [ptx_memory_ops.built_ptx(e, a, tmp) or ptx_memory_ops.compile_ptx(e, a, tmp) for e, a in jobs]


def cpp_text(table, origin):
    rows = "".join(f'      {{"{k}", {v}}},\n' for k, v in sorted(table.items()))
    return ("// Generated by scripts/peer_waits.py from " + origin + ": the flag waits one thread of each peer\n"
            "// kernel passes, counted in the PTX this build compiled (do not edit).\n"
            '#include "kernels/peers/peer_traffic.hpp"\n\n'
            "namespace arbench {\n\n"
            "const PeerWaitCounts& counted_peer_waits() {\n"
            "  static const PeerWaitCounts table = {\n" + rows + "  };\n"
            "  return table;\n}\n\n}  // namespace arbench\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["table"])
    ap.add_argument("--build-dir")
    ap.add_argument("--ptx", nargs="+")
    ap.add_argument("--write-cpp")
    a = ap.parse_args(argv)
    if bool(a.build_dir) == bool(a.ptx):
        ap.error("give --build-dir (a peers build) or --ptx FILE...")
    if a.ptx:
        texts = []
        for path in a.ptx:
            with open(path, encoding="utf-8") as f:
                texts.append(f.read())
        origin = "the PTX files given"
    else:
        texts, origin = ptx_of_build(a.build_dir), "the peers build's objects"
    table, unmapped = count(texts)
    for key, n in sorted(table.items()):
        print(f"{key} {n}")
    for name in unmapped:
        print(f"peer-waits: {name}: a kernel no key maps (add it to KEYS in scripts/peer_waits.py)", file=sys.stderr)
    if a.write_cpp:
        text = cpp_text(table, origin)
        old = open(a.write_cpp, encoding="utf-8").read() if os.path.exists(a.write_cpp) else None
        if text != old:  # unchanged: leave it, so nothing that includes it rebuilds
            with open(a.write_cpp, "w", encoding="utf-8") as f:
                f.write(text)
    return 1 if unmapped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
