#!/usr/bin/env python3
"""Writes the links files (the "patterns" object `arbench topo --out` writes) of the boxes whose
rates are published, from the published figures alone; what is not published stays out (a
pattern not held: the floor says it was not measured; no hop: the floor prices its waits at 0
and says so). Every rate is the top of its published range and every hop the bottom, so a floor
priced on these files is at most what the box allows: a lower bound.

  results/reference/make_published_links.py   (rewrites the two files beside it)
"""
import itertools
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = ["all-pairs", "ring", "chain", "island-inside", "island-across"]


def pattern(shape, direction, world, flows, ce_gbps, hop_us, notes):
    p = {"key": f"w{world} {shape} {direction}", "shape": shape, "direction": direction, "world": world,
         "flows": [list(f) for f in flows],
         "sizes": [{"bytes": 67108864, "sm_gbps": [None] * len(flows), "ce_gbps": [ce_gbps] * len(flows)}],
         "latency_pairs": [[0, 1]] if hop_us is not None else [],
         "latency_us": [None] if hop_us is not None else [],
         "idle_latency_us": [hop_us] if hop_us is not None else [],
         "notes": notes}
    return p


def links(ids, cell, note):
    """The "links" object (`arbench topo --out`'s idle matrix): cell(a, b) in GB/s, or None."""
    values = [[None if a == b else cell(a, b) for b in range(len(ids))] for a in range(len(ids))]
    return {"schema": "arbench-links/1", "bus_ids": ids,
            "matrices": {"ce_unidir_gbps": {"method": "published, not measured by arbench", "unit": "GB/s",
                                            "bytes": 0, "repetitions": 0, "values": values, "notes": [note]}}}


def every_pair(world):
    return [(a, b) for a, b in itertools.permutations(range(world), 2)]


def rtx6kpro():
    notes_push = ["published: P2P writes 53-56 GB/s one way per pair (cudaMemcpyPeer, p2pBandwidthLatencyTest); "
                  "the rate under this pattern's concurrency is not published: every flow takes 56, the top, "
                  "which no flow exceeds when others share its link (a floor lower than the box's)"]
    notes_pull = ["P2P reads are not published: every flow takes PCIe Gen5 x16's theoretical 63 GB/s one way, "
                  "which no transfer exceeds"]
    notes_hop = "one-way P2P latency published as 0.36-0.45 us: every pattern's hop is 0.36, the bottom"
    patterns = []
    for world in range(2, 9):
        for shape in SHAPES:
            for d, rate, notes in (("push", 56.0, notes_push), ("pull", 63.0, notes_pull)):
                # every ordered pair: any ring order or islands of the box find their flows
                patterns.append(pattern(shape, d, world, every_pair(world), rate, 0.36, notes + [notes_hop]))
    return {
        "about": "Links of the 8x RTX PRO 6000 Blackwell (MaxQ) box behind 3 PCIe switches whose all-reduce times "
                 "results/reference/published-pcie-allreduce.json holds (set rtx6kpro-8x-switches-custom-vs-nccl), "
                 "from its published P2P figures alone. Written by make_published_links.py.",
        "source": "github.com/voipmonitor/rtx6kpro hardware/pcie-bandwidth.md (P2P bandwidth and latency), "
                  "benchmarks/results.md",
        "published_sets": ["rtx6kpro-8x-switches-custom-vs-nccl"],
        "missing": ["rates under concurrency (every pattern takes the single pair's top rate)",
                    "P2P read rates (the link's theoretical one-way rate stands for them)",
                    "the box's switch layout by GPU (no islands: every pattern holds every pair)"],
        "links": links([f"published:gpu{k}" for k in range(8)], lambda a, b: 56.0,
                       "P2P writes 53-56 GB/s one way per pair: 56, the top"),
        "patterns": {"schema": "arbench-patterns/1", "timing": "gpu",
                     "method": "published figures, not measured by arbench (make_published_links.py)",
                     "repetitions": 0, "positions": [f"published:gpu{k}" for k in range(8)],
                     "patterns": patterns}}


def switch_pairs():
    pr = "FlashInfer PR #4870 (SOL analysis comment, 2026-09-08), box CX8: "
    hop = "no latency published: no hop (the floor prices every wait at 0 and says so)"
    pairs8 = [(0, 1), (1, 0), (2, 3), (3, 2), (4, 5), (5, 4), (6, 7), (7, 6)]
    across = [(a, b) for a in range(8) for b in range(8) if (a < 4) != (b < 4)]
    ring = lambda n: [(k, (k + 1) % n) for k in range(n)]  # noqa: E731
    patterns = [
        pattern("all-pairs", "push", 2, [(0, 1), (1, 0)], 55.0, None,
                [pr + "single hop alone 53.2-55.0 GB/s: 55.0, the top (both ways at once is not published)", hop]),
        pattern("ring", "push", 2, [(0, 1), (1, 0)], 55.0, None, [pr + "single hop alone: 55.0, the top", hop]),
        pattern("ring", "push", 4, ring(4), 52.32, None, [pr + "flat ring, all ranks, at 4: 52.32 GB/s", hop]),
        pattern("ring", "push", 8, ring(8), 49.64, None, [pr + "flat ring, all ranks, at 8: 49.64 GB/s", hop]),
        pattern("island-inside", "push", 4, pairs8[:4], 52.33, None,
                [pr + "intra-switch pair at 4 (islands: the switch pairs 0-1, 2-3): 52.33 GB/s", hop]),
        pattern("island-inside", "push", 8, pairs8, 52.37, None,
                [pr + "intra-switch pair at 8 (islands: the switch pairs): 52.37 GB/s", hop]),
        pattern("island-across", "push", 8, across, 23.75, None,
                [pr + "cross-boundary between the halves 0-3 and 4-7, all flows: 23.75 GB/s per flow", hop]),
    ]
    return {
        "about": "Links of FlashInfer PR #4870's box CX8: 8x sm_120, PCIe Gen5, switch pairs (0,1)(2,3)(4,5)(6,7), "
                 "halves 0-3 and 4-7, from the rates the PR published (cudaMemcpyAsync under each schedule's own "
                 "concurrency). Written by make_published_links.py.",
        "source": "github.com/flashinfer-ai/flashinfer pull 4870, comment 'PCIe IPC copy-engine all-reduce - SOL "
                  "analysis' (2026-09-08)",
        "published_floors_us": {"ring, 8 ranks, 96 MiB (168 MiB per rank at 49.64 GB/s)": 3549,
                                "ring, 4 ranks, 96 MiB (144 MiB per rank at 52.32 GB/s)": 2886},
        "published_sets": [],
        "missing": ["hop latency (none published)",
                    "all-pairs rates at 4 and 8 ranks, every pull rate, all-pairs inside the halves (not published)",
                    "the PR's measured all-reduce times: its 'Measured' table was not in the copy of the PR read "
                    "for this file (the search index's excerpt ends at the table's header), so no published time "
                    "of this box is held here"],
        "links": links([f"published:cx8-gpu{k}" for k in range(8)],
                       lambda a, b: 55.0 if a // 2 == b // 2 else None,
                       "single hop alone 53.2-55.0 GB/s: 55.0 inside a switch pair; a pair across switches alone "
                       "is not published (null)"),
        "patterns": {"schema": "arbench-patterns/1", "timing": "gpu",
                     "method": "published figures, not measured by arbench (make_published_links.py)",
                     "repetitions": 0, "positions": [f"published:cx8-gpu{k}" for k in range(8)],
                     "patterns": patterns}}


for name, doc in (("links-rtx6kpro-8x.json", rtx6kpro()), ("links-flashinfer-4870-switch-pairs.json", switch_pairs())):
    patterns = doc["patterns"].pop("patterns")
    text = json.dumps(doc, indent=1)
    one_a_line = ",\n   ".join(json.dumps(p, separators=(",", ":")) for p in patterns)
    # every pattern on one line: the file stays readable at a glance and small
    text = text[: text.rindex("}", 0, text.rindex("}"))].rstrip() + ',\n  "patterns": [\n   ' + one_a_line + "\n  ]\n }\n}\n"
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(text)
