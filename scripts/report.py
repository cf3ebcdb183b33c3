#!/usr/bin/python3
"""One self-contained HTML page from a night of arbench: the verdict, tonight against the
baseline case by case (each row with its trend across nights), the history, and tonight's
curves and winners map.

usage: report.py RESULT.json [--compare COMPARE.json] [--history HISTORY.jsonl]
                 [--notes NOTES.txt] [--out report.html]

RESULT.json is `arbench run --out`; COMPARE.json `arbench compare --format json` of the
baseline against it; HISTORY.jsonl scripts/history.py's file (tonight included). The page
fetches nothing when viewed: charts are inline SVG (plot.py's, through matplotlib, and small
hand-made trend lines), styles and the one script are inline. The script checks the page
against itself (rows and trend lines drawn vs the case count written in) and says so in the
header, so a headless browser can tell a rendered page from a broken one
(tests/scripts/test_report.sh). Run with Debian's /usr/bin/python3; without matplotlib the
curves are left out with a note, the rest renders.
"""
import argparse
import html
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from history import fail, load, load_history, stack_changes  # noqa: E402  (scripts/history.py: its format)
import stack as stack_info  # noqa: E402  (scripts/stack.py: machine and software stack)

MAX_TREND_NIGHTS = 60  # the page shows at most this many nights of trend


def esc(x):
    return html.escape(str(x), quote=True)


def fmt_us(v):
    if not isinstance(v, (int, float)) or math.isnan(v):
        return ""
    return f"{v:.2f}" if v < 1000 else f"{v:,.0f}"


def fmt_change(ratio):
    if not isinstance(ratio, (int, float)) or math.isnan(ratio):
        return ""
    return f"{(ratio - 1) * 100:+.1f}%"


def fmt_p(p):
    return f"{p:.2g}" if isinstance(p, (int, float)) else ""


def fmt_noise(v):
    return f"±{v * 50:.1f}%" if isinstance(v, (int, float)) else ""


# ---- the rows: tonight's cases, with the comparison and the trend ------------------------

def device_marker(state):
    if not isinstance(state, dict):
        return ""
    return "; ".join(f"GPU {f.get('device')} {f.get('detail')}" for f in state.get("findings", []))


def error_of(case, verdict):
    """A lossy (low-precision) variant's error figures tonight and in the baseline, and whether
    compare found them risen beyond its threshold; None for an exact variant."""
    if "max_abs_err" not in case and "rms_rel_err" not in case:
        return None
    acc = verdict.get("accuracy") or {}
    return {"rms": case.get("rms_rel_err"), "abs": case.get("max_abs_err"),
            "base_rms": (acc.get("rms_rel_err") or {}).get("base"),
            "base_abs": (acc.get("max_abs_err") or {}).get("base"), "rose": bool(acc.get("rose", False))}


def fmt_error(e):
    """rms_rel_err in percent, tonight (and the baseline's); the max abs error in the tooltip."""
    if not e:
        return '<td class="num">exact</td>'
    def pct(v):
        return f"{v * 100:.3f}%" if isinstance(v, (int, float)) else "-"
    text = pct(e["rms"]) + (f' (base {pct(e["base_rms"])})' if e["base_rms"] is not None else "")
    tip = f'max abs error {e["abs"]} (baseline {e["base_abs"]})'
    cls = "num bad" if e["rose"] else "num"
    return f'<td class="{cls}" title="{esc(tip)}">{esc(text + (", rose" if e["rose"] else ""))}</td>'


def sol_of(case, verdict):
    """The case's % of SOL (100 x its speed-of-light floor / its median) tonight and in the
    baseline, whether compare found it fell, and whether the case beat its floor (a timing or
    pattern error, never a success); None for a case without a floor."""
    pct = case.get("pct_of_sol")
    if not isinstance(pct, (int, float)):
        return None
    sol = verdict.get("sol") or {}
    return {"pct": pct, "sol_us": case.get("sol_us"), "base_pct": sol.get("base_pct"),
            "fell": bool(sol.get("fell", False)), "counted": bool(sol.get("counted", False)),
            "below": bool((case.get("sol") or {}).get("below_floor", pct > 100))}


def fmt_sol(e):
    """% of SOL tonight (and the baseline's); `-` without a floor; marked when it fell or when
    the case beat its floor."""
    if not e:
        return '<td class="num">-</td>'
    text = f'{e["pct"]:.1f}%' + (f' (base {e["base_pct"]:.1f}%)' if isinstance(e["base_pct"], (int, float)) else "")
    if e["below"]:
        text += ", below its floor"
    elif e["fell"]:
        text += ", fell"
    tip = f'floor {fmt_us(e["sol_us"])} us' + (
        ": faster than its floor is a timing or pattern error, not a success" if e["below"] else "")
    cls = "num bad" if e["below"] or e["counted"] else ("num warn" if e["fell"] else "num")
    return f'<td class="{cls}" title="{esc(tip)}">{esc(text)}</td>'


def build_rows(result, compare, history):
    """One row per case of tonight's result, worst first (compare's order). A row needs
    attention when it failed the gate, failed its check, or its device state was abnormal or
    differed from the baseline's; a slower case under a correctness-only gate does not (CPU
    timings move by 2x between identical nights)."""
    correctness_only = (compare or {}).get("options", {}).get("correctness_only", False)
    verdicts = {c["name"]: c for c in (compare or {}).get("cases", [])}
    order = {c["name"]: i for i, c in enumerate((compare or {}).get("cases", []))}
    rows = []
    for c in result["arbench"]["cases"]:
        v = verdicts.get(c["name"], {})
        failed = c.get("status") == "failed"
        verdict = v.get("verdict") or ("failed" if failed else "new")
        row = {
            "name": c["name"], "verdict": verdict, "counted": bool(v.get("counted", failed)),
            "not_counted": v.get("not_counted", ""), "within_noise": v.get("within_noise", False),
            "base_us": v.get("base_median_us"), "new_us": c.get("median_us") if not failed else None,
            "ratio": v.get("ratio"), "p": v.get("p_value"), "noise": c.get("noise"),
            "reason": c.get("reason", "") or v.get("reason", ""),
            "device": device_marker(c.get("device_state")),
            "differences": v.get("device_differences", []),
            "trend": history.get(c["name"], [])[-MAX_TREND_NIGHTS:],
            "error": error_of(c, v),
            "sol": sol_of(c, v),
        }
        row["attention"] = bool(row["counted"] or row["device"] or row["differences"] or failed or
                                (row["sol"] and row["sol"]["below"]) or
                                (row["not_counted"] and not correctness_only))
        rows.append(row)
    rows.sort(key=lambda r: (order.get(r["name"], len(order)), r["name"]))
    return rows


VERDICT_CLASS = {"failed": "bad", "slower": "bad", "noisy": "meh", "same": "ok", "faster": "good",
                 "new": "meh"}


def verdict_cell(r):
    cls = VERDICT_CLASS.get(r["verdict"], "meh")
    text = r["verdict"]
    if r["verdict"] == "slower" and not r["counted"]:
        cls, text = ("meh", "slower, not gated") if r["not_counted"].startswith("timings not gated") else (
            "warn", "slower, not counted")
    if r["within_noise"]:
        text += " (within noise)"
    if r["error"] and r["error"]["rose"]:  # a rising error fails the gate whatever the time did
        cls, text = "bad", text + ", error rose"
    why = r["reason"] if r["verdict"] == "failed" else r["not_counted"]
    return f'<td class="v {cls}" title="{esc(why)}">{esc(text)}</td>'


def sparkline(r, width=150, height=30):
    """The case's median across nights: a line, tonight's point larger; red where the night's
    gate failed, blue ring where slower was not counted, orange triangle where the device state
    was abnormal. Hover a point for its night."""
    pts = [h for h in r["trend"] if isinstance(h.get("median_us"), (int, float))]
    if not pts and isinstance(r["new_us"], (int, float)):
        pts = [{"date": "tonight", "median_us": r["new_us"], "verdict": r["verdict"]}]
    svg = [f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="trend of {esc(r["name"])}">']
    if pts:
        ys = [h["median_us"] for h in pts]
        # At least +-10% of the median tall, so night-to-night noise stays flat and a move of
        # the gate's threshold (5%) takes a quarter of the height; up = slower.
        mid = (min(ys) + max(ys)) / 2
        half = max((max(ys) - min(ys)) / 2, 0.10 * mid, 1e-9)
        lo, span = mid - half, 2 * half
        pad = 5

        def xy(i, y):
            x = pad + (width - 2 * pad) * (i / (len(pts) - 1) if len(pts) > 1 else 0.5)
            return x, height - pad - (height - 2 * pad) * (y - lo) / span
        coords = [xy(i, y) for i, y in enumerate(ys)]
        if len(coords) > 1:
            svg.append('<polyline fill="none" stroke="#5b6b7f" stroke-width="1.3" points="' +
                       " ".join(f"{x:.1f},{y:.1f}" for x, y in coords) + '"/>')
        prev_stack = None
        for (x, _), h in zip(coords, pts):  # a new driver/CUDA/NCCL: a dashed line before its night
            if h.get("stack") and prev_stack and h["stack"] != prev_stack:
                why = esc(f"stack changed: {prev_stack} \u2192 {h['stack']}")
                svg.append(f'<g class="stack-change"><title>{why}</title><line x1="{x - 2:.1f}" y1="1" '
                           f'x2="{x - 2:.1f}" y2="{height - 1}" stroke="#8e24aa" stroke-width="1.2" '
                           'stroke-dasharray="3,2"/></g>')
            prev_stack = h.get("stack") or prev_stack
        for (x, y), h in zip(coords, pts):
            tip = f'{h["date"][:16]}: {fmt_us(h["median_us"])} us, {h.get("verdict", "")}'
            if h.get("device"):
                tip += f' (device: {h["device"]})'
            last = h is pts[-1]
            if h.get("regression"):
                mark = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.6" fill="#d62728"/>'
            elif h.get("verdict") == "slower":
                mark = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.4" fill="white" stroke="#1f77b4" '
                        'stroke-width="1.4"/>')
            else:
                mark = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{2.8 if last else 1.6}" fill="#33475b"/>'
            if h.get("device"):
                mark += (f'<path d="M{x:.1f},{y - 6.5:.1f} l4,7 h-8 z" fill="none" '
                         'stroke="#ff7f0e" stroke-width="1.4"/>')
            svg.append(f"<g><title>{esc(tip)}</title>{mark}</g>")
    svg.append("</svg>")
    return "".join(svg)


def case_table(rows, table_id):
    lossy = any(r["error"] for r in rows)  # the error column: only with a low-precision case
    floors = any(r["sol"] for r in rows)  # % of SOL: only when the run recorded floors
    head = ("<tr><th>case</th><th>trend (nights)</th><th>baseline us</th><th>tonight us</th>"
            "<th>change</th><th>p</th><th>noise</th>" + ("<th>% of SOL</th>" if floors else "") +
            ("<th>rms error</th>" if lossy else "") +
            "<th>verdict</th><th>device state</th></tr>")
    body = []
    for r in rows:
        device = "<br>".join(esc(x) for x in ([f'abnormal: {r["device"]}'] if r["device"] else []) +
                             r["differences"])
        body.append(
            f'<tr class="case-row{" attention" if r["attention"] else ""}">'
            f'<td class="name">{esc(r["name"])}</td><td>{sparkline(r)}</td>'
            f'<td class="num">{fmt_us(r["base_us"])}</td><td class="num">{fmt_us(r["new_us"])}</td>'
            f'<td class="num">{fmt_change(r["ratio"])}</td>'
            f'<td class="num">{fmt_p(r["p"])}</td>'
            f'<td class="num">{fmt_noise(r["noise"])}</td>{fmt_sol(r["sol"]) if floors else ""}'
            f'{fmt_error(r["error"]) if lossy else ""}'
            f'{verdict_cell(r)}'
            f'<td class="device">{device}</td></tr>')
    return (f'<table id="{table_id}" class="cases"><thead>{head}</thead><tbody>' + "".join(body) +
            "</tbody></table>")


# ---- charts from plot.py (matplotlib), as inline SVG ----------------------------------------

def figures(result_path, by_case, timing, backend):
    """{stem: svg text} of plot.py's figures, or (None, why) when matplotlib is missing."""
    try:
        import plot  # scripts/plot.py: imports matplotlib
    except ImportError as e:
        return None, f"matplotlib is missing ({e}); apt install python3-matplotlib"
    out = {}

    def sink(fig, stem, bottom=0.0):
        fig.tight_layout(rect=(0, bottom, 1, 1))
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
        text = buf.getvalue()
        out[stem] = text[text.index("<svg"):]  # drop the XML prologue and doctype
        plot.plt.close(fig)

    args = argparse.Namespace(timing=timing, backend=backend, reference=None, sink=sink)
    try:
        cases, _, _ = plot.load_result(result_path)
        plot.plot_result(cases, args)
    except SystemExit:  # plot.py said why (e.g. no successful case tonight); the page goes on
        out.clear()
    if by_case:
        plot.plot_history(by_case, "median relative to each case's first night", args)
    return out, "" if out else "no successful case to plot tonight"


# ---- the page ------------------------------------------------------------------------------

CSS = """
:root { --bad:#c62828; --warn:#ef6c00; --ok:#5f6b7a; --good:#2e7d32; --meh:#8d6e00; --line:#e3e7ee; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: #1d2733; background: #f5f7fa; }
header { background: #1d2733; color: #fff; padding: 18px 28px; display: flex; gap: 24px; align-items: center; }
header h1 { font-size: 20px; margin: 0; font-weight: 600; }
header .sub { color: #b8c4d2; font-size: 13px; }
.badge { font-weight: 700; padding: 6px 14px; border-radius: 6px; font-size: 15px; letter-spacing: .03em; }
.badge.pass { background: var(--good); } .badge.fail { background: var(--bad); }
main { padding: 18px 28px 40px; max-width: 1500px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; margin: 0 0 18px;
          overflow-x: auto; }
h2 { font-size: 16px; margin: 0 0 10px; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 6px 20px; }
.facts div { font-size: 13px; } .facts b { color: #5f6b7a; font-weight: 500; margin-right: 4px; }
.counts { display: flex; gap: 12px; flex-wrap: wrap; margin: 4px 0 10px; }
.count { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; min-width: 110px; }
.count .n { font-size: 20px; font-weight: 700; display: block; }
.count.bad .n { color: var(--bad); } .count.warn .n { color: var(--warn); }
.stack-banner { margin: 6px 0; padding: 6px 10px; background: #f3e5f5; border-left: 4px solid #8e24aa; }
ul.notes { margin: 6px 0 0; padding-left: 18px; color: #37474f; font-size: 13px; }
table.cases { border-collapse: collapse; width: 100%; font-size: 12.5px; }
table.cases th { text-align: left; background: #eef2f7; position: sticky; top: 0; padding: 5px 8px; font-weight: 600; }
table.cases td { border-top: 1px solid var(--line); padding: 3px 8px; vertical-align: middle; }
td.name { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num.bad { color: var(--bad); font-weight: 600; }
td.v { font-weight: 600; white-space: nowrap; } td.v.bad { color: var(--bad); } td.v.warn { color: var(--warn); }
td.v.ok { color: var(--ok); font-weight: 400; } td.v.good { color: var(--good); } td.v.meh { color: var(--meh); }
td.device { color: var(--warn); font-size: 12px; }
tr.attention td { background: #fff8f0; }
details summary { cursor: pointer; font-weight: 600; margin: 4px 0 8px; }
.figure svg { max-width: 100%; height: auto; }
.legend { font-size: 12px; color: #5f6b7a; margin: 4px 0 8px; }
.legend span { margin-right: 14px; }
#render-check { font-size: 12px; color: #b8c4d2; }
nav { margin-left: auto; white-space: nowrap; } nav a { color: #d7e3f0; margin-left: 16px; font-size: 13px; }
.empty { color: #5f6b7a; font-style: italic; }
"""

CHECK_SCRIPT = """
(function () {
  var m = document.getElementById('report');
  var rows = document.querySelectorAll('#all-cases tbody tr.case-row').length;
  var trends = document.querySelectorAll('#all-cases svg.spark').length;
  var want = parseInt(m.getAttribute('data-cases'), 10);
  var ok = rows === want && trends === want;
  document.getElementById('render-check').textContent =
    (ok ? 'page check: consistent, ' : 'page check: INCONSISTENT, ') + rows + ' of ' + want +
    ' case rows, ' + trends + ' trend lines, ' + m.getAttribute('data-nights') + ' night(s), ' +
    m.getAttribute('data-regressions') + ' regression(s)';
  document.body.setAttribute('data-rendered', ok ? 'consistent' : 'inconsistent');
})();
"""


def shown_command(cmd):
    """The run's command line without its output options (a nightly's scratch path)."""
    words, out, skip = cmd.split(), [], False
    for w in words:
        if skip:
            skip = False
        elif w in ("--out", "--csv"):
            skip = True
        elif w not in ("-q", "--quiet"):
            out.append(w)
    return " ".join(out)


def whole_run(run):
    """compare's run-level verdict as a count: (label, figure, class). Red when it fails the gate,
    amber for a slower one not counted (correctness-only gate) or a noisy one."""
    if run.get("verdict") is None:
        return (f"whole run: no verdict ({run.get('reason', '')})", fmt_change(run.get("geomean_ratio")), "")
    verdict = run["verdict"]
    label = (f"whole run {verdict} ({run.get('confidence', 0) * 100:.0f}% CI {fmt_change(run.get('ci_lower'))} to "
             f"{fmt_change(run.get('ci_upper'))}, {run.get('cases', 0)} cases, bar {run.get('threshold', 0) * 100:.1f}%)")
    if verdict == "slower" and not run.get("counted"):
        label += f", not counted: {run.get('not_counted', '')}"
    cls = "bad" if run.get("counted") else "warn" if verdict in ("slower", "noisy") else ""
    return (label, fmt_change(run.get("geomean_ratio")), cls)


def page(result, compare, notes, rows, figs, figs_why, nights, title, changes=None):
    prov = result["arbench"].get("provenance", {})
    gate_fail = (compare or {}).get("gate") == "fail" or any(
        r["verdict"] == "failed" for r in rows)
    regressions = sum(1 for r in rows if r["counted"])
    missing = (compare or {}).get("only_in_base", [])
    abnormal = sum(1 for r in rows if r["device"])
    not_counted = sum(1 for r in rows if r["not_counted"])
    failed = sum(1 for r in rows if r["verdict"] == "failed")
    gpus = prov.get("gpus", [])
    gpu_text = f"{len(gpus)} x {gpus[0].get('name', '?')}" if gpus else "none (CPU threads)"
    correctness_only = (compare or {}).get("options", {}).get("correctness_only", False)
    gate_text = ("correctness only (timings recorded, not gated)" if correctness_only
                 else "timing and correctness" if compare else "no comparison")
    facts = [("machine", f'{prov.get("host_name", "?")} ({stack_info.machine_id(prov) or "?"})'), ("GPUs", gpu_text),
             ("stack", stack_info.short(prov) or "no GPU stack (host backend)"),
             ("backend", f'{prov.get("backend", "?")} ({prov.get("timing", "?")} timing)'),
             ("revision", prov.get("arbench_revision", "?")),
             ("fingerprint", prov.get("fingerprint", "?")),
             ("sweep key", result["arbench"].get("config", {}).get("sweep_key", "?")),
             ("gate", gate_text), ("nights in history", nights),
             ("device state", prov.get("device_state", "not recorded"))]
    counts = [("cases", len(rows), ""), ("regressions", regressions, "bad" if regressions else ""),
              ("failed", failed, "bad" if failed else ""),
              ("missing tonight", len(missing), "bad" if missing and compare.get("missing") else ""),
              ("slower, timings not gated" if correctness_only else "slower, not counted", not_counted,
               "warn" if not_counted and not correctness_only else ""),
              ("device state abnormal", abnormal, "warn" if abnormal else "")]
    if any(r["sol"] for r in rows):  # speed-of-light floors: a case below its floor is an error
        below = sum(1 for r in rows if r["sol"] and r["sol"]["below"])
        counts.append(("below their floor", below, "bad" if below else ""))
    if any(r["error"] for r in rows):  # low-precision variants: their accuracy is gated too
        rose = sum(1 for r in rows if r["error"] and r["error"]["rose"])
        counts.append(("error rose (low precision)", rose, "bad" if rose else ""))
    run = (compare or {}).get("run")
    if run:  # the whole run: the geometric mean of the ratios and its interval (docs/regression.md)
        counts.append(whole_run(run))
    attention = sorted((r for r in rows if r["attention"]), key=lambda r: not r["counted"])
    date = result.get("context", {}).get("date", "")
    out = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
           f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
           f'<header><span class="badge {"fail" if gate_fail else "pass"}">'
           f'{"REGRESSION" if gate_fail else "PASS"}</span><div><h1>{esc(title)}</h1>'
           f'<div class="sub">{esc(date)} · {esc(shown_command(prov.get("command_line", "")))}</div>'
           f'<div id="render-check">page check: the script did not run</div></div>'
           '<nav><a href="#attention">attention</a><a href="#trend">trend</a><a href="#curves">curves</a>'
           '<a href="#all">all cases</a></nav></header>',
           f'<main id="report" data-cases="{len(rows)}" data-nights="{nights}" '
           f'data-regressions="{regressions}" data-stack-changes="{len(changes or {})}">',
           '<section><h2>Tonight</h2><div class="counts">' +
           "".join(f'<div class="count {cls}"><span class="n">{n}</span>{esc(label)}</div>'
                   for label, n, cls in counts) + "</div>",
           '<div class="facts">' + "".join(f"<div><b>{esc(k)}</b>{esc(v)}</div>" for k, v in facts) +
           "</div>"]
    if any(c.get("platform") for c in (compare or {}).get("stack_changes", [])):  # compare's head
        out.append(f'<p class="stack-banner"><b>STACK CHANGED</b> {esc(compare["stack_summary"])}</p>')
    if notes or (compare or {}).get("notes"):
        out.append('<ul class="notes">' + "".join(
            f"<li>{esc(n)}</li>" for n in list(notes) + list((compare or {}).get("notes", []))) + "</ul>")
    out.append("</section>")
    legend = ('<div class="legend"><span>trend: median per night (up = slower; at least +-10% tall), '
              'tonight the last point</span>'
              '<span style="color:#d62728">● failed the gate</span>'
              '<span style="color:#1f77b4">○ slower, not counted</span>'
              '<span style="color:#ff7f0e">△ device state abnormal</span>'
              '<span style="color:#8e24aa">¦ stack changed (driver, CUDA, NCCL)</span></div>')
    out.append('<section id="attention"><h2>Needs attention</h2>' + legend +
               (case_table(attention, "attention") if attention else
                '<p class="empty">Nothing: no failed, slower, missing or abnormal case tonight.</p>'))
    if missing:
        out.append(f"<p><b>Missing tonight ({len(missing)})</b>"
                   f"{' — counted as failures' if compare.get('missing') else ''}: " +
                   ", ".join(f"<code>{esc(m)}</code>" for m in missing) + "</p>")
    out.append("</section>")
    if figs and "history" in figs:
        marks = "".join(f"<li>{esc(d[:16])}: {esc(c)}</li>" for d, c in sorted((changes or {}).items()))
        out.append('<section id="trend"><h2>Trend across nights</h2><div class="figure">' + figs["history"] +
                   "</div>" + (f'<ul class="stack-changes">Stack changes (dashed lines): {marks}</ul>'
                               if marks else "") + "</section>")
    out.append('<section id="curves"><h2>Tonight\'s curves</h2>')
    curves = [(stem, caption) for stem, caption in (
        ("latency", "Latency per variant"), ("busbw", "Bus bandwidth"), ("winners", "Winners map"),
        ("fused_speedup", "Fused speedup")) if figs and stem in figs]
    # --phases runs: plot.py's phase breakdown, one figure per GPU count (phases_gpus<N>).
    curves += [(stem, f"Where one op's time goes, {stem[len('phases_gpus'):]} GPUs")
               for stem in sorted(figs or {}, key=lambda s: (len(s), s)) if stem.startswith("phases_gpus")]
    for stem, caption in curves:
        out.append(f'<h3>{caption}</h3><div class="figure">{figs[stem]}</div>')
    if not curves:
        out.append(f'<p class="empty">No curves: {esc(figs_why or "nothing to plot")}</p>')
    out.append("</section>")
    out.append(f'<section id="all"><details open><summary>All cases ({len(rows)}), worst first</summary>' +
               legend + case_table(rows, "all-cases") + "</details></section>")
    out.append("</main><script>" + CHECK_SCRIPT + "</script></body></html>")
    return "".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("result", help="tonight's result JSON (arbench run --out)")
    p.add_argument("--compare", help="arbench compare --format json of the baseline against it")
    p.add_argument("--history", help="the nightly history (scripts/history.py), tonight included")
    p.add_argument("--notes", help="a text file of notes for the header, one a line")
    p.add_argument("--out", help="the HTML file (default: report.html next to the result)")
    p.add_argument("--title", default="arbench nightly")
    a = p.parse_args()
    # The page's path, before any work: a folder or a missing folder is said, never a traceback.
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.result)), "report.html")
    if os.path.isdir(out):
        fail(f"--out {out}: a folder; add the page's file name to it (e.g. report.html)")
    if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        fail(f"--out {out}: the folder {os.path.dirname(os.path.abspath(out))} does not exist; create it first")
    result = load(a.result, "result")
    if not isinstance(result.get("arbench"), dict) or "cases" not in result["arbench"]:
        fail(f"{a.result}: no arbench.cases (not written by `arbench run`)")
    compare = load(a.compare, "compare report") if a.compare else None
    notes = []
    if a.notes:
        try:
            with open(a.notes) as f:
                notes = [line.strip() for line in f if line.strip()]
        except OSError as e:
            fail(f"{a.notes}: cannot read the notes ({e})")
    by_case = load_history(a.history) if a.history else {}
    prov = result["arbench"].get("provenance", {})
    figs, why = figures(a.result, by_case, prov.get("timing", ""), prov.get("backend", ""))
    nights = len({h["date"] for hs in by_case.values() for h in hs}) or 1
    rows = build_rows(result, compare, by_case)
    text = page(result, compare, notes, rows, figs, why, nights, a.title, stack_changes(by_case))
    tmp = out + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, out)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)  # nothing half-written is left behind
        fail(f"--out {out}: cannot write the page ({e.strerror})")
    print(f"report: {out} ({len(rows)} cases, {nights} night(s), {len(text) // 1024} KiB)")


if __name__ == "__main__":
    main()
