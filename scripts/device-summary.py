#!/usr/bin/env python3
"""Short summary table of arbench result JSONs (printed last by device-check.sh run)."""
import json
import sys


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
            size = c["bytes"] if c["family"] == "allreduce" else f"{c['tokens']}x{c['hidden']}"
            rows.append((backend, c["variant"], c["dtype"], c["world"], size, c["median_us"],
                         c.get("pipelined_us") or 0.0, c["busbw_GBps"], c["status"], c["wrong_elements"]))
    print(f"{'backend':<10} {'variant':<18} {'dtype':<5} {'N':>2} {'size':>10} {'median_us':>10} "
          f"{'pipe_us':>9} {'busbw':>8} {'status':<6} wrong")
    for r in rows:
        print(f"{r[0]:<10} {r[1]:<18} {r[2]:<5} {r[3]:>2} {str(r[4]):>10} {r[5]:>10.2f} {r[6]:>9.2f} "
              f"{r[7]:>8.2f} {r[8]:<6} {r[9]}")
    failed = sum(1 for r in rows if r[8] != "ok")
    print(f"{len(rows)} cases, {failed} failed")


if __name__ == "__main__":
    main(sys.argv[1:])
