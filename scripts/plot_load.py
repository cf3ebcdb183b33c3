"""plot.py's figures of what a case costs a model running beside it (imported by plot.py):
  sms_latency      latency against the SMs one op takes (JSON `sms`), one panel per GPU count, a
                   line per variant through its sizes (in size order); the latency beside the
                   background load (`beside.median_us`) when the run had --beside, else the
                   isolated median (only when the result records `sms`)
  beside_slowdown  the background's slowdown (`beside.background_slowdown`, percent) per variant,
                   one panel per GPU count, a bar per variant: the median over its cases, its range
                   as an error bar (only when the result has --beside figures)
"""
import statistics


def under_load(case):
    """The case's latency beside the load (None without --beside figures)."""
    b = case.get("beside")
    return float(b["median_us"]) if isinstance(b, dict) and isinstance(b.get("median_us"), (int, float)) else None


def slowdown(case):
    b = case.get("beside")
    v = b.get("background_slowdown") if isinstance(b, dict) else None
    return float(v) if isinstance(v, (int, float)) else None


def sms_series(cases):
    """{world: {variant: [(sms, latency), ...] in size order}} and whether latency is under load."""
    with_sms = [c for c in cases if isinstance(c.get("sms"), int)]
    loaded = any(under_load(c) is not None for c in with_sms)
    out = {}
    for c in sorted(with_sms, key=lambda c: (c["bytes"], c["tokens"])):
        y = under_load(c) if loaded else c["median_us"]
        if y is None:
            continue
        out.setdefault(c["world"], {}).setdefault(c["variant"], []).append((c["sms"], y))
    return out, loaded


def slowdown_bars(cases):
    """{world: [(variant, median %, min %, max %), ...] by variant}."""
    per = {}
    for c in cases:
        s = slowdown(c)
        if s is not None:
            per.setdefault(c["world"], {}).setdefault(c["variant"], []).append(100.0 * s)
    return {w: [(v, statistics.median(xs), min(xs), max(xs)) for v, xs in sorted(d.items())]
            for w, d in per.items()}


def plot_sms(cases, colours, args, panels, suptitle, timing_note):
    series, loaded = sms_series(cases)
    if not series:
        return
    worlds = sorted(series)
    fig, axes = panels(len(worlds))
    for ax, world in zip(axes, worlds):
        for variant, pts in sorted(series[world].items()):
            ax.plot([x for x, _ in pts], [y for _, y in pts], "o-", color=colours[variant], label=variant,
                    markersize=3, linewidth=1)
        ax.set_yscale("log")
        ax.set_title(f"{world} GPUs")
        ax.set_xlabel("SMs one op takes (per GPU)")
        ax.set_ylabel("median latency beside the load (us)" if loaded else "median latency (us)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    what = "latency beside a model's kernels" if loaded else "latency"
    suptitle(fig, f"{what} against the SMs each variant takes" + timing_note(args.timing, args.backend), fontsize=10)
    args.sink(fig, "sms_latency")


def plot_beside(cases, colours, args, panels, suptitle, timing_note):
    bars = slowdown_bars(cases)
    if not bars:
        return
    worlds = sorted(bars)
    fig, axes = panels(len(worlds))
    for ax, world in zip(axes, worlds):
        rows = bars[world]
        heights = [m for _, m, _, _ in rows]
        ax.bar(range(len(rows)), heights, color=[colours[v] for v, _, _, _ in rows])
        # The range over sizes as a plain line (an errorbar would add a container of its own).
        ax.vlines(range(len(rows)), [lo for _, _, lo, _ in rows], [hi for _, _, _, hi in rows], color="black",
                  linewidth=1)
        ax.set_xticks(range(len(rows)), [v for v, _, _, _ in rows], rotation=60, ha="right", fontsize=7)
        ax.set_title(f"{world} GPUs")
        ax.set_ylabel("background work lost (%): median over sizes, range")
        ax.axhline(0, color="black", linewidth=0.5)
        ax.grid(True, axis="y", alpha=0.3)
    suptitle(fig, "the model's slowdown beside each variant (work per second, case running vs alone)" +
             timing_note(args.timing, args.backend), fontsize=10)
    args.sink(fig, "beside_slowdown")
