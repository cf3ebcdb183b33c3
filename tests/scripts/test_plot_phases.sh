#!/usr/bin/env bash
# plot.py's phase figures (docs/latency-breakdown.md): a real host run with --phases and --skew
# gives one stacked-bar figure per GPU count (phases_gpus2, phases_gpus4, PNG and SVG), the
# skewed cases are read (and kept out of the winner map) without breaking the other plots; what
# the phase figures draw is the JSON's data (check_plot_data.py: every bar's height and stacking
# recomputed from phases.breakdown_us); a result without timelines gives no phase figure.
# Exit 77 (ctest: skipped) when no Python has matplotlib (support/plot_test.sh says which it tried).
# Usage: test_plot_phases.sh REPO ARBENCH_EXE
set -euo pipefail
repo=$1
arbench=$2
source "$(dirname "$0")/support/plot_test.sh"
start_plot_test

"$arbench" run --backend host --phases --skew 0,5 --gpus 2,4 -b 1K -e 4K --variants oneshot-pull,ring \
  --family allreduce --samples 2 --warmup 1 --pipelined-ops 0 --out "$tmp/phases.json" -q >/dev/null
"$py" "$repo/scripts/plot.py" "$tmp/phases.json" --out "$tmp/p" >"$tmp/written.txt"
figures_written "$tmp/p" "$tmp/written.txt" "" phases_gpus2 phases_gpus4 latency winners || status=1
head -c 8 "$tmp/p/phases_gpus4.png" | grep -q PNG || { echo "FAIL: phases_gpus4.png is not a PNG"; status=1; }
"$py" "$repo/tests/scripts/support/check_plot_data.py" "$tmp/phases.json" "$tmp/checked" - || status=1
grep -q "skew:5" "$tmp/p/latency.svg" || { echo "FAIL: the skewed cases are not curves of their own"; status=1; }

"$arbench" run --backend host --gpus 2 -b 1K -e 1K --variants oneshot-pull --family allreduce --samples 2 \
  --warmup 1 --pipelined-ops 0 --out "$tmp/plain.json" -q >/dev/null
"$py" "$repo/scripts/plot.py" "$tmp/plain.json" --out "$tmp/q" >"$tmp/plain.txt"
if grep -q phases_ "$tmp/plain.txt"; then echo "FAIL: a phase figure without timelines"; status=1; fi
[[ $status == 0 ]] && echo "phase figures: $(grep -c phases_ "$tmp/written.txt") files"
exit "$status"
