#!/usr/bin/python3
"""Writes a synthetic arbench result (schema_version 1) with every family, several GPU counts
and known winners, for the plot, report and nightly tests; deterministic (fixed seed).
Standard library only.

usage: make_synthetic_result.py OUT.json [--gpu] [--seed N] [--slow NAME=FACTOR ...]
                                [--scale FACTOR] [--downtrained NAME ...] [--fail NAME ...]
                                [--lossy] [--err NAME=FACTOR ...] [--peers] [--floors]
                                [--stack KEY=VALUE ...] [--host NAME] [--gpu-base BUS] [--old-format]

--gpu marks it GPU timing (backend cuda) with each case's recorded noise (median_ci_us) and
device state (healthy Gen5 x16 GPUs), as `arbench run` writes on a GPU box; without it, the
result is CPU timing (backend host) as before. --seed changes the samples' jitter (another
night of the same machine). --slow scales a case's samples, --scale every case's (a drift of
the whole run; with the same --seed, every ratio is exactly FACTOR); --downtrained records that case's
first GPU on a x8 link; --fail marks a case failed with a wrong element. --lossy adds a
low-precision variant, twoshot-fp8, whose cases carry error figures (max_abs_err, rms_rel_err);
--err scales a case's figures (a night whose error rose). --peers adds the peers (docs/variants.md
"Peers": FlashInfer's and vLLM's kernels, a forced configuration among them) and the stack's
`peers`, as an arbench built with FlashInfer writes them. --floors gives the all-reduce cases of
every variant but nccl[ring/ll] a speed-of-light floor (sol_us, pct_of_sol), below their medians.
--stack sets a software
stack field (driver, cuda_runtime, nccl_version, nccl_library; GPU defaults 580.65, 13.0, 2.28.9
and /usr/lib/x86_64-linux-gnu/libnccl.so.2), --host the host name (another machine), --gpu-base the first GPU's PCI bus (0x41; GPUs
moved to other slots: other hardware of this host); the result
carries provenance.machine and .stack as today's arbench writes them (scripts/stack.py), or with
--old-format only the fingerprint that mixed hardware and stack, as arbench wrote before the split.
"""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import stack as stack_info  # noqa: E402  (scripts/stack.py: the machine id as arbench computes it)

# latency model per variant: a + bytes / c microseconds, scaled a little with the GPU count
ALLREDUCE = {"oneshot-push": (5, 1000), "twoshot": (8, 2000), "nccl": (25, 4000),
             "nccl[ring/ll]": (12, 3000)}
LOSSY = {"twoshot-fp8": (9, 3600)}  # FP8 on the wire: about half the bytes of twoshot
FUSED = {"unfused-nccl": lambda t: 40 + t / 4, "fused-oneshot": lambda t: 10 + t,
         "fused-twoshot": lambda t: 20 + t / 3}
PEERS = {"flashinfer-pcie-ipc": (6, 1500), "flashinfer-pcie-ipc[staged-ring]": (9, 2500),
         "vllm-custom": (7, 1200)}
FUSED_PEERS = {"flashinfer-fused": lambda t: 12 + t, "flashinfer-fused[twoshot]": lambda t: 22 + t / 3}


def median_ci(s):
    """The 95% order-statistic interval of the median for 21 samples: ranks 6 and 16."""
    return [s[5], s[15]]


def gpu_state(world, width_of_first=16):
    snap = {"sm_clock_mhz": 2610, "mem_clock_mhz": 14001, "clock_event_reasons": 0,
            "temperature_c": 58, "power_w": 305.0, "pstate": 0, "pcie_gen": 5, "pcie_width": 16,
            "pcie_max_gen": 5, "pcie_max_width": 16, "other_processes": 0,
            "power_violation_ns": 0, "thermal_violation_ns": 0}
    gpus = []
    for d in range(world):
        after = dict(snap)
        if d == 0:
            after["pcie_width"] = width_of_first
        gpus.append({"device": d, "bus_id": f"0000:{0x41 + d:02x}:00.0", "before": dict(snap),
                     "after": after})
    state = {"gpus": gpus, "abnormal": width_of_first < 16, "findings": []}
    if width_of_first < 16:
        state["findings"].append({"issue": "link_downtrained", "device": 0,
                                  "detail": f"link Gen5 x{width_of_first}, max Gen5 x16"})
    return state


def case(name, median, rng, extra, args):
    median *= args.slow.get(name, 1.0) * args.scale
    s = sorted(median * rng.uniform(0.97, 1.05) for _ in range(21))
    c = {"name": name, "status": "ok", "reason": "", "samples_us": s, "median_us": s[10],
         "p10_us": s[2], "p50_us": s[10], "p90_us": s[18], "p99_us": s[20],
         "wrong_elements": 0, "settings": {}}
    c.update(extra)
    if args.gpu:
        ci = median_ci(s)
        c.update(median_ci_us=ci, noise=(ci[1] - ci[0]) / s[10], cache="hot",
                 sampling={"stop": "fixed", "time_s": 0.01},
                 device_state=gpu_state(extra["world"], 8 if name in args.downtrained else 16))
    if name in args.fail:
        c.update(status="failed", reason="1 of 512 elements wrong after timing (first: rank 1 "
                 "element 7: got 5, want 4)", wrong_elements=1, samples_us=[])
    return c


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--gpu", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--slow", action="append", default=[], metavar="NAME=FACTOR")
    p.add_argument("--scale", type=float, default=1.0, metavar="FACTOR")
    p.add_argument("--downtrained", action="append", default=[], metavar="NAME")
    p.add_argument("--fail", action="append", default=[], metavar="NAME")
    p.add_argument("--lossy", action="store_true")
    p.add_argument("--floors", action="store_true")
    p.add_argument("--err", action="append", default=[], metavar="NAME=FACTOR")
    p.add_argument("--stack", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--host")
    p.add_argument("--gpu-base", type=lambda v: int(v, 0), default=0x41, help="first GPU's PCI bus")
    p.add_argument("--old-format", action="store_true")
    p.add_argument("--peers", action="store_true")
    args = p.parse_args()
    args.slow = {k: float(v) for k, v in (s.rsplit("=", 1) for s in args.slow)}
    args.err = {k: float(v) for k, v in (s.rsplit("=", 1) for s in args.err)}
    rng = random.Random(args.seed)
    cases = []
    for world in (2, 4, 8):
        for k in range(10, 21):
            b = 1 << k
            for v, (a, c) in (list(ALLREDUCE.items()) + (list(LOSSY.items()) if args.lossy else []) +
                              (list(PEERS.items()) if args.peers else [])):
                t = (a + b / c) * (1 + world / 16)
                name = f"allreduce/{v}/bf16/gpus:{world}/bytes:{b}"
                extra = {"variant": v, "family": "allreduce", "dtype": "bf16", "world": world,
                         "bytes": b, "busbw_GBps": b / (t * 1e3) * 2 * (world - 1) / world}
                if v in LOSSY:  # e4m3 keeps 3 mantissa bits: a relative error of about 1%
                    f = args.err.get(name, 1.0)
                    extra.update(max_abs_err=0.0625 * f, rms_rel_err=(0.008 + (k - 10) * 1e-4) * f)
                cases.append(case(name, t, rng, extra, args))
                if args.floors and v != "nccl[ring/ll]":  # a floor below every variant's model
                    sol = (2 + b / 6000) * (1 + world / 16)
                    cases[-1].update(sol_us=sol, pct_of_sol=100 * sol / cases[-1]["median_us"])
        for tokens in (1, 4, 16, 64, 256):
            for v, f in list(FUSED.items()) + (list(FUSED_PEERS.items()) if args.peers else []):
                cases.append(case(
                    f"allreduce_rmsnorm/{v}/bf16/gpus:{world}/tokens:{tokens}/hidden:8192",
                    f(tokens), rng, {"variant": v, "family": "allreduce_rmsnorm",
                                     "dtype": "bf16", "world": world, "tokens": tokens,
                                     "hidden": 8192}, args))
    backend, timing = ("cuda", "gpu") if args.gpu else ("host", "cpu")
    host = args.host or ("gpu-box" if args.gpu else "vm")
    stack = {"driver": "580.65", "cuda_runtime": "13.0", "nccl_version": "2.28.9",
             "nccl_library": "/usr/lib/x86_64-linux-gnu/libnccl.so.2"} if args.gpu else {
                 "driver": "", "cuda_runtime": "", "nccl_version": "", "nccl_library": ""}
    if args.peers:
        stack["peers"] = "FlashInfer 0.6.18 fb28d7242b35"
    stack.update(s.split("=", 1) for s in args.stack)
    gpus = [{"index": d, "name": "NVIDIA RTX PRO 6000 Blackwell", "cc": "12.0",
             "pci_bus_id": f"0000:{args.gpu_base + d:02x}:00.0"} for d in range(8)] if args.gpu else []
    doc = {"context": {"date": "2026-12-02T00:00:00+00:00", "executable": "synthetic"},
           "benchmarks": [],
           "arbench": {"schema_version": 1,
                       "provenance": {"backend": backend, "timing": timing,
                                      "arbench_revision": "synthetic",
                                      "command_line": "arbench run (synthetic)",
                                      "host_name": host, **stack,
                                      "gpus": gpus,
                                      "device_state": "nvml" if args.gpu else
                                      "not recorded on the host backend (no GPU)",
                                      "fingerprint": "00000000deadbeef",
                                      "fingerprint_fields": {
                                          "backend": backend, "host_name": host,
                                          "gpus": ";".join(f'{g["name"]}/{g["cc"]}/{g["pci_bus_id"]}'
                                                           for g in gpus),
                                          **{k: v for k, v in stack.items()
                                             if k not in ("nccl_library", "peers")}}},
                       "config": {"sweep_key": "5e1ec7ed5e1ec7ed"}, "cases": cases,
                       "skipped": []}}
    prov = doc["arbench"]["provenance"]
    if args.old_format:
        del prov["nccl_library"]  # not recorded before the split
    else:
        fields = stack_info.machine_fields(prov)
        prov["machine"] = {"id": stack_info.machine_id(prov), "fields": fields}
        prov["stack"] = stack_info.stack(prov)
    with open(args.out, "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
