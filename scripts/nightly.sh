#!/usr/bin/env bash
# Nightly regression run: build arbench, run the configured sweep, compare it with this
# machine's baseline, append the history, render the plots; exit non-zero on a regression.
#
#   scripts/nightly.sh [--exe PATH] [--results DIR] [--update-baseline] [--reference]
#                      [--no-plots] [-- RUN-ARGS...]
#
# Everything after `--` replaces the sweep (ARBENCH_NIGHTLY_ARGS); the default is small and
# runs anywhere (host backend, CPU timing). A GPU box would use e.g.
#   -- --backend cuda --gpus 2,4,8 --min-bytes 1K --max-bytes 256M
# Files (DIR defaults to results/ in the repository):
#   DIR/baselines/<fingerprint>.json   the baseline; created from tonight's run when absent,
#                                      replaced only with --update-baseline
#   DIR/history/<fingerprint>.jsonl    one line per case per night (scripts/history.py)
#   DIR/nightly/<UTC time>/            result.json, compare.{txt,md,json}, plots/
# Environment: ARBENCH_EXE (skip the build), ARBENCH_BUILD_DIR (default build/nightly),
#   ARBENCH_NIGHTLY_ARGS, ARBENCH_ALPHA (0.01), ARBENCH_THRESHOLD (percent; 5 for GPU timing,
#   25 for CPU timing: host-backend timings on a shared runner drift by 10-20% run to run),
#   ARBENCH_PYTHON (/usr/bin/python3: Debian's, which has matplotlib).
# Exit: 0 no regression · 1 regression or a failed case · 2 unusable input or bad usage ·
#   3 environment (build failed, no matplotlib for the plots).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exe=${ARBENCH_EXE:-}
results=${ARBENCH_RESULTS_DIR:-$repo/results}
build_dir=${ARBENCH_BUILD_DIR:-$repo/build/nightly}
python=${ARBENCH_PYTHON:-/usr/bin/python3}
alpha=${ARBENCH_ALPHA:-0.01}
threshold=${ARBENCH_THRESHOLD:-}
read -r -a run_args <<<"${ARBENCH_NIGHTLY_ARGS:---backend host --gpus 2,4 --min-bytes 1K --max-bytes 64K --family allreduce}"
update_baseline=0 plots=1 reference=()

die() { echo "nightly: $2" >&2; exit "$1"; }

while (($#)); do
  case $1 in
    --exe) exe=${2:?--exe needs a path}; shift 2 ;;
    --results) results=${2:?--results needs a folder}; shift 2 ;;
    --update-baseline) update_baseline=1; shift ;;
    --reference) reference=(--reference); shift ;;
    --no-plots) plots=0; shift ;;
    --) shift; run_args=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die 2 "unknown option '$1'; see scripts/nightly.sh --help" ;;
  esac
done

# 1. Build, unless told which arbench to use.
if [[ -z $exe ]]; then
  echo "nightly: building arbench in $build_dir"
  mkdir -p "$(dirname "$build_dir")"
  if ! { cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release &&
         cmake --build "$build_dir" --target arbench; } >"$build_dir.log" 2>&1; then
    die 3 "the build failed; see $build_dir.log"
  fi
  exe=$build_dir/arbench
fi
[[ -x $exe ]] || die 2 "arbench executable '$exe' not found or not executable; set ARBENCH_EXE"

# 2. Run tonight's sweep.
night=$results/nightly/$(date -u +%Y%m%dT%H%M%SZ)
n=1; base_night=$night
while [[ -e $night ]]; do night=$base_night-$((++n)); done  # two runs in one second
mkdir -p "$night" "$results/baselines" "$results/history" || die 2 "cannot create $night"
echo "nightly: $exe run ${run_args[*]}"
"$exe" run "${run_args[@]}" --out "$night/result.json" -q
run_rc=$?
case $run_rc in
  0) ;;
  1) echo "nightly: some cases failed (wrong results or timeouts); compare lists them" >&2 ;;
  *) die "$run_rc" "arbench run failed (exit $run_rc); nothing to compare" ;;
esac
[[ -s $night/result.json ]] || die 2 "arbench run wrote no $night/result.json"

# 3. Find this machine's baseline (created from tonight's run the first time).
fingerprint=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["arbench"]["provenance"]["fingerprint"])' "$night/result.json") ||
  die 2 "$night/result.json has no arbench.provenance.fingerprint"
baseline=$results/baselines/$fingerprint.json
history=$results/history/$fingerprint.jsonl
if [[ ! -e $baseline ]]; then
  cp "$night/result.json" "$baseline" || die 2 "cannot write $baseline"
  echo "nightly: no baseline for machine $fingerprint yet: created $baseline from tonight's run"
fi

# 4. Compare (text to the log, markdown for a CI summary, JSON for the history).
if [[ -z $threshold ]]; then
  timing=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["arbench"]["provenance"].get("timing",""))' "$night/result.json")
  threshold=5
  if [[ $timing == cpu ]]; then
    threshold=25
    echo "nightly: CPU timing (host backend): regression threshold 25% (set ARBENCH_THRESHOLD to change)"
  fi
fi
cmp=(compare "$baseline" "$night/result.json" --alpha "$alpha" --threshold "$threshold")
"$exe" "${cmp[@]}" --format json >"$night/compare.json"
cmp_rc=$?
((cmp_rc <= 1)) || die "$cmp_rc" "arbench compare failed (exit $cmp_rc); see the message above"
"$exe" "${cmp[@]}" --format markdown >"$night/compare.md" 2>/dev/null
"$exe" "${cmp[@]}" --format text | tee "$night/compare.txt"

# 5. History, then plots (the history plot includes tonight).
"$python" "$repo/scripts/history.py" "$night/result.json" "$night/compare.json" "$history" ||
  die 2 "could not append to $history"
plot_rc=0
if ((plots)); then
  if "$python" -c 'import matplotlib' 2>/dev/null; then
    "$python" "$repo/scripts/plot.py" "$night/result.json" --out "$night/plots" \
      --history "$history" "${reference[@]}" >/dev/null || plot_rc=3
    ((plot_rc)) && echo "nightly: plotting failed (see above)" >&2
  else
    echo "nightly: $python has no matplotlib (apt install python3-matplotlib); no plots" >&2
    plot_rc=3
  fi
fi

if ((update_baseline)); then
  cp "$night/result.json" "$baseline" && echo "nightly: baseline replaced by tonight's run"
fi
echo "nightly: results in $night"
if ((cmp_rc == 1 || run_rc == 1)); then
  echo "nightly: REGRESSION (see $night/compare.txt)" >&2
  exit 1
fi
exit "$plot_rc"
