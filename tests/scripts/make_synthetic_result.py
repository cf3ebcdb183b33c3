#!/usr/bin/python3
"""Writes a synthetic arbench result (schema_version 1) with every family, several GPU counts
and known winners, for the plot test; deterministic (fixed seed). Standard library only.

usage: make_synthetic_result.py OUT.json
"""
import json
import random
import sys

# latency model per variant: a + bytes / c microseconds, scaled a little with the GPU count
ALLREDUCE = {"oneshot-push": (5, 1000), "twoshot": (8, 2000), "nccl": (25, 4000),
             "nccl[ring/ll]": (12, 3000)}
FUSED = {"unfused-nccl": lambda t: 40 + t / 4, "fused-oneshot": lambda t: 10 + t,
         "fused-twoshot": lambda t: 20 + t / 3}


def case(name, median, rng, extra):
    s = sorted(median * rng.uniform(0.97, 1.05) for _ in range(21))
    c = {"name": name, "status": "ok", "reason": "", "samples_us": s, "median_us": s[10],
         "p10_us": s[2], "p50_us": s[10], "p90_us": s[18], "p99_us": s[20],
         "wrong_elements": 0, "settings": {}}
    c.update(extra)
    return c


def main():
    rng = random.Random(7)
    cases = []
    for world in (2, 4, 8):
        for k in range(10, 21):
            b = 1 << k
            for v, (a, c) in ALLREDUCE.items():
                t = (a + b / c) * (1 + world / 16)
                cases.append(case(f"allreduce/{v}/bf16/gpus:{world}/bytes:{b}", t, rng,
                                  {"variant": v, "family": "allreduce", "dtype": "bf16",
                                   "world": world, "bytes": b, "busbw_GBps":
                                   b / (t * 1e3) * 2 * (world - 1) / world}))
        for tokens in (1, 4, 16, 64, 256):
            for v, f in FUSED.items():
                cases.append(case(
                    f"allreduce_rmsnorm/{v}/bf16/gpus:{world}/tokens:{tokens}/hidden:8192",
                    f(tokens), rng, {"variant": v, "family": "allreduce_rmsnorm",
                                     "dtype": "bf16", "world": world, "tokens": tokens,
                                     "hidden": 8192}))
    doc = {"context": {"date": "2026-12-02T00:00:00+00:00", "executable": "synthetic"},
           "benchmarks": [],
           "arbench": {"schema_version": 1,
                       "provenance": {"backend": "host", "timing": "cpu",
                                      "arbench_revision": "synthetic",
                                      "fingerprint": "00000000deadbeef",
                                      "fingerprint_fields": {"backend": "host"}},
                       "config": {}, "cases": cases, "skipped": []}}
    with open(sys.argv[1], "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
