#!/usr/bin/env bash
# The rough inputs of the scripts a user runs: each is exit 2 (3 for a missing matplotlib) with
# one clear line within 120 columns, no traceback, and nothing left behind.
#   nightly.sh --results ''            (was: exit 1 from a shell line)
#   ARBENCH_THRESHOLD=abc nightly.sh   (was: a baseline created, then a failed compare)
#   ARBENCH_ALPHA=2, --gate correctness --strict, --gate with no value
#   plot.py --formats bmp, --formats ,  (was: a matplotlib traceback)
#   plot.py without matplotlib          (was: ModuleNotFoundError; python -S stands for one)
#   report.py --out DIR, --out in a missing folder (was: IsADirectoryError, DIR.tmp left behind)
# Usage: test_script_inputs.sh [REPO]
set -uo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
source "$(dirname "$0")/support/find_python.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect RC WANTED-TEXT COMMAND...: exit RC, WANTED-TEXT in the output, no traceback, every line
# within 120 columns.
expect() {
  local want=$1 text=$2
  shift 2
  "$@" >"$tmp/out" 2>&1
  local rc=$?
  ((rc == want)) || { cat "$tmp/out"; fail "$* exited $rc, not $want"; }
  grep -qF -- "$text" "$tmp/out" || { cat "$tmp/out"; fail "$*: wanted '$text'"; }
  ! grep -q Traceback "$tmp/out" || { cat "$tmp/out"; fail "$*: a traceback"; }
  awk 'length > 120 { bad = 1 } END { exit bad }' "$tmp/out" || { cat "$tmp/out"; fail "$*: a line over 120 columns"; }
  echo "ok: exit $rc: $(head -1 "$tmp/out")"
}

# The nightly, with an arbench that must never be reached (these are refused before any run).
stub=$tmp/arbench
printf '#!/bin/sh\necho "arbench stub ran" >>"%s/ran"\nexit 0\n' "$tmp" >"$stub"
chmod +x "$stub"
nightly=("$repo/scripts/nightly.sh")
export ARBENCH_EXE=$stub
expect 2 "--results needs a folder" "${nightly[@]}" --results ''
expect 2 "--results needs a folder" "${nightly[@]}" --results
expect 2 "--gate needs auto, timing or correctness" "${nightly[@]}" --gate ''
expect 2 "ARBENCH_THRESHOLD=abc: not a number in [0, 10000]" env ARBENCH_THRESHOLD=abc "${nightly[@]}" --results "$tmp/r"
expect 2 "ARBENCH_THRESHOLD=5%%: not a number" env ARBENCH_THRESHOLD=5%% "${nightly[@]}" --results "$tmp/r"
expect 2 "ARBENCH_ALPHA=2: not a number in (0, 0.5]" env ARBENCH_ALPHA=2 "${nightly[@]}" --results "$tmp/r"
expect 2 "--strict with --gate correctness" "${nightly[@]}" --gate correctness --strict --results "$tmp/r"
[[ ! -e $tmp/r && ! -e $tmp/ran ]] || fail "a refused nightly ran arbench or created its results folder: $(ls -R "$tmp/r" 2>&1)"
echo "ok: nothing run, no results folder, no baseline"

# plot.py and report.py on the committed sample result.
sample=$(ls "$repo"/results/samples/*.json | head -1)
if find_matplotlib_python; then
  expect 2 "--formats bmp: not a format matplotlib writes" "$py" "$repo/scripts/plot.py" "$sample" --out "$tmp/p" --formats png,bmp
  expect 2 "--formats '': no format given" "$py" "$repo/scripts/plot.py" "$sample" --out "$tmp/p" --formats ,
  [[ ! -e $tmp/p ]] || fail "plot.py created its folder before refusing --formats"
  # -S: no site-packages, so no matplotlib, as on a Python that lacks it.
  expect 3 "plot.py: no matplotlib in" "$py" -S "$repo/scripts/plot.py" "$sample" --out "$tmp/p"
else
  echo "note: $py_why: plot.py's --formats checks need matplotlib; its missing-matplotlib line is checked below"
  py=$(command -v python3 || echo /usr/bin/python3)
  expect 3 "plot.py: no matplotlib in" "$py" "$repo/scripts/plot.py" "$sample" --out "$tmp/p"
fi
mkdir -p "$tmp/pages"
expect 2 "--out $tmp/pages: a folder; add the page's file name" "$py" "$repo/scripts/report.py" "$sample" --out "$tmp/pages"
expect 2 "does not exist; create it first" "$py" "$repo/scripts/report.py" "$sample" --out "$tmp/none/r.html"
[[ -z $(ls -A "$tmp/pages") && ! -e $tmp/pages.tmp ]] || fail "report.py left files behind: $(ls -A "$tmp" "$tmp/pages")"
echo "ok: report.py left nothing behind"
echo "PASS"
