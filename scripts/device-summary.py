#!/usr/bin/env python3
"""Short summary table of arbench result JSONs (printed last by device-check.sh run).

For single-gpu results (all virtual ranks on one GPU, so every byte moves through one memory)
it adds each variant's effective bandwidth -- bytes read + written by all ranks per second,
from the traffic model below -- beside a device-to-device copy of the same bytes timed here
with torch, when torch and a GPU are available (the device machine has both).
"""
import json
import sys

# Bytes read + written by all N ranks for one all-reduce of B bytes (ideal, no re-reads).
TRAFFIC = {
    # every rank reads N inputs and writes its output
    "oneshot-pull": lambda n, b: n * (n * b + b),
    # every rank writes its input into N slots, reads N slots, writes its output
    "oneshot-push": lambda n, b: n * (b + n * b + n * b + b),
    # reduce-scatter (read N slices of B/N, write B/N) then all-gather (read B, write B)
    "twoshot": lambda n, b: n * (b + b / n + b + b),
    # 2(N-1) steps of B/N: read local + received chunk, write the next rank's slot
    "ring": lambda n, b: n * (2 * (n - 1) * (b / n) * 3),
}


def copy_gbps(nbytes):
    """Read+write GB/s of a device-to-device copy moving `nbytes` in total, or None."""
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        half = max(int(nbytes // 2), 1)
        src = torch.empty(half, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        for _ in range(3):
            dst.copy_(src)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(20):
            start.record()
            dst.copy_(src)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) * 1e-3)
        times.sort()
        return 2 * half / times[len(times) // 2] / 1e9
    except Exception:  # noqa: BLE001 -- the summary must never fail the device check
        return None


def main(paths):
    rows = []
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: unreadable ({e})")
            continue
        backend = doc["arbench"]["provenance"]["backend"]
        for c in doc["arbench"]["cases"]:
            fused = c["family"] != "allreduce"
            size = f"{c['tokens']}x{c['hidden']}" if fused else str(c["bytes"])
            eff = copy = ""
            model = TRAFFIC.get(c["variant"])
            if backend == "single-gpu" and model and not fused and c["median_us"] > 0:
                moved = model(c["world"], c["bytes"])
                eff = f"{moved / (c['median_us'] * 1e-6) / 1e9:.1f}"
                cg = copy_gbps(moved)
                copy = f"{cg:.1f}" if cg else "-"
            rows.append((backend, c["variant"], c["dtype"], c["world"], size, c["median_us"],
                         c.get("pipelined_us") or 0.0, c["busbw_GBps"], eff, copy, c["status"],
                         c["wrong_elements"]))
    print(f"{'backend':<10} {'variant':<18} {'dtype':<5} {'N':>2} {'size':>10} {'median_us':>10} "
          f"{'pipe_us':>9} {'busbw':>8} {'eff_GBps':>8} {'copy_GBps':>9} {'status':<6} wrong")
    for r in rows:
        print(f"{r[0]:<10} {r[1]:<18} {r[2]:<5} {r[3]:>2} {r[4]:>10} {r[5]:>10.2f} {r[6]:>9.2f} "
              f"{r[7]:>8.2f} {r[8]:>8} {r[9]:>9} {r[10]:<6} {r[11]}")
    failed = sum(1 for r in rows if r[10] != "ok")
    print(f"{len(rows)} cases, {failed} failed (eff = bytes read+written by all ranks per second, "
          f"traffic model in scripts/device-summary.py; copy = torch D2D copy of the same bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
