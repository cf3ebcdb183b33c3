"""check_plot_data.py's checks of plot.py's load figures (scripts/plot_load.py), from values
recomputed here from the result's cases:
  sms_latency      one panel per GPU count with `sms`; per variant a line through (sms, latency)
                   of exactly its cases with `sms`, in size order; latency = beside.median_us when
                   any case has --beside figures, else median_us
  beside_slowdown  one panel per GPU count with --beside figures; a bar per variant (sorted): the
                   median over its cases of 100 x beside.background_slowdown
A figure drawn without its data, or missing with it, is a problem too."""
import math
import statistics
from collections import defaultdict


def _close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def check_load_figures(figs, cases, check):
    with_sms = [c for c in cases if isinstance(c.get("sms"), int) and not isinstance(c.get("sms"), bool)]
    loaded = any(isinstance(c.get("beside"), dict) for c in with_sms)
    panels = figs.get("sms_latency")
    check((panels is not None) == bool(with_sms),
          f"sms_latency: {'not plotted' if panels is None else 'plotted'} with {len(with_sms)} case(s) recording sms")
    if panels is not None and with_sms:
        worlds = sorted({c["world"] for c in with_sms})
        check([p["title"] for p in panels] == [f"{w} GPUs" for w in worlds],
              f"sms_latency: panels {[p['title'] for p in panels]}, want one per GPU count {worlds}")
        for panel, world in zip(panels, worlds):
            want = defaultdict(list)
            for c in sorted((c for c in with_sms if c["world"] == world), key=lambda c: (c.get("bytes", 0), c.get("tokens", 0))):
                if loaded and not isinstance(c.get("beside"), dict):
                    continue
                want[c["variant"]].append((float(c["sms"]), float(c["beside"]["median_us"] if loaded else c["median_us"])))
            got = {label: list(zip(xs, ys)) for label, xs, ys, _, _ in panel["lines"] if not label.startswith("_")}
            check(set(got) == set(want), f"sms_latency {world} GPUs: series {sorted(got)}, want {sorted(want)}")
            for v, pts in want.items():
                g = got.get(v, [])
                check(len(g) == len(pts) and all(x == wx and _close(y, wy) for (x, y), (wx, wy) in zip(g, pts)),
                      f"sms_latency {world} GPUs {v}: points {g[:3]}..., want {pts[:3]}...")
    slowed = [c for c in cases if isinstance(c.get("beside"), dict)
              and isinstance(c["beside"].get("background_slowdown"), (int, float))]
    panels = figs.get("beside_slowdown")
    check((panels is not None) == bool(slowed),
          f"beside_slowdown: {'not plotted' if panels is None else 'plotted'} with {len(slowed)} case(s) measured beside")
    if panels is None or not slowed:
        return
    worlds = sorted({c["world"] for c in slowed})
    check([p["title"] for p in panels] == [f"{w} GPUs" for w in worlds],
          f"beside_slowdown: panels {[p['title'] for p in panels]}, want one per GPU count {worlds}")
    for panel, world in zip(panels, worlds):
        per = defaultdict(list)
        for c in slowed:
            if c["world"] == world:
                per[c["variant"]].append(100.0 * c["beside"]["background_slowdown"])
        want = [statistics.median(per[v]) for v in sorted(per)]
        heights = panel["bars"][0][1] if panel["bars"] else []
        check(len(heights) == len(want) and all(_close(h, w) for h, w in zip(heights, want)),
              f"beside_slowdown {world} GPUs: bars {heights}, want {want} (variants {sorted(per)})")
