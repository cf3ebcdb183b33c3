#!/usr/bin/env bash
# plot.py writes every plot, as PNG and SVG: on the committed host sample result, on a
# synthetic result that has every family (so the fused-speedup plot is always exercised) and
# speed-of-light floors on all but one variant (each drawn dotted under its curve), and on
# that result with another NCCL build's cases beside its own (`nccl@2.29.2`, `nccl@2.29.2[ring/ll]`:
# `run --nccl-lib`), each
# with a two-night history (one regression) and the published reference curves; and what it
# plots is the data (check_plot_data.py: every series and point recomputed from the files).
# Exit 77 (ctest: skipped) when no Python has matplotlib (support/plot_test.sh says which it tried).
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$(dirname "$0")/support/plot_test.sh"
start_plot_test

"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$tmp/synthetic.json" --floors
shopt -s nullglob
samples=("$repo"/results/samples/*.json)
((${#samples[@]})) || { echo "FAIL: no sample result in results/samples/"; exit 1; }

# NCCL builds side by side: every NCCL case again as nccl@2.29.2, 20% faster.
"$py" - "$tmp/synthetic.json" "$tmp/builds.json" <<'PY'
import copy, json, sys
doc = json.load(open(sys.argv[1]))
cases = doc["arbench"]["cases"]
for c in list(cases):
    if c["variant"].startswith("nccl") and c["name"].startswith("allreduce/"):
        d = copy.deepcopy(c)
        d["variant"] = c["variant"].replace("nccl", "nccl@2.29.2", 1)
        d["name"] = c["name"].replace("/" + c["variant"] + "/", "/" + d["variant"] + "/", 1)
        for k in ("median_us", "p10_us", "p50_us", "p90_us", "p99_us"):
            d[k] = c[k] * 0.8
        d["samples_us"] = [x * 0.8 for x in c["samples_us"]]
        d["busbw_GBps"] = c["busbw_GBps"] / 0.8
        cases.append(d)
json.dump(doc, open(sys.argv[2], "w"))
PY
for result in "${samples[0]}" "$tmp/synthetic.json" "$tmp/builds.json"; do
  name=$(basename "$result" .json)
  out=$tmp/$name
  mkdir -p "$out"
  # Two nights: the first unremarkable, the second with the first case marked slower.
  "$py" - "$result" "$out/compare1.json" "$out/compare2.json" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["arbench"]["cases"]
same = [{"name": c["name"], "verdict": "same", "ratio": 1.0} for c in cases]
json.dump({"cases": same}, open(sys.argv[2], "w"))
same[0].update(verdict="slower", ratio=1.3)
json.dump({"cases": same}, open(sys.argv[3], "w"))
PY
  "$py" "$repo/scripts/history.py" "$result" "$out/compare1.json" "$out/h.jsonl" \
    --date 2026-12-01T02:00:00Z >/dev/null
  "$py" "$repo/scripts/history.py" "$result" "$out/compare2.json" "$out/h.jsonl" \
    --date 2026-12-02T02:00:00Z >/dev/null
  "$py" "$repo/scripts/plot.py" "$result" --out "$out/plots" --history "$out/h.jsonl" \
    --reference >"$out/written.txt"

  expected=(latency busbw winners history)
  if "$py" -c 'import json, sys
cases = json.load(open(sys.argv[1]))["arbench"]["cases"]
sys.exit(not any(c["name"].startswith("allreduce_rmsnorm/unfused-") for c in cases))' \
    "$result"; then
    expected+=(fused_speedup)
  fi
  [[ $result == "$tmp/synthetic.json" ]] && [[ ! " ${expected[*]} " =~ " fused_speedup " ]] &&
    { echo "FAIL: synthetic result lacks fused cases"; status=1; }
  figures_written "$out/plots" "$out/written.txt" "$name: " "${expected[@]}" || status=1
  head -c 8 "$out/plots/latency.png" | grep -q PNG ||
    { echo "FAIL: $name: latency.png is not a PNG"; status=1; }
  grep -q "<svg" "$out/plots/latency.svg" ||
    { echo "FAIL: $name: latency.svg is not an SVG"; status=1; }
  "$py" "$repo/tests/scripts/support/check_plot_data.py" "$result" "$out/data" "$out/h.jsonl" \
    "$repo/results/reference/published-pcie-allreduce.json" || status=1
  echo "$name: $(wc -l <"$out/written.txt") files"
done
# The nightly page's `% of SOL` column (scripts/report.py) on the result with floors: every case
# with a floor shows 100 x floor / median; a case planted faster than its floor is marked and
# counted, never shown as a success; a result without floors has no such column.
"$py" - "$tmp/synthetic.json" "$tmp/below.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
c = next(c for c in doc["arbench"]["cases"] if c.get("sol_us"))
c["sol_us"] = c["median_us"] * 1.25
c["pct_of_sol"] = 125.0
json.dump(doc, open(sys.argv[2], "w"))
PY
"$py" "$repo/scripts/report.py" "$tmp/below.json" --out "$tmp/below.html" >/dev/null
"$py" "$repo/scripts/report.py" "$samples" --out "$tmp/plain.html" >/dev/null
"$py" - "$tmp/below.json" "$tmp/below.html" "$tmp/plain.html" <<'PY' || status=1
import json, re, sys
cases = json.load(open(sys.argv[1]))["arbench"]["cases"]
page, plain = open(sys.argv[2]).read(), open(sys.argv[3]).read()
problems = []
if "<th>% of SOL</th>" not in page:
    problems.append("no % of SOL column on a page with floors")
if "<th>% of SOL</th>" in plain:
    problems.append("a % of SOL column on a page without floors")
rows = {re.search(r'<td class="name">([^<]*)</td>', r).group(1): r for r in page.split('<tr class="case-row')[1:]}
for c in cases:
    row = rows.get(c["name"], "")
    if c.get("pct_of_sol") is None:
        continue
    want = f'{c["pct_of_sol"]:.1f}%'
    if want not in row:
        problems.append(f'{c["name"]}: {want} not in its row')
    if (c["pct_of_sol"] > 100) != ("below its floor" in row):
        problems.append(f'{c["name"]}: below-floor mark wrong at {want}')
if '<div class="count bad"><span class="n">1</span>below their floor</div>' not in page:
    problems.append("the page does not count the case below its floor")
for p in problems:
    print("FAIL: report.py % of SOL: " + p)
sys.exit(1 if problems else 0)
PY
exit "$status"
