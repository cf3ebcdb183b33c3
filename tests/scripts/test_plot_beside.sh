#!/usr/bin/env bash
# plot.py's load figures (scripts/plot_load.py) from a real host run with --beside compute: the
# latency against the SMs each variant takes (sms_latency) and the background's slowdown per
# variant (beside_slowdown), PNG and SVG, one panel per GPU count; what they draw is the JSON's
# data (check_plot_data.py -> check_plot_load.py: every point and bar recomputed); a run without
# --beside gives sms_latency from the isolated medians and no beside_slowdown.
# Exit 77 (ctest: skipped) when no Python has matplotlib (support/plot_test.sh says which it tried).
# Usage: test_plot_beside.sh REPO ARBENCH_EXE
set -euo pipefail
repo=$1
arbench=$2
source "$(dirname "$0")/support/plot_test.sh"
start_plot_test

"$arbench" run --backend host --beside compute --gpus 2,4 -b 1K -e 4K --variants oneshot-pull,ring,twoshot \
  --family allreduce --samples 2 --warmup 1 --pipelined-ops 2 --out "$tmp/beside.json" -q >/dev/null
"$py" "$repo/scripts/plot.py" "$tmp/beside.json" --out "$tmp/p" >"$tmp/written.txt"
figures_written "$tmp/p" "$tmp/written.txt" "" sms_latency beside_slowdown latency || status=1
"$py" "$repo/tests/scripts/support/check_plot_data.py" "$tmp/beside.json" "$tmp/checked" - || status=1

"$arbench" run --backend host --gpus 2 -b 1K -e 1K --variants oneshot-pull,ring --family allreduce --samples 2 \
  --warmup 1 --pipelined-ops 0 --out "$tmp/plain.json" -q >/dev/null
"$py" "$repo/scripts/plot.py" "$tmp/plain.json" --out "$tmp/q" >"$tmp/plain.txt"
grep -q sms_latency "$tmp/plain.txt" || { echo "FAIL: no sms_latency figure from a result with sms"; status=1; }
if grep -q beside_slowdown "$tmp/plain.txt"; then echo "FAIL: a slowdown figure without --beside"; status=1; fi
"$py" "$repo/tests/scripts/support/check_plot_data.py" "$tmp/plain.json" "$tmp/checked2" - || status=1
[[ $status == 0 ]] && echo "load figures: $(grep -c -e sms_latency -e beside_slowdown "$tmp/written.txt") files"
exit "$status"
