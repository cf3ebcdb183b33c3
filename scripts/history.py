#!/usr/bin/python3
"""Append tonight's cases to the nightly history: one compact JSON line per case.

usage: history.py RESULT.json COMPARE.json HISTORY.jsonl [--date ISO8601]

RESULT.json is `arbench run --out`; COMPARE.json is `arbench compare --format json` of the
baseline against that result. Each line (schema documented in docs/regression.md):
  {"date","revision","fingerprint","machine","stack","backend","timing","case","status",
   "median_us","p10_us","p90_us","samples","noise","baseline_median_us","ratio","p_value",
   "verdict","regression","not_counted","device"}
verdict is compare's (faster/slower/same/noisy/failed), or "new" for a case the baseline
lacks; regression says whether it failed the night's gate; not_counted why a slower one did
not (correctness-only gate, abnormal device state); device is tonight's abnormal device state
("" when normal or not recorded). A case that ran with a speed-of-light floor (its pct_of_sol recorded) adds "sol_us", "pct_of_sol"
and "sol_fell" (compare's: its % of SOL fell beyond the threshold). A lossy (low-precision) variant's line adds its error figures
"max_abs_err" and "rms_rel_err" and "error_rose" (compare's: the error rose beyond the threshold,
a regression). machine is the hardware's id and stack the platform stack in words ("driver 580.65
· CUDA runtime 13.0 · NCCL 2.28.9", scripts/stack.py): one history spans stack changes, and the
plots mark the nights where stack differs from the night before. Standard library only, so any
python3 runs it.
"""
import argparse
import datetime
import json
import os
import sys

import stack as stack_info  # scripts/stack.py


def fail(msg):
    """Says what is wrong, named after the script that runs (report.py imports this), exit 2."""
    print(f"{os.path.basename(sys.argv[0])}: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read the {what} ({e})")


def compact(x, digits=4):
    """Rounded so a line stays short; None stays None (JSON null)."""
    return None if not isinstance(x, (int, float)) else float(f"{x:.{digits}g}")


def device_marker(state):
    """The findings arbench recorded for the case, one line ("" when normal or absent)."""
    if not isinstance(state, dict):
        return ""
    return "; ".join(f"GPU {f.get('device')} {f.get('issue')}: {f.get('detail')}"
                     for f in state.get("findings", []))


def load_history(path):
    """History lines with a median, grouped by case and sorted by date: {case: [line, ...]}.
    (plot.py and report.py read the history through this.)"""
    by_case = {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        h = json.loads(line)
                    except ValueError as e:
                        fail(f"{path}:{n}: not a JSON line ({e})")
                    if h.get("median_us"):
                        by_case.setdefault(h["case"], []).append(h)
    except OSError as e:
        fail(f"{path}: cannot read the history ({e})")
    for hs in by_case.values():
        hs.sort(key=lambda h: h["date"])
    return by_case


def stack_changes(by_case):
    """{date: "old stack → new stack"} for each night whose stack differs from the night before
    (history lines without a stack, written before it was recorded, are skipped)."""
    by_date = {}
    for hs in by_case.values():
        for h in hs:
            if h.get("stack"):
                by_date[h["date"]] = h["stack"]
    out, prev = {}, None
    for date in sorted(by_date):
        if prev is not None and by_date[date] != prev:
            out[date] = f"{prev} \u2192 {by_date[date]}"
        prev = by_date[date]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("result")
    p.add_argument("compare")
    p.add_argument("history")
    p.add_argument("--date", default=datetime.datetime.now(datetime.timezone.utc)
                   .strftime("%Y-%m-%dT%H:%M:%SZ"))
    a = p.parse_args()
    result = load(a.result, "result")
    compare = load(a.compare, "compare report")
    ab = result.get("arbench")
    if not isinstance(ab, dict) or "cases" not in ab:
        fail(f"{a.result}: no arbench.cases (not written by `arbench run`)")
    prov = ab.get("provenance", {})
    verdicts = {c["name"]: c for c in compare.get("cases", [])}
    lines = []
    for c in ab["cases"]:
        v = verdicts.get(c["name"], {})
        lines.append({
            "date": a.date, "revision": prov.get("arbench_revision", ""),
            "fingerprint": prov.get("fingerprint", ""), "machine": stack_info.machine_id(prov),
            "stack": stack_info.short(prov), "backend": prov.get("backend", ""),
            "timing": prov.get("timing", ""), "case": c["name"],
            "status": c.get("status", "ok"), "median_us": compact(c.get("median_us"), 6),
            "p10_us": compact(c.get("p10_us"), 6), "p90_us": compact(c.get("p90_us"), 6),
            "samples": len(c.get("samples_us", [])), "noise": compact(c.get("noise"), 3),
            "baseline_median_us": compact(v.get("base_median_us"), 6),
            "ratio": compact(v.get("ratio")), "p_value": compact(v.get("p_value"), 3),
            "verdict": v.get("verdict", "new"), "regression": bool(v.get("counted", False)),
            "not_counted": v.get("not_counted", ""),
            "device": device_marker(c.get("device_state")),
        })
        if isinstance(c.get("pct_of_sol"), (int, float)):  # its speed-of-light floor, night by night
            sol = v.get("sol") or {}
            lines[-1].update(sol_us=compact(c.get("sol_us"), 6), pct_of_sol=compact(c["pct_of_sol"]),
                             sol_fell=bool(sol.get("fell", False)))
        if "max_abs_err" in c or "rms_rel_err" in c:  # a lossy variant: its accuracy, night by night
            lines[-1].update(max_abs_err=compact(c.get("max_abs_err")), rms_rel_err=compact(c.get("rms_rel_err")),
                             error_rose=bool((v.get("accuracy") or {}).get("rose", False)))
    os.makedirs(os.path.dirname(os.path.abspath(a.history)), exist_ok=True)
    # One write of whole lines: a crash cannot leave half a night in the file.
    with open(a.history, "a") as f:
        f.write("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    print(f"history: {len(lines)} line(s) appended to {a.history}")


if __name__ == "__main__":
    main()
