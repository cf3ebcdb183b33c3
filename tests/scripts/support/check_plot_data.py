#!/usr/bin/python3
"""Checks WHAT scripts/plot.py plots, not only that it writes images: runs plot.py's main() with
its save() wrapped to record every figure's data (each panel's title, each line's label and
points, the winner map's cells and legend), then compares that data with values recomputed here
from the result JSON (and the history and reference files):
  latency    one line per variant and GPU count: (bytes, median_us) of exactly that variant's
             cases; its floor dotted, in its colour ("_floor: VARIANT", out of the legend):
             (bytes, sol_us) of its cases with one, and no floor line for a variant without;
             published curves, labelled "published: ...", with the reference file's points
  busbw      the same with busbw_GBps
  winners    each cell is the variant with the lowest median at that size and GPU count
  fused_speedup  per (variant, hidden): (tokens, min over the unfused variants / median)
  history    the black line: per night, the geometric mean of median / first night's median
  phases_gpus<N>  per (family, variant) panel, one bar series per phase part (entry skew,
             staging, wait, reduce, exit skew, in that order), stacked: per size, the height is
             the case's phases.breakdown_us[part] and the bottom the sum of the parts below it
  sms_latency, beside_slowdown  check_plot_load.py
usage: check_plot_data.py RESULT.json OUT_DIR HISTORY.jsonl|- [REFERENCE.json]
(HISTORY "-": no history given to plot.py, and none checked.)
Exit 0 when every figure matches, 1 with one line per mismatch otherwise.
"""
import importlib.util
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_plot_load import check_load_figures  # noqa: E402  (sms_latency, beside_slowdown)

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
problems = []


def check(ok, what):
    if not ok:
        problems.append(what)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def load_plot_module():
    spec = importlib.util.spec_from_file_location("plot", os.path.join(REPO, "scripts", "plot.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def describe(fig):
    axes = []
    for ax in fig.axes:
        legend = ax.get_legend()
        axes.append({
            "title": ax.get_title(),
            "lines": [(ln.get_label(), [float(x) for x in ln.get_xdata()], [float(y) for y in ln.get_ydata()],
                       ln.get_color(), ln.get_linestyle()) for ln in ax.get_lines()],
            "image": [list(row) for row in ax.images[0].get_array()] if ax.images else None,
            "legend": [t.get_text() for t in legend.get_texts()] if legend else [],
            "bars": [(c.get_label(), [float(b.get_height()) for b in c.patches], [float(b.get_y()) for b in c.patches])
                     for c in ax.containers],
        })
    return axes


def lines_by_label(panel):
    return {label: (xs, ys) for label, xs, ys, _, _ in panel["lines"] if not label.startswith("_")}


def expected_cases(result):
    out = []
    for c in json.load(open(result))["arbench"]["cases"]:
        if c.get("status", "ok") != "ok" or not c.get("median_us"):
            continue
        parts = c["name"].split("/")
        skew = [p for p in parts if p.startswith("skew:")]
        # plot.py's series: in-place, skewed (skew:N as in the name) and cold-cache cases apart
        variant = c["variant"] + (" (in-place)" if "inplace" in parts else "") + (
            f" {skew[0]}" if skew else "") + (" (cold cache)" if c.get("cache") == "cold" else "")
        out.append(dict(c, variant=variant))
    return out


def check_size_sweep(figs, stem, cases, key, reference):
    ar = [c for c in cases if c["family"] == "allreduce"]
    worlds = sorted({c["world"] for c in ar})
    panels = figs.get(stem)
    check(panels is not None, f"{stem}: not plotted")
    if panels is None:
        return
    check([p["title"] for p in panels] == [f"{w} GPUs" for w in worlds],
          f"{stem}: panels {[p['title'] for p in panels]}, want one per GPU count {worlds}")
    for panel, world in zip(panels, worlds):
        got = lines_by_label(panel)
        want = defaultdict(list)
        for c in ar:
            if c["world"] == world:
                want[c["variant"]].append((c["bytes"], c[key]))
        measured = {k: v for k, v in got.items() if not k.startswith(("published: ", "dotted: "))}
        check(set(measured) == set(want), f"{stem} {world} GPUs: series {sorted(measured)}, want {sorted(want)}")
        for variant, pts in want.items():
            if variant not in got:
                continue
            pts.sort()
            xs, ys = got[variant]
            check(xs == [float(b) for b, _ in pts], f"{stem} {world} GPUs {variant}: sizes {xs}")
            check(len(ys) == len(pts) and all(close(y, v) for y, (_, v) in zip(ys, pts)),
                  f"{stem} {world} GPUs {variant}: values {ys[:4]}..., want {[v for _, v in pts][:4]}...")
        if key == "median_us":  # the floors: (bytes, sol_us), dotted, the variant's colour
            floors = {label[len("_floor: "):]: (xs, ys, colour, style)
                      for label, xs, ys, colour, style in panel["lines"] if label.startswith("_floor: ")}
            colours = {label: colour for label, _, _, colour, _ in panel["lines"]}
            want_floor = defaultdict(list)
            for c in ar:
                if c["world"] == world and isinstance(c.get("sol_us"), (int, float)) and c["sol_us"] > 0:
                    want_floor[c["variant"]].append((c["bytes"], c["sol_us"]))
            check(set(floors) == set(want_floor),
                  f"{stem} {world} GPUs: floors of {sorted(floors)}, want {sorted(want_floor)}")
            for variant, pts in want_floor.items():
                if variant not in floors:
                    continue
                pts.sort()
                xs, ys, colour, style = floors[variant]
                check(xs == [float(b) for b, _ in pts] and all(close(y, v) for y, (_, v) in zip(ys, pts)),
                      f"{stem} {world} GPUs {variant}: floor points {list(zip(xs, ys))[:3]}..., want {pts[:3]}...")
                check(style == ":" and colour == colours.get(variant),
                      f"{stem} {world} GPUs {variant}: floor not dotted in the variant's colour")
            check(not want_floor or any(label.startswith("dotted: ") for label in panel["legend"]),
                  f"{stem} {world} GPUs: floors drawn, but the legend does not say what the dots are")
        if reference and key == "median_us":
            ref = json.load(open(reference))
            for s in ref.get("sets", []):
                if s.get("gpus") != world or s.get("unit") != "us" or "series" not in s:
                    continue
                for name, points in s["series"].items():
                    label = [k for k in got if k.startswith(f"published: {name} [")]
                    check(len(label) == 1, f"{stem} {world} GPUs: published curve '{name}' not drawn")
                    if label:
                        xs, ys = got[label[0]]
                        want_x = sorted(int(k) for k in points)
                        check(xs == [float(x) for x in want_x] and ys == [float(points[str(x)]) for x in want_x],
                              f"{stem} {world} GPUs: published '{name}' points differ from the reference file")


def check_winners(figs, cases):
    # ranks arriving together only: a skewed case answers another question (docs/output.md)
    ar = [c for c in cases if c["family"] == "allreduce" and not c.get("skew_us")]
    dtype = sorted({c["dtype"] for c in ar})[0]
    ar = [c for c in ar if c["dtype"] == dtype]
    best = {}
    for c in ar:
        k = (c["world"], c["bytes"])
        if k not in best or c["median_us"] < best[k]["median_us"]:
            best[k] = c
    panels = figs.get("winners")
    check(panels is not None and panels[0]["image"] is not None, "winners: no map plotted")
    if not panels:
        return
    grid, legend = panels[0]["image"], panels[0]["legend"]
    worlds, sizes = sorted({w for w, _ in best}), sorted({s for _, s in best})
    check(len(grid) == len(worlds) and all(len(r) == len(sizes) for r in grid), "winners: grid shape")
    for i, w in enumerate(worlds):
        for j, s in enumerate(sizes):
            if (w, s) not in best or i >= len(grid) or j >= len(grid[i]):
                continue
            cell = grid[i][j]
            got = legend[int(cell)] if not math.isnan(cell) and int(cell) < len(legend) else None
            check(got == best[(w, s)]["variant"],
                  f"winners {w} GPUs {s} B: cell says {got}, fastest is {best[(w, s)]['variant']}")


def check_fused(figs, cases):
    fused = [c for c in cases if c["family"] == "allreduce_rmsnorm"]
    base = {}
    for c in fused:
        if c["variant"].startswith("unfused-"):
            k = (c["world"], c["dtype"], c["hidden"], c["tokens"])
            base[k] = min(base.get(k, math.inf), c["median_us"])
    if not base:
        check("fused_speedup" not in figs, "fused_speedup: plotted without unfused cases")
        return
    panels = figs.get("fused_speedup")
    check(panels is not None, "fused_speedup: not plotted")
    if panels is None:
        return
    worlds = sorted({c["world"] for c in fused})
    for panel, world in zip(panels, worlds):
        got = lines_by_label(panel)
        want = defaultdict(list)
        for c in fused:
            ref = base.get((c["world"], c["dtype"], c["hidden"], c["tokens"]))
            if c["world"] == world and ref and not c["variant"].startswith("unfused-"):
                want[f"{c['variant']}, hidden {c['hidden']}"].append((c["tokens"], ref / c["median_us"]))
        check(set(got) == set(want), f"fused_speedup {world} GPUs: series {sorted(got)}, want {sorted(want)}")
        for label, pts in want.items():
            if label in got:
                pts.sort()
                xs, ys = got[label]
                check(xs == [float(t) for t, _ in pts] and all(close(y, v) for y, (_, v) in zip(ys, pts)),
                      f"fused_speedup {world} GPUs {label}: points differ")


def check_history(figs, history):
    by_case = defaultdict(list)
    for line in open(history):
        if line.strip():
            h = json.loads(line)
            if h.get("median_us"):
                by_case[h["case"]].append(h)
    per_night = defaultdict(list)
    dates = sorted({h["date"] for hs in by_case.values() for h in hs})
    for hs in by_case.values():
        hs.sort(key=lambda h: h["date"])
        for h in hs:
            per_night[dates.index(h["date"])].append(h["median_us"] / hs[0]["median_us"])
    want = [math.exp(sum(map(math.log, per_night[x])) / len(per_night[x])) for x in sorted(per_night)]
    panels = figs.get("history")
    check(panels is not None, "history: not plotted")
    if panels is None:
        return
    geo = [ys for _, xs, ys, colour, _ in panels[0]["lines"] if colour == "black"]
    check(len(geo) == 1 and len(geo[0]) == len(want) and all(close(a, b) for a, b in zip(geo[0], want)),
          f"history: geometric-mean line {geo}, want {want}")


PHASE_KEYS = ["entry_skew", "staging", "wait", "reduce", "exit_skew"]  # docs/latency-breakdown.md


def check_phases(figs, cases):
    timed = [c for c in cases if isinstance(c.get("phases"), dict) and "breakdown_us" in c["phases"]]
    worlds = sorted({c["world"] for c in timed})
    plotted = sorted(k for k in figs if k.startswith("phases_gpus"))
    check(plotted == sorted(f"phases_gpus{w}" for w in worlds),
          f"phases: figures {plotted}, want one per GPU count with timelines {worlds}")
    for world in worlds:
        panels = figs.get(f"phases_gpus{world}")
        if panels is None:
            continue
        mine = [c for c in timed if c["world"] == world]
        keys = sorted({(c["family"], c["variant"]) for c in mine})
        titles = [v + ("" if f == "allreduce" else " (AR+RMSNorm)") for f, v in keys]
        check([p["title"] for p in panels] == titles, f"phases {world} GPUs: panels {[p['title'] for p in panels]}, "
              f"want {titles}")
        for panel, key in zip(panels, keys):
            rows = sorted((c for c in mine if (c["family"], c["variant"]) == key), key=lambda c: (c["bytes"], c["tokens"]))
            bars = panel["bars"]
            what = f"phases {world} GPUs {key[1]}"
            check(len(bars) == len(PHASE_KEYS), f"{what}: {len(bars)} bar series, want {len(PHASE_KEYS)}")
            below = [0.0] * len(rows)
            for (label, heights, bottoms), part in zip(bars, PHASE_KEYS):
                want = [float(c["phases"]["breakdown_us"].get(part, 0)) for c in rows]
                check(len(heights) == len(want) and all(close(h, w) for h, w in zip(heights, want)),
                      f"{what} {part} ({label}): heights {heights}, want {want}")
                check(len(bottoms) == len(below) and all(close(b, w) for b, w in zip(bottoms, below)),
                      f"{what} {part} ({label}): stacked on {bottoms}, want {below}")
                below = [b + w for b, w in zip(below, want)]


def main():
    result, out, history = sys.argv[1:4]
    history = None if history == "-" else history
    reference = sys.argv[4] if len(sys.argv) > 4 else None
    plot = load_plot_module()
    figs = {}
    file_sink = plot.file_sink

    def recording_file_sink(out_dir, formats):  # every finished figure passes through the sink
        write = file_sink(out_dir, formats)

        def sink(fig, stem, bottom=0.0):
            figs[stem] = describe(fig)
            write(fig, stem, bottom)
        return sink

    plot.file_sink = recording_file_sink
    sys.argv = ["plot.py", result, "--out", out, "--formats", "png"] + (["--history", history] if history else [])
    if reference:
        sys.argv += ["--reference", reference]
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            plot.main()
        finally:
            sys.stdout = stdout
    cases = expected_cases(result)
    check_size_sweep(figs, "latency", cases, "median_us", reference)
    check_size_sweep(figs, "busbw", cases, "busbw_GBps", None)
    check_winners(figs, cases)
    check_fused(figs, cases)
    if history:
        check_history(figs, history)
    check_phases(figs, cases)
    check_load_figures(figs, cases, check)
    for p in problems:
        print(f"FAIL: {os.path.basename(result)}: {p}")
    print(f"{os.path.basename(result)}: plotted data checked, {len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
