#!/usr/bin/env bash
# plot.py writes every plot, as PNG and SVG: on the committed host sample result, on a
# synthetic result that has every family (so the fused-speedup plot is always exercised), and on
# that result with another NCCL build's cases beside its own (`nccl@2.29.2`, `nccl@2.29.2[ring/ll]`:
# `run --nccl-lib`), each
# with a two-night history (one regression) and the published reference curves; and what it
# plots is the data (check_plot_data.py: every series and point recomputed from the files).
# Exit 77 (ctest: skipped) when no Python has matplotlib (find_python.sh says which it tried).
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$(dirname "$0")/support/find_python.sh"
find_matplotlib_python || { echo "skip: $py_why"; exit 77; }
echo "python with matplotlib: $py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$tmp/synthetic.json"
shopt -s nullglob
samples=("$repo"/results/samples/*.json)
((${#samples[@]})) || { echo "FAIL: no sample result in results/samples/"; exit 1; }

status=0
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
  for stem in "${expected[@]}"; do
    for ext in png svg; do
      f=$out/plots/$stem.$ext
      if [[ ! -s $f ]] || ! grep -qx "$f" "$out/written.txt"; then
        echo "FAIL: $name: $stem.$ext not written"; status=1
      fi
    done
  done
  head -c 8 "$out/plots/latency.png" | grep -q PNG ||
    { echo "FAIL: $name: latency.png is not a PNG"; status=1; }
  grep -q "<svg" "$out/plots/latency.svg" ||
    { echo "FAIL: $name: latency.svg is not an SVG"; status=1; }
  "$py" "$repo/tests/scripts/support/check_plot_data.py" "$result" "$out/data" "$out/h.jsonl" \
    "$repo/results/reference/published-pcie-allreduce.json" || status=1
  echo "$name: $(wc -l <"$out/written.txt") files"
done
exit "$status"
