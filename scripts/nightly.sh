#!/usr/bin/env bash
# Nightly regression run: build arbench (or reuse the up-to-date build/release), run the
# configured sweep, compare it with the baseline of this machine and this sweep, append the
# history, render the plots and the HTML report; exit non-zero on a regression.
#
#   scripts/nightly.sh [--exe PATH] [--results DIR] [--from-result FILE] [--update-baseline]
#                      [--gate auto|timing|correctness] [--strict] [--allow-missing]
#                      [--reference] [--no-plots] [-- RUN-ARGS...]
#
# Everything after `--` replaces the sweep (ARBENCH_NIGHTLY_ARGS); the default is small and
# runs anywhere (host backend, CPU timing). A GPU box would use e.g.
#   -- --backend cuda --gpus 2,4,8 --min-bytes 1K --max-bytes 256M --max-noise 1
# --from-result FILE takes FILE as tonight's result instead of running arbench (a result made
# elsewhere, e.g. by a multi-node job; and the pipeline's own tests). A result marked incomplete
# (arbench.incomplete: the run stopped early) is compared, never made the baseline.
# Files (DIR: --results, ARBENCH_RESULTS_DIR, default ${XDG_STATE_HOME:-~/.local/state}/arbench,
# outside the source tree):
#   DIR/baselines/<machine>-<sweep key>.json   the baseline of this machine (its hardware, not its
#       driver/CUDA/NCCL) and this sweep; created from tonight's run when absent (a changed sweep
#       starts a new one, and says so; the first night prints no comparison of the baseline with
#       itself), replaced with --update-baseline, or after a green night on a new stack
#   DIR/history/<machine>-<sweep key>.jsonl   one line per case per night (scripts/history.py)
# Stack change (a new driver, CUDA runtime, NCCL version or library): a STACK CHANGED banner; the
#   night is judged against the last baseline with the normal gate (exit 1 when the upgrade
#   regressed); green, tonight becomes the baseline (STACK ADOPTED); red, the old one stays.
#   Another machine's result (other hardware) is refused by compare: exit 2.
#   DIR/nightly/<UTC time>/    result.json, compare.{txt,md,json}, report.html, plots/
#   DIR/report.html            a copy of the latest night's report
# Gate (--gate, ARBENCH_GATE): timing gates slower cases (and failed and missing ones);
#   correctness gates failed and missing cases only, timings are recorded and plotted; auto
#   (default) is correctness for CPU timing (host backend: 8 spinning ranks on 2 cores move by
#   2x between identical nights) and timing for GPU timing.
# Environment: ARBENCH_EXE (skip the build), ARBENCH_BUILD_DIR (default: build/release, built
#   by scripts/build.sh release, so the nightly reuses `scripts/run.sh`'s build when up to date),
#   ARBENCH_NIGHTLY_ARGS, ARBENCH_ALPHA (0.01), ARBENCH_THRESHOLD (percent; 5),
#   ARBENCH_PYTHON (/usr/bin/python3: Debian's, which has matplotlib).
# Exit: 0 no regression · 1 regression, a failed or a missing case · 2 unusable input or bad
#   usage (nothing is left behind) · 3 environment (build failed, no matplotlib for the plots).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)  # scripts/, or P/share/arbench/scripts installed
repo=$(cd "$here/.." && pwd)
exe=${ARBENCH_EXE:-}
# Installed (`cmake --install ... --prefix P`: no sources beside it): P/bin/arbench, never a build.
installed=0
[[ -f $repo/CMakeLists.txt ]] || installed=1
results=${ARBENCH_RESULTS_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/arbench}
build_dir=${ARBENCH_BUILD_DIR:-}
python=${ARBENCH_PYTHON:-/usr/bin/python3}
alpha=${ARBENCH_ALPHA:-0.01}
threshold=${ARBENCH_THRESHOLD:-5}
gate=${ARBENCH_GATE:-auto}
default_sweep="--backend host --gpus 2,4 --min-bytes 1K --max-bytes 64K --family allreduce"
read -r -a run_args <<<"${ARBENCH_NIGHTLY_ARGS:-$default_sweep}"
update_baseline=0 plots=1 reference=() from_result="" compare_flags=()

die() { echo "nightly: $2" | fold -s -w 120 >&2; exit "$1"; }
say() { echo "nightly: $1" | fold -s -w 120; }  # within the console's 120 columns
need() {  # need OPTION WHAT "$@": the option's value ($2 of "$@") non-empty, else exit 2 naming it
  [[ $# -ge 4 && -n $4 ]] || die 2 "$1 needs $2 (an empty or missing value); see scripts/nightly.sh --help"
}
number() {  # number NAME VALUE LO HI EXAMPLE [open]: a decimal VALUE in [LO, HI] ((LO, HI] with open), else exit 2
  local lo_ok='v >= lo' range="[$3, $4]"
  [[ ${6:-} == open ]] && lo_ok='v > lo' range="($3, $4]"
  [[ $2 =~ ^[0-9]+([.][0-9]+)?%?$ ]] && awk -v v="${2%\%}" -v lo="$3" -v hi="$4" "BEGIN { exit !($lo_ok && v <= hi) }" ||
    die 2 "$1=$2: not a number in $range; e.g. $1=$5"
}
field() {  # field FILE a.b.c: arbench.a.b.c of a result JSON ("" when absent)
  "$python" -c 'import json, sys
v = json.load(open(sys.argv[1]))["arbench"]
for k in sys.argv[2].split("."):
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)' "$1" "$2"
}

while (($#)); do
  case $1 in
    --exe) need "$1" "a path" "$@"; exe=$2; shift 2 ;;
    --results) need "$1" "a folder" "$@"; results=$2; shift 2 ;;
    --from-result) need "$1" "a result JSON" "$@"; from_result=$2; shift 2 ;;
    --update-baseline) update_baseline=1; shift ;;
    --gate) need "$1" "auto, timing or correctness" "$@"; gate=$2; shift 2 ;;
    --strict) compare_flags+=(--strict); shift ;;
    --allow-missing) compare_flags+=(--allow-missing); shift ;;
    --reference) reference=(--reference); shift ;;
    --no-plots) plots=0; shift ;;
    --) shift; run_args=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die 2 "unknown option '$1'; see scripts/nightly.sh --help" ;;
  esac
done
case $gate in auto|timing|correctness) ;; *) die 2 "--gate $gate: use auto, timing or correctness" ;; esac
# The environment's numbers, before anything is built, run or written (a bad one used to fail
# only at the compare, after the first night's baseline was created).
number ARBENCH_THRESHOLD "$threshold" 0 10000 5
number ARBENCH_ALPHA "$alpha" 0 0.5 0.01 open
if [[ $gate == correctness && " ${compare_flags[*]} " == *" --strict "* ]]; then
  die 2 "--strict with --gate correctness: --strict counts more slower cases, the correctness gate counts none; give one"
fi
if [[ -n $from_result ]]; then
  [[ -e $from_result ]] || die 2 "--from-result $from_result: no such file"
  [[ -f $from_result ]] || die 2 "--from-result $from_result: not a file (a folder?); give a result JSON"
  [[ -s $from_result ]] || die 2 "--from-result $from_result: the file is empty"
fi
# The results folder, before any work: a night must not end in "cannot write".
probe=$results/.arbench-probe.$$
{ mkdir -p "$results" && : >"$probe" && rm -f "$probe"; } 2>/dev/null ||
  die 2 "--results $results: cannot create or write this folder (ARBENCH_RESULTS_DIR); give a writable one"

# 1. Build, unless told which arbench to use: build/release through scripts/build.sh (an
#    up-to-date build is reused as it is), or ARBENCH_BUILD_DIR as a build of its own.
if [[ -z $exe && $installed == 1 ]]; then
  exe=$(cd "$repo/../.." && pwd)/bin/arbench  # P/share/arbench -> P/bin/arbench
elif [[ -z $exe ]]; then
  log=$results/build.log
  if [[ -z $build_dir ]]; then
    say "building arbench (scripts/build.sh release; log: $log)"
    "$repo/scripts/build.sh" release --target arbench >"$log" 2>&1 || die 3 "the build failed; see $log"
    exe=$repo/build/release/arbench
  else
    say "building arbench in $build_dir (log: $log)"
    { cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release &&
      cmake --build "$build_dir" --target arbench; } >"$log" 2>&1 || die 3 "the build failed; see $log"
    exe=$build_dir/arbench
  fi
fi
[[ -x $exe ]] || die 2 "arbench executable '$exe' not found or not executable; set ARBENCH_EXE"

# 2. Tonight's result, in a scratch folder: a run that fails to start (a bad argument, no GPU)
#    leaves nothing behind.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/arbench-nightly.XXXXXX") || die 3 "cannot create a scratch folder"
trap 'rm -rf "$scratch"' EXIT
run_rc=0
if [[ -n $from_result ]]; then
  say "tonight's result is $from_result (--from-result)"
  cp "$from_result" "$scratch/result.json" || die 2 "cannot read $from_result"
  run_rc=$("$python" - "$scratch/result.json" "$from_result" <<'PY'
import json, sys
try:
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)["arbench"]["cases"]
    failed = any(c.get("status") == "failed" for c in cases)
except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
    why = "not JSON text" if isinstance(e, ValueError) else "no arbench.cases"
    print(f"nightly: --from-result {sys.argv[2]}: not an arbench result ({why}); expected a result JSON "
          "written by `arbench run --out`", file=sys.stderr)
    sys.exit(2)
print(1 if failed else 0)
PY
) || exit 2
else
  say "$exe run ${run_args[*]}"
  "$exe" run "${run_args[@]}" --out "$scratch/result.json" -q
  run_rc=$?
  case $run_rc in
    0|1) ;;
    *) die "$run_rc" "arbench run failed (exit $run_rc); nothing to compare, nothing written" ;;
  esac
fi
((run_rc == 1)) && echo "nightly: some cases failed (wrong results or timeouts); compare lists them" >&2
[[ -s $scratch/result.json ]] || die 2 "arbench run wrote no result"

# 3. This machine's and this sweep's baseline (created from tonight's run the first time). The
#    machine is the hardware alone (scripts/stack.py, as arbench computes it): a driver, CUDA or
#    NCCL upgrade keeps the baseline and the history, and is judged (STACK CHANGED below).
fingerprint=$("$python" "$repo/scripts/stack.py" machine "$scratch/result.json" 2>/dev/null)
[[ -n $fingerprint ]] || die 2 "tonight's result names no machine (no arbench.provenance.machine or fingerprint_fields)"
sweep=$(field "$scratch/result.json" config.sweep_key 2>/dev/null)
if [[ -z $sweep ]]; then  # a result from an arbench without sweep keys: hash its configuration
  sweep=$("$python" -c 'import hashlib, json, sys
cfg = json.load(open(sys.argv[1]))["arbench"].get("config", {})
print(hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:16])' "$scratch/result.json")
fi
key=$fingerprint-$sweep
baseline=$results/baselines/$key.json
history=$results/history/$key.jsonl
night=$results/nightly/$(date -u +%Y%m%dT%H%M%SZ)
n=1; base_night=$night
while [[ -e $night ]]; do night=$base_night-$((++n)); done  # two runs in one second
notes=()
mkdir -p "$results/baselines" "$results/history" || die 2 "cannot create $results/baselines"
# Migration: a results folder from before the machine/stack split names baselines and histories by
# the old fingerprint (hardware and stack hashed together). The newest old baseline of this machine
# and sweep becomes the baseline; every old history of it joins this one (one continuous history).
if [[ ! -e $baseline ]]; then
  legacy=()
  while IFS= read -r old; do
    [[ $("$python" "$repo/scripts/stack.py" machine "$old" 2>/dev/null) == "$fingerprint" ]] && legacy+=("$old")
  done < <(ls -t "$results"/baselines/*-"$sweep".json 2>/dev/null)
  if ((${#legacy[@]})); then
    cp "${legacy[0]}" "$baseline" || die 2 "cannot write $baseline"
    for old in "${legacy[@]}"; do
      old_history=$results/history/$(basename "$old" .json).jsonl
      [[ -f $old_history ]] && { cat "$old_history" >>"$history" && mv "$old_history" "$old_history.migrated"; }
      mv "$old" "$old.migrated"
    done
    notes+=("MIGRATED: baseline and history of this machine and sweep renamed from the old fingerprint ($(basename "${legacy[0]}") -> $(basename "$baseline"); the old files are kept as *.migrated)")
  fi
fi
# Other hardware under this host name (a GPU swapped or moved to another slot): refused as compare
# refuses it (exit 2, naming what differs); --update-baseline starts a baseline for the new hardware.
# Another host's baselines in a shared folder are other machines, not a change of this one.
if [[ ! -e $baseline ]] && ((update_baseline == 0)); then
  host=$(field "$scratch/result.json" provenance.host_name 2>/dev/null)
  for other in "$results"/baselines/*-"$sweep".json; do
    [[ -e $other && -n $host && $(field "$other" provenance.host_name 2>/dev/null) == "$host" ]] || continue
    "$exe" compare "$other" "$scratch/result.json" --format json >/dev/null 2>"$scratch/machine.txt"
    (($? == 2)) && grep -q "different machines" "$scratch/machine.txt" || continue
    cat "$scratch/machine.txt" >&2
    die 2 "tonight's hardware differs from that of $(basename "$other"), the baseline of host $host and this sweep (above); nothing written. If the hardware change is intended, pass --update-baseline to start a baseline for it"
  done
fi
incomplete=$(field "$scratch/result.json" incomplete.reason 2>/dev/null)
if [[ -n $incomplete && ( ! -e $baseline || $update_baseline == 1 ) ]]; then
  die 2 "tonight's result is incomplete ($incomplete: arbench.incomplete): it cannot become the baseline of this machine and sweep; run the whole sweep"
fi
[[ -n $incomplete ]] && notes+=("INCOMPLETE: tonight's result stopped early ($incomplete); its missing cases fail the night")
mkdir -p "$night" || die 2 "cannot create $night"
mv "$scratch/result.json" "$night/result.json"
first_night=0
if [[ ! -e $baseline ]]; then
  first_night=1
  cp "$night/result.json" "$baseline" || die 2 "cannot write $baseline"
  others=$(find "$results/baselines" -maxdepth 1 -name "$fingerprint*.json" ! -name "$key.json" | sort)
  if [[ -n $others ]]; then
    notes+=("NEW BASELINE: this sweep (key $sweep: $(field "$night/result.json" provenance.command_line)) differs from the sweep of the other baseline(s) of this machine ($(echo "$others" | xargs -n1 basename | tr '\n' ' ')); tonight starts $(basename "$baseline") and is not gated against them. If the sweep change was not intended, restore the nightly's run arguments.")
  else
    notes+=("first night of this machine and sweep: created the baseline $baseline from tonight's run")
  fi
fi

# A new driver, CUDA runtime or NCCL on this machine: judged against the last baseline with the
# normal gate; a green night adopts the new stack as the baseline (below), a red one keeps the old.
stack_change=""
((first_night)) || stack_change=$("$python" "$repo/scripts/stack.py" diff "$baseline" "$night/result.json" 2>/dev/null)
[[ -n $stack_change ]] &&
  notes+=("STACK CHANGED: $stack_change since the baseline; judged against it with the normal gate"
          "stack: a green night makes tonight the baseline, a red one keeps it (--update-baseline: tonight anyway)")

# 4. Compare (text to the log, markdown for a CI summary, JSON for the history and the page).
timing=$(field "$night/result.json" provenance.timing)
base_timing=$(field "$baseline" provenance.timing)
if [[ $gate == auto ]]; then
  gate=timing
  [[ $timing == cpu || $base_timing == cpu ]] && gate=correctness
fi
if [[ $gate == correctness ]]; then
  if [[ " ${compare_flags[*]} " == *" --strict "* ]]; then  # auto chose it: --strict has nothing to count
    kept=(); for f in "${compare_flags[@]}"; do [[ $f == --strict ]] || kept+=("$f"); done
    compare_flags=("${kept[@]}")
    notes+=("--strict left out: the correctness gate (CPU timing) counts no slower case")
  fi
  compare_flags+=(--correctness-only)
  notes+=("gate: correctness only ($([[ $timing == cpu ]] && echo "CPU timing, host backend" || echo "--gate correctness")): failed and missing cases fail the night; timings are recorded and plotted, never a regression verdict (--gate timing overrides; timing gates are for GPU runs)")
else
  notes+=("gate: timing and correctness (alpha $alpha, threshold $threshold%)")
fi
for note in "${notes[@]}"; do say "$note"; done
printf '%s\n' "${notes[@]}" >"$night/notes.txt"
cmp=(compare "$baseline" "$night/result.json" --alpha "$alpha" --threshold "$threshold" "${compare_flags[@]}")
"$exe" "${cmp[@]}" --format json >"$night/compare.json"
cmp_rc=$?
((cmp_rc <= 1)) || die "$cmp_rc" "arbench compare failed (exit $cmp_rc); see the message above"
{ printf '> nightly: %s\n>\n' "${notes[@]}"; "$exe" "${cmp[@]}" --format markdown 2>/dev/null; } >"$night/compare.md"
if ((first_night)); then
  # The baseline is tonight's run: a table of it against itself would say nothing.
  "$exe" "${cmp[@]}" --format text >"$night/compare.txt" 2>&1
  say "first night of this machine and sweep: nothing to compare yet (tonight's run is the baseline)"
else
  "$exe" "${cmp[@]}" --format text | tee "$night/compare.txt"
fi

# 5. History, plots and the page (all of them include tonight).
# Milliseconds: two nights in one second (a CI retry) stay two nights in the history.
"$python" "$here/history.py" "$night/result.json" "$night/compare.json" "$history" \
  --date "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" ||
  die 2 "could not append to $history"
plot_rc=0
if ((plots)); then
  if "$python" -c 'import matplotlib' 2>/dev/null; then
    "$python" "$here/plot.py" "$night/result.json" --out "$night/plots" \
      --history "$history" "${reference[@]}" >/dev/null || plot_rc=3
    ((plot_rc)) && echo "nightly: plotting failed (see above)" >&2
  else
    echo "nightly: $python has no matplotlib (apt install python3-matplotlib); no plots" >&2
    plot_rc=3
  fi
fi
"$python" "$here/report.py" "$night/result.json" --compare "$night/compare.json" \
  --history "$history" --notes "$night/notes.txt" --out "$night/report.html" ||
  die 2 "could not write $night/report.html"
cp "$night/report.html" "$results/report.html"

if ((update_baseline)); then
  cp "$night/result.json" "$baseline" && say "baseline replaced by tonight's run: $baseline"
elif [[ -n $stack_change ]]; then
  if ((cmp_rc == 0 && run_rc == 0)) && [[ -z $incomplete ]]; then
    cp "$night/result.json" "$baseline" &&
      say "STACK ADOPTED: a green night on the new stack ($stack_change): tonight is the baseline now"
  else
    say "STACK NOT ADOPTED: the night failed on the new stack ($stack_change); the baseline keeps the old one (--update-baseline accepts the new stack as it is)" >&2
  fi
fi
say "results in $night (page: $night/report.html)"
if ((cmp_rc == 1 || run_rc == 1)); then
  echo "nightly: REGRESSION (see $night/compare.txt)" >&2
  exit 1
fi
exit "$plot_rc"
