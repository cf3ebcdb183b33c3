#!/usr/bin/python3
"""Plots from an arbench result (and optionally the nightly history and published references).

Writes, each as PNG and SVG, into --out (default: plots/ next to the result):
  latency        median isolated latency vs message size per variant, one panel per GPU count,
                 log-log, p10-p90 band; under each variant's curve its speed-of-light floor
                 (sol_us, dotted, same colour) where the result recorded one; published curves
                 dashed when --reference is given
  busbw          bus bandwidth (nccl-tests definition) vs message size, one panel per GPU count
  fused_speedup  allreduce+RMSNorm: each fused variant's speedup over the best unfused one
                 (the speedup_vs_unfused counter's definition) vs tokens (when the result has
                 both)
  winners        winner map: message size x GPU count, each cell coloured by the fastest variant
  sms_latency, beside_slowdown  latency against the SMs each variant takes, and the background's
                 slowdown per variant beside it (`run --beside`): scripts/plot_load.py
  phases_gpus<N> where the time of one op goes (`arbench run --phases`), one figure per GPU
                 count: a panel per variant, a stacked bar per message size (entry skew,
                 staging, wait for peers, reduce+store, exit skew of the median recorded op)
                 (only when the result has phase timelines)
  history        nightly medians relative to each case's first night, regressions, uncounted
                 slower cases and abnormal device states marked (only with --history)
Run with Debian's /usr/bin/python3 (python3-matplotlib); prints one line per file written.
Exit: 0 written · 2 unusable input (a result that is not one, --formats naming a format
matplotlib cannot write) · 3 no matplotlib in this Python.
"""
import argparse
import json
import math
import os
import re
import sys
import textwrap
from collections import defaultdict

try:
    import matplotlib
except ImportError:
    if __name__ != "__main__":
        raise  # report.py imports this file and goes on without the curves
    print(f"plot.py: no matplotlib in {sys.executable}; apt install python3-matplotlib", file=sys.stderr)
    sys.exit(3)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

# scripts/history.py (the history's format) sits beside this file; put it on the path, so the
# import works however plot.py is loaded (run as a script, or imported from elsewhere by a test).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from history import load_history, stack_changes  # noqa: E402
import plot_load  # noqa: E402

NAME_RE = re.compile(
    r"^(?P<family>allreduce|allreduce_rmsnorm)/(?P<variant>.+)/(?P<dtype>bf16|fp16|fp32)/"
    r"gpus:(?P<world>\d+)/(?:bytes:(?P<bytes>\d+)|tokens:(?P<tokens>\d+)/hidden:(?P<hidden>\d+))"
    r"(?P<inplace>/inplace)?(?:/skew:(?P<skew>[0-9.eE+-]+))?(?P<cold>/cold)?$")
PHASE_PARTS = [("entry_skew", "entry skew"), ("staging", "staging"), ("wait", "wait for peers"),
               ("reduce", "reduce+store"), ("exit_skew", "exit skew")]
DEFAULT_REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results",
                                 "reference", "published-pcie-allreduce.json")


def fail(msg):
    print(f"plot.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load_result(path):
    """Cases as dicts with family, variant, dtype, world, bytes, tokens, hidden, median_us,
    p10_us, p90_us, busbw_GBps, sol_us (the floor, None without one), sms (None when unknown),
    beside (the --beside figures, None without); plus (timing, backend)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read a result JSON ({e})")
    ab = doc.get("arbench") if isinstance(doc, dict) else None
    prov = (ab or {}).get("provenance", {})
    raw = (ab or {}).get("cases")
    if raw is None:  # plain Google Benchmark JSON: the name holds the shape
        raw = [{"name": b.get("run_name", b.get("name", "")), "median_us": b.get("real_time")}
               for b in doc.get("benchmarks", []) if b.get("run_type") != "aggregate"]
    cases = []
    for c in raw:
        m = NAME_RE.match(c.get("name", ""))
        if not m or c.get("status", "ok") != "ok" or not c.get("median_us"):
            continue
        g = m.groupdict()
        # In-place runs are separate curves (and winner-map candidates).
        variant = g["variant"] + (" (in-place)" if g["inplace"] else "") + (
            f" skew:{g['skew']}" if g["skew"] else "") + (" (cold cache)" if g["cold"] else "")
        case = {"name": c["name"], "family": g["family"], "variant": variant,
                "dtype": g["dtype"], "world": int(g["world"]), "bytes": int(g["bytes"] or 0),
                "tokens": int(g["tokens"] or 0), "hidden": int(g["hidden"] or 0),
                "median_us": float(c["median_us"]), "phases": c.get("phases")}
        case["p10_us"] = float(c.get("p10_us") or case["median_us"])
        case["p90_us"] = float(c.get("p90_us") or case["median_us"])
        bw = c.get("busbw_GBps")
        if not bw and case["bytes"]:
            n = case["world"]
            bw = case["bytes"] / (case["median_us"] * 1e3) * 2 * (n - 1) / n
        case["busbw_GBps"] = float(bw or 0)
        case["sms"] = c["sms"] if isinstance(c.get("sms"), int) and not isinstance(c.get("sms"), bool) else None
        case["beside"] = c.get("beside") if isinstance(c.get("beside"), dict) else None
        sol = c.get("sol_us")
        case["sol_us"] = float(sol) if isinstance(sol, (int, float)) and sol > 0 else None
        cases.append(case)
    if not cases:
        fail(f"{path}: no successful arbench case to plot")
    return cases, prov.get("timing", ""), prov.get("backend", "")


def colour_map(cases):
    variants = sorted({c["variant"] for c in cases})
    palette = plt.get_cmap("tab10" if len(variants) <= 10 else "tab20").colors
    return {v: palette[i % len(palette)] for i, v in enumerate(variants)}


def size_label(b):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def bytes_axis(ax):
    """Log2 x axis labelled 1K, 4K, 1M... (powers of 4 keep the labels apart)."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(LogLocator(base=4))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda x, _: size_label(int(round(x))).replace(" ", "").replace("iB", "")))


def timing_note(timing, backend):
    return " (CPU timing, host backend: not GPU numbers)" if timing == "cpu" else (
        f" ({backend} backend)" if backend else "")


def file_sink(out_dir, formats):
    """Where finished figures go: PNG/SVG files in out_dir, each path printed. (report.py
    passes its own sink, which keeps the SVG text for the HTML page.)"""
    def sink(fig, stem, bottom=0.0):
        fig.tight_layout(rect=(0, bottom, 1, 1))
        for ext in formats:
            path = os.path.join(out_dir, f"{stem}.{ext}")
            fig.savefig(path, dpi=110)
            print(path)
        plt.close(fig)
    return sink


def suptitle(fig, text, **kwargs):
    """The figure's title, wrapped to the figure's width (one panel is narrow: a long title with
    its timing note would be cut at both edges)."""
    fig.suptitle(textwrap.fill(text, width=max(40, int(fig.get_figwidth() * 11))), **kwargs)


def panels(n):
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 4.2), squeeze=False)
    return fig, axes[0]


def reference_series(path, world):
    """Published latency curves for `world` GPUs: [(series, source, sizes, us)]."""
    try:
        with open(path) as f:
            ref = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: cannot read the reference file ({e})")
    out = []
    for s in ref.get("sets", []):
        if s.get("gpus") != world or s.get("unit") != "us" or "series" not in s:
            continue
        for name, points in s["series"].items():
            xs = sorted(int(k) for k in points)
            out.append((name, s["source"], xs, [points[str(x)] for x in xs]))
    return out


def plot_size_sweep(cases, colours, key, ylabel, title, log_y, reference, stem, args):
    ar = [c for c in cases if c["family"] == "allreduce"]
    if not ar:
        return
    worlds = sorted({c["world"] for c in ar})
    fig, axes = panels(len(worlds))
    sources = []  # cited once, numbered, under the panels
    for ax, world in zip(axes, worlds):
        floors = False
        by_variant = defaultdict(list)
        for c in ar:
            if c["world"] == world:
                by_variant[c["variant"]].append(c)
        for variant, pts in sorted(by_variant.items()):
            pts.sort(key=lambda c: c["bytes"])
            xs = [c["bytes"] for c in pts]
            ax.plot(xs, [c[key] for c in pts], marker="o", ms=3, label=variant,
                    color=colours[variant])
            if key == "median_us":
                ax.fill_between(xs, [c["p10_us"] for c in pts], [c["p90_us"] for c in pts],
                                color=colours[variant], alpha=0.15, lw=0)
                # The floor its schedule allows on this box (docs/speed-of-light.md): dotted, in
                # the variant's colour, out of the legend (one entry below says what dots mean).
                floor = [c for c in pts if c.get("sol_us")]
                if floor:
                    ax.plot([c["bytes"] for c in floor], [c["sol_us"] for c in floor], ls=":", lw=1.2,
                            color=colours[variant], label=f"_floor: {variant}")
                    floors = True
        if reference:
            for i, (name, source, xs, ys) in enumerate(reference_series(reference, world)):
                if source not in sources:
                    sources.append(source)
                ax.plot(xs, ys, ls=("--", ":", "-.")[i % 3], color="0.4", marker="x", ms=4,
                        label=f"published: {name} [{sources.index(source) + 1}]")
        if floors:
            ax.plot([], [], ls=":", lw=1.2, color="0.3", label="dotted: its floor (speed of light)")
        bytes_axis(ax)
        if log_y:
            ax.set_yscale("log")
        ax.set_title(f"{world} GPUs")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6 if reference else 7)
    suptitle(fig, title + timing_note(args.timing, args.backend), fontsize=10)
    if sources:
        fig.text(0.01, 0.005, "  ".join(f"[{i + 1}] {s}" for i, s in enumerate(sources)),
                 fontsize=7, color="0.3")
    args.sink(fig, stem, bottom=0.05 if sources else 0.0)


def plot_fused(cases, colours, args):
    fused = [c for c in cases if c["family"] == "allreduce_rmsnorm"]
    base = {}  # shape -> fastest unfused median: min(unfused-nccl, unfused-oneshot)
    for c in fused:
        if c["variant"].startswith("unfused-"):
            k = (c["world"], c["dtype"], c["hidden"], c["tokens"])
            base[k] = min(base.get(k, math.inf), c["median_us"])
    if not fused or not base:
        return
    worlds = sorted({c["world"] for c in fused})
    fig, axes = panels(len(worlds))
    styles = ["-", "--", ":", "-."]
    for ax, world in zip(axes, worlds):
        hiddens = sorted({c["hidden"] for c in fused if c["world"] == world})
        series = defaultdict(list)
        for c in fused:
            ref = base.get((c["world"], c["dtype"], c["hidden"], c["tokens"]))
            if c["world"] == world and ref and not c["variant"].startswith("unfused-"):
                series[(c["variant"], c["hidden"])].append((c["tokens"], ref / c["median_us"]))
        for (variant, hidden), pts in sorted(series.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3,
                    color=colours[variant], ls=styles[hiddens.index(hidden) % len(styles)],
                    label=f"{variant}, hidden {hidden}")
        ax.axhline(1.0, color="0.3", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{int(round(x))}"))
        ax.set_title(f"{world} GPUs")
        ax.set_xlabel("tokens")
        ax.set_ylabel("speedup over the best unfused variant (x)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    suptitle(fig, "allreduce + residual + RMSNorm" + timing_note(args.timing, args.backend),
                 fontsize=10)
    args.sink(fig, "fused_speedup")


def plot_winners(cases, colours, args):
    # Skewed cases (skew:N) answer another question: the map compares ranks arriving together.
    ar = [c for c in cases if c["family"] == "allreduce" and " skew:" not in c["variant"]]
    if not ar:
        return
    dtype = sorted({c["dtype"] for c in ar})[0]  # one map; the first dtype is representative
    ar = [c for c in ar if c["dtype"] == dtype]
    worlds = sorted({c["world"] for c in ar})
    sizes = sorted({c["bytes"] for c in ar})
    best = {}
    for c in ar:
        k = (c["world"], c["bytes"])
        if k not in best or c["median_us"] < best[k]["median_us"]:
            best[k] = c
    variants = sorted({b["variant"] for b in best.values()})
    cmap = ListedColormap([colours[v] for v in variants])
    grid = [[variants.index(best[(w, s)]["variant"]) if (w, s) in best else math.nan
             for s in sizes] for w in worlds]
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(sizes) + 2), 1.0 + 0.7 * len(worlds)))
    ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=len(variants) - 0.5, aspect="auto")
    ax.set_xticks(range(len(sizes)), [size_label(s) for s in sizes], rotation=60, fontsize=7)
    ax.set_yticks(range(len(worlds)), [f"{w} GPUs" for w in worlds])
    ax.set_xlabel("message size")
    ax.legend(handles=[Patch(color=colours[v], label=v) for v in variants], fontsize=7,
              loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"fastest allreduce variant, {dtype}" + timing_note(args.timing, args.backend),
                 fontsize=9)
    args.sink(fig, "winners")


def plot_phases(cases, args):
    """One figure per GPU count: per variant, a stacked bar per size of the median recorded op's
    breakdown (JSON phases.breakdown_us); the five parts add up to its span."""
    timed = [c for c in cases if isinstance(c.get("phases"), dict) and "breakdown_us" in c["phases"]]
    colours = plt.get_cmap("tab10").colors
    for world in sorted({c["world"] for c in timed}):
        mine = [c for c in timed if c["world"] == world]
        variants = sorted({(c["family"], c["variant"]) for c in mine})
        fig, axes = panels(len(variants))
        for ax, (family, variant) in zip(axes, variants):
            rows = sorted((c for c in mine if (c["family"], c["variant"]) == (family, variant)),
                          key=lambda c: (c["bytes"], c["tokens"]))
            labels = [size_label(c["bytes"]) if family == "allreduce" else f"{c['tokens']} tok"
                      for c in rows]
            bottom = [0.0] * len(rows)
            for i, (key, text) in enumerate(PHASE_PARTS):
                h = [float(c["phases"]["breakdown_us"].get(key, 0)) for c in rows]
                ax.bar(range(len(rows)), h, bottom=bottom, color=colours[i], label=text)
                bottom = [b + v for b, v in zip(bottom, h)]
            ax.set_xticks(range(len(rows)), labels, rotation=45, ha="right")
            ax.set_title(f"{variant}" + ("" if family == "allreduce" else " (AR+RMSNorm)"))
            ax.set_ylabel("us (first entry to last exit)")
            ax.grid(True, axis="y", alpha=0.3)
        handles, texts = axes[0].get_legend_handles_labels()
        fig.legend(handles, texts, loc="lower center", ncol=len(PHASE_PARTS), fontsize=8)
        suptitle(fig, f"where one op's time goes, {world} GPUs" + timing_note(args.timing, args.backend),
                     fontsize=10)
        args.sink(fig, f"phases_gpus{world}", bottom=0.08)


def is_regression(line):
    """A history line that failed its night's gate (older lines lack "regression")."""
    return line.get("regression", line.get("verdict") in ("slower", "failed"))


def plot_history(by_case, title, args):
    """Each case's nightly median relative to its first night, the geometric mean, and marks:
    regressions (failed the night's gate), slower cases the gate did not count, and cases whose
    device state was abnormal that night."""
    if not by_case:
        fail(f"{title}: no history lines to plot")
    dates = sorted({h["date"] for hs in by_case.values() for h in hs})
    x_of = {d: i for i, d in enumerate(dates)}
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(dates) + 3), 4.2))
    per_night = defaultdict(list)
    for name, hs in sorted(by_case.items()):
        first = hs[0]["median_us"]
        xs = [x_of[h["date"]] for h in hs]
        ys = [h["median_us"] / first for h in hs]
        ax.plot(xs, ys, color="0.6", lw=0.7, alpha=0.6)
        for h, x, y in zip(hs, xs, ys):
            per_night[x].append(y)
            if is_regression(h):
                ax.plot(x, y, "x", color="red", ms=8, mew=2)
            elif h.get("verdict") == "slower":
                ax.plot(x, y, "o", mfc="none", mec="tab:blue", ms=7, mew=1.2)
            if h.get("device"):
                ax.plot(x, y, "^", mfc="none", mec="darkorange", ms=9, mew=1.5)
    nights = sorted(per_night)
    geo = [math.exp(sum(map(math.log, per_night[x])) / len(per_night[x])) for x in nights]
    ax.plot(nights, geo, color="black", lw=2, marker="o", ms=4)
    ax.axhline(1.0, color="0.3", lw=0.8)
    for date in stack_changes(by_case):  # a new driver/CUDA/NCCL: a dashed line before that night
        ax.axvline(x_of[date] - 0.5, color="#8e24aa", ls="--", lw=1.2)
    ys = [y for v in per_night.values() for y in v]
    if max(ys) / min(ys) > 3:  # CPU timings move by multiples: a log axis keeps 1/2x and 2x apart
        ax.set_yscale("log", base=2)
    ax.set_xticks(range(len(dates)), [d[:16] for d in dates], rotation=45, ha="right",
                  fontsize=7)
    ax.set_ylabel("median / first night's median")
    ax.legend(handles=[Line2D([], [], color="0.6", label="one case"),
                       Line2D([], [], color="black", marker="o", label="geometric mean"),
                       Line2D([], [], color="red", marker="x", ls="", mew=2,
                              label="regression (failed the night's gate)"),
                       Line2D([], [], color="tab:blue", marker="o", mfc="none", ls="",
                              label="slower, not counted"),
                       Line2D([], [], color="darkorange", marker="^", mfc="none", ls="",
                              label="device state abnormal"),
                       Line2D([], [], color="#8e24aa", ls="--", label="stack changed (driver, CUDA, NCCL)")],
              fontsize=7)
    ax.set_title(f"nightly history: {title}", fontsize=9)
    ax.grid(True, alpha=0.3)
    args.sink(fig, "history")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("result", help="result JSON written by `arbench run`")
    p.add_argument("--out", help="output folder (default: plots/ next to the result)")
    p.add_argument("--history", help="results/history/<fingerprint>.jsonl to plot")
    p.add_argument("--reference", nargs="?", const=DEFAULT_REFERENCE,
                   help="draw published curves (default file: %(const)s)")
    p.add_argument("--formats", default="png,svg", help="comma-separated (default png,svg)")
    args = p.parse_args()
    args.formats = [f.strip().lower() for f in args.formats.split(",") if f.strip()]
    writable = plt.figure().canvas.get_supported_filetypes()  # what this matplotlib can write
    plt.close("all")
    unknown = [f for f in args.formats if f not in writable]
    if unknown or not args.formats:
        fail(f"--formats {','.join(unknown) or repr('')}: "
             f"{'not a format matplotlib writes' if unknown else 'no format given'} ({' '.join(sorted(writable))})")
    args.out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.result)), "plots")
    os.makedirs(args.out, exist_ok=True)
    cases, args.timing, args.backend = load_result(args.result)
    args.sink = file_sink(args.out, args.formats)
    plot_result(cases, args)
    if args.history:
        plot_history(load_history(args.history), os.path.basename(args.history), args)


def plot_result(cases, args):
    """Every plot of one result, each handed to args.sink (args: timing, backend, reference)."""
    colours = colour_map(cases)
    plot_size_sweep(cases, colours, "median_us", "median latency (us)",
                    "allreduce latency (isolated, median; band p10-p90)", True, args.reference,
                    "latency", args)
    plot_size_sweep(cases, colours, "busbw_GBps", "bus bandwidth (GB/s)",
                    "allreduce bus bandwidth", False, None, "busbw", args)
    plot_fused(cases, colours, args)
    plot_winners(cases, colours, args)
    plot_phases(cases, args)
    plot_load.plot_sms(cases, colours, args, panels, suptitle, timing_note)
    plot_load.plot_beside(cases, colours, args, panels, suptitle, timing_note)


if __name__ == "__main__":
    main()
