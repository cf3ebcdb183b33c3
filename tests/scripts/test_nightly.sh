#!/usr/bin/env bash
# scripts/nightly.sh end to end, in a temporary results folder (the repository is never
# written). Host backend (CPU timing: the gate is correctness only):
#   night 1   no baseline yet: created from the run; the page has one night     -> exit 0
#   night 2   unchanged; the page has two nights of trend                       -> exit 0
#   night 2b  the baseline edited to be 10^6x faster: a huge slowdown, but CPU
#             timings are not gated, and the output says so                     -> exit 0
#   night 3   a planted wrong result (an arbench that reports one wrong element) -> exit 1
#   changed sweep (--dtype fp32): a new baseline, said loudly                   -> exit 0
#   bad argument (--dtype fp64): exit 2 and no night folder, no baseline left
#   default results folder: outside the source tree; nothing new in git status
#   first night: no table of the baseline against itself
#   results folder that cannot be written: exit 2 before any run
# GPU timing (synthetic results through --from-result, as a GPU box's would be):
#   night A, B  baseline, then an unchanged night                              -> exit 0
#   night C     one case 30% slower (a regression), one 40% slower on a x8 link
#               (reported, not counted), both on the page                      -> exit 1
#   night D     night C again with --update-baseline: still compared with the old
#               baseline (exit 1), then the baseline is tonight's result, byte for byte
#   night E     night C again: unchanged against the new baseline              -> exit 0
#   drift       every case 4% slower (each `same` under the 5% threshold): the whole
#               run is `slower`, in the log and on the page                     -> exit 1
#   lossy       a low-precision (FP8) case's error figures doubled, times unchanged:
#               a regression, in compare, on the page and in the history      -> exit 1
#   stack       one machine, new software (tests/scripts/support/make_synthetic_result.py):
#               driver only, CUDA only: STACK CHANGED, compared, green, adopted   -> exit 0
#               NCCL only with every case 10% slower: judged, not adopted         -> exit 1
#               NCCL only, not slower: a green night adopts the new stack         -> exit 0
#               one history with the changes marked on the page; GPUs moved to other
#               slots on this host: refused, nothing written                      -> exit 2
#   old format  a results folder of today's (old) fingerprints with the committed old result
#               (results/samples): migrated, one history, still compared          -> exit 0
#   incomplete  a result marked arbench.incomplete never becomes the baseline     -> exit 2
#   garbage     --from-result of a binary or non-arbench file: a clean message   -> exit 2
# Build: without ARBENCH_EXE the nightly builds through scripts/build.sh release (reusing an
#   up-to-date build/release), not a second copy of its own.
# Plots: drawn and checked with the first Python that has matplotlib (find_python.sh), which the
#   nightly uses too (ARBENCH_PYTHON). Without one, every other check still runs (--no-plots), and
#   the test ends with exit 77 and a "skip:" line saying the plots went unchecked and why: never
#   a silent pass.
# PART (third argument): host (the host-backend nights, which time CPU work: ctest runs them
#   alone), gpu (the synthetic GPU nights, the results refused and the build), stack (driver, CUDA
#   and NCCL changes, and the old fingerprints' migration; both time nothing and run beside other
#   tests), or all (the default): three ctest entries, nightly_end_to_end.host, .gpu and .stack,
#   that share no state.
set -uo pipefail
exe=${1:?usage: test_nightly.sh ARBENCH_EXE [REPO] [host|gpu|all]}
repo=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
part=${3:-all}
[[ $part =~ ^(host|gpu|stack|all)$ ]] || { echo "test_nightly.sh: PART is host, gpu, stack or all, not '$part'"; exit 2; }
source "$(dirname "$0")/support/find_python.sh"
tmp=$(mktemp -d)
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$tmp"' EXIT
export ARBENCH_EXE=$exe ARBENCH_RESULTS_DIR=$tmp/results
sweep=(--backend host --gpus 2 --min-bytes 1K --max-bytes 8K --family allreduce --samples 15)
flags=()
if find_matplotlib_python; then
  echo "python with matplotlib: $py (the nightly's plots are drawn and checked)"
  export ARBENCH_PYTHON=$py
else
  echo "note: $py_why: every check but the plots' runs (--no-plots); the test ends skipped"
  py=$(command -v python3 || echo /usr/bin/python3)
  flags=(--no-plots)
fi

fail() { echo "FAIL: $*"; exit 1; }
night() {  # night EXPECTED_RC LABEL [ENV=VALUE...] [-- NIGHTLY-ARGS...]
  local want=$1 label=$2
  shift 2
  local envs=()
  while (($#)) && [[ $1 != -- ]]; do envs+=("$1"); shift; done
  (($#)) && shift
  local args=("$@")
  ((${#args[@]})) || args=(-- "${sweep[@]}")
  env "${envs[@]}" bash "$repo/scripts/nightly.sh" "${flags[@]}" "${args[@]}" >"$tmp/$label.log" 2>&1
  local rc=$?
  if ((rc != want)); then
    cat "$tmp/$label.log"
    fail "$label: nightly.sh exited $rc, expected $want"
  fi
  echo "$label: exit $rc as expected"
}
latest() { find "$1/nightly" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1; }
# regressed_night NAME BASE NEW: in results folder $gpu/NAME, a night from result BASE (exit 0: it
# becomes the baseline), then one from NEW that must regress (exit 1); cmp_txt: its compare.txt.
regressed_night() {
  night 0 "$1_base" ARBENCH_RESULTS_DIR="$gpu/$1" -- --from-result "$2"
  night 1 "$1" ARBENCH_RESULTS_DIR="$gpu/$1" -- --from-result "$3"
  cmp_txt=$(latest "$gpu/$1")/compare.txt
}
page_nights() { sed -n 's/.*data-nights="\([0-9]*\)".*/\1/p' "$1" | head -n 1; }
count() { find "$@" 2>/dev/null | wc -l; }

# ---- host backend ------------------------------------------------------------------------
if [[ $part != gpu ]]; then
night 0 night1
grep -q "nothing to compare yet" "$tmp/night1.log" || fail "night1 did not say there is nothing to compare"
grep -Eq '^case +base us' "$tmp/night1.log" && fail "night1 printed a table of the baseline against itself"
baselines=("$tmp"/results/baselines/*.json)
if ! ((${#baselines[@]} == 1)) || [[ ! -s ${baselines[0]} ]]; then fail "night1 created no baseline"; fi
[[ $(basename "${baselines[0]}") =~ ^[0-9a-f]{16}-[0-9a-f]{16}\.json$ ]] ||
  fail "the baseline is not keyed by fingerprint and sweep: ${baselines[0]}"
history=$(echo "$tmp"/results/history/*.jsonl)
[[ -s $history ]] || fail "night1 wrote no history"
cases=$(wc -l <"$history")
((cases > 0)) || fail "history is empty"
# The host run's floors (CPU timing) reach the history: % of SOL night by night (night 1 has
# no compare: nothing fell).
"$py" - "$history" <<'PY' || fail "night1's history lacks the cases' floors"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
for h in lines:
    assert h["pct_of_sol"] > 0 and h["sol_us"] > 0, h
    assert abs(h["pct_of_sol"] - 100 * h["sol_us"] / h["median_us"]) <= 0.01 * h["pct_of_sol"], h
    assert h["sol_fell"] is False, h
PY
[[ $(page_nights "$(latest "$tmp/results")/report.html") == 1 ]] || fail "night1's page does not show one night"
if ((${#flags[@]} == 0)); then
  for f in latency.png latency.svg busbw.png winners.svg history.png; do
    [[ -s $(latest "$tmp/results")/plots/$f ]] || fail "night1 did not render plots/$f"
  done
fi

night 0 night2
(($(wc -l <"$history") == 2 * cases)) || fail "night2 did not append one line per case"
# history.py takes sol_fell from compare's verdict: a compare report planted with one fallen case.
"$py" - "$repo/scripts/history.py" "$(latest "$tmp/results")/result.json" "$tmp/planted" <<'PY' || fail "history's sol_fell is not compare's"
import json, os, subprocess, sys
script, result, tmp = sys.argv[1:4]
os.makedirs(tmp, exist_ok=True)
names = [c["name"] for c in json.load(open(result))["arbench"]["cases"]]
json.dump({"cases": [{"name": names[0], "verdict": "same", "sol": {"fell": True}}]}, open(tmp + "/compare.json", "w"))
subprocess.run([sys.executable, script, result, tmp + "/compare.json", tmp + "/history.jsonl"], check=True,
               stdout=subprocess.DEVNULL)
lines = {h["case"]: h for h in map(json.loads, open(tmp + "/history.jsonl"))}
assert lines[names[0]]["sol_fell"] is True, lines[names[0]]
assert all(h["sol_fell"] is False for n, h in lines.items() if n != names[0])
PY
grep -q "correctness only" "$tmp/night2.log" || fail "night2 did not say the host gate is correctness only"
[[ $(page_nights "$(latest "$tmp/results")/report.html") == 2 ]] || fail "night2's page does not show two nights"
[[ -s $tmp/results/report.html ]] || fail "no latest report.html in the results folder"

"$py" - "${baselines[0]}" <<'PY' || fail "could not plant the slowdown"
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
for c in doc["arbench"]["cases"]:
    c["samples_us"] = [s / 1e6 for s in c["samples_us"]]
    for k in ("median_us", "p10_us", "p50_us", "p90_us", "p99_us", "pipelined_us"):
        if isinstance(c.get(k), (int, float)):
            c[k] /= 1e6
    c.pop("median_ci_us", None)
json.dump(doc, open(path, "w"))
PY
night 0 night2b
grep -q "slower" "$(latest "$tmp/results")/compare.txt" || fail "night2b's report shows no slower case"
grep -q "not counted" "$(latest "$tmp/results")/compare.txt" || fail "night2b does not say the slowdown is not counted"

# An arbench that finds one wrong element in its first case (exit 1, status failed).
cat >"$tmp/broken-arbench" <<EOF
#!/usr/bin/env bash
"$exe" "\$@"; rc=\$?
out=""; prev=""
for a in "\$@"; do [[ \$prev == --out ]] && out=\$a; prev=\$a; done
[[ \$1 == run && -n \$out ]] || exit \$rc
"$py" - "\$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
c = doc["arbench"]["cases"][0]
c.update(status="failed", wrong_elements=1, samples_us=[],
         reason="1 of 512 elements wrong after timing (first: rank 1 element 7: got 5, want 4)")
json.dump(doc, open(sys.argv[1], "w"))
PY
exit 1
EOF
chmod +x "$tmp/broken-arbench"
night 1 night3 ARBENCH_EXE="$tmp/broken-arbench"
grep -q REGRESSION "$tmp/night3.log" || fail "night3 did not say REGRESSION"
grep -q "elements wrong" "$(latest "$tmp/results")/compare.txt" || fail "night3's compare does not name the wrong result"
# grep -c, not -q: -q exits at the first match, tail then dies of SIGPIPE while a long history is
# still being written, and pipefail turns the found line into a failure.
tail -n "$cases" "$history" | grep -c '"verdict":"failed"' >/dev/null || fail "history lacks the failed case"
grep -q 'failed' "$(latest "$tmp/results")/report.html" || fail "night3's page does not show the failure"

# A changed sweep starts a new baseline, loudly; the old one is kept.
night 0 sweep_changed -- -- "${sweep[@]}" --dtype fp32
(($(count "$tmp"/results/baselines/*.json) == 2)) || fail "a changed sweep did not start a second baseline"
grep -q "NEW BASELINE" "$tmp/sweep_changed.log" || fail "a changed sweep did not say NEW BASELINE"

# A bad argument: exit 2, nothing left behind.
nights_before=$(count "$tmp/results/nightly" -mindepth 1 -maxdepth 1)
night 2 bad_argument -- -- "${sweep[@]}" --dtype fp64
(($(count "$tmp/results/nightly" -mindepth 1 -maxdepth 1) == nights_before)) ||
  fail "a bad argument left a night folder behind"
(($(count "$tmp"/results/baselines/*.json) == 2)) || fail "a bad argument left a baseline behind"

# The default results folder is outside the source tree.
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  before=$(git -C "$repo" status --porcelain --untracked-files=all -- results | sort)
else
  before=""
fi
mkdir -p "$tmp/home"
night 0 default_folder HOME="$tmp/home" ARBENCH_RESULTS_DIR= XDG_STATE_HOME=
[[ -n $(find "$tmp/home/.local/state/arbench/baselines" -name '*.json' 2>/dev/null) ]] ||
  fail "the default results folder is not ~/.local/state/arbench"
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  after=$(git -C "$repo" status --porcelain --untracked-files=all -- results | sort)
  [[ $before == "$after" ]] || fail "the nightly left untracked files in the repository: $after"
fi

fi  # host backend

# ---- GPU timing: synthetic results as a GPU box writes them --------------------------------
gpu=$tmp/gpu
mkdir -p "$gpu"
if [[ $part == gpu || $part == all ]]; then
slow='allreduce/twoshot/bf16/gpus:8/bytes:65536'
link='allreduce/nccl/bf16/gpus:4/bytes:1048576'
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$gpu/a.json" --gpu --seed 1
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$gpu/b.json" --gpu --seed 2
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$gpu/c.json" --gpu --seed 3 \
  --slow "$slow=1.3" --slow "$link=1.4" --downtrained "$link"
night 0 gpu_a ARBENCH_RESULTS_DIR="$gpu/results" -- --from-result "$gpu/a.json"
night 0 gpu_b ARBENCH_RESULTS_DIR="$gpu/results" -- --from-result "$gpu/b.json"
grep -q "gate: timing and correctness" "$tmp/gpu_b.log" || fail "GPU timing is not gated on timings"
night 1 gpu_c ARBENCH_RESULTS_DIR="$gpu/results" -- --from-result "$gpu/c.json"
cmp_txt=$(latest "$gpu/results")/compare.txt
grep -q "1 regression(s)" "$cmp_txt" || fail "gpu_c: expected exactly one regression"
grep -q "GPU 0 link Gen5 x8 tonight, Gen5 x16 in the baseline" "$cmp_txt" || fail "gpu_c: no link difference"
page=$(latest "$gpu/results")/report.html
grep -q 'data-regressions="1"' "$page" || fail "gpu_c's page does not count the regression"
[[ $(page_nights "$page") == 3 ]] || fail "gpu_c's page does not show three nights"
"$py" - "$page" "$slow" "$link" <<'PY' || fail "gpu_c's page does not mark the regression and the abnormal case"
import re, sys
page, slow, link = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
attention = page[page.index('id="attention"'):page.index("</table>", page.index('id="attention"'))]
rows = {re.search(r'<td class="name">([^<]*)</td>', r).group(1): r
        for r in attention.split('<tr class="case-row')[1:]}
assert slow in rows and 'class="v bad"' in rows[slow] and ">slower<" in rows[slow], rows.keys()
assert link in rows and "slower, not counted" in rows[link] and "x8" in rows[link], rows.get(link)
assert len(rows) == 2, list(rows)
PY

gpu_baselines=("$gpu"/results/baselines/*.json)
((${#gpu_baselines[@]} == 1)) || fail "the GPU nights did not keep one baseline"
cmp -s "$gpu/c.json" "${gpu_baselines[0]}" && fail "gpu_c replaced the baseline without --update-baseline"
night 1 gpu_d ARBENCH_RESULTS_DIR="$gpu/results" -- --update-baseline --from-result "$gpu/c.json"
grep -q "replaced by tonight's run" "$tmp/gpu_d.log" || fail "gpu_d did not say the baseline was replaced"
cmp -s "$(latest "$gpu/results")/result.json" "${gpu_baselines[0]}" ||
  fail "gpu_d's --update-baseline did not store tonight's result"
night 0 gpu_e ARBENCH_RESULTS_DIR="$gpu/results" -- --from-result "$gpu/c.json"
"$py" -c 'import json, sys
sys.exit(any(c["verdict"] == "slower" for c in json.load(open(sys.argv[1]))["cases"]))' \
  "$(latest "$gpu/results")/compare.json" || fail "gpu_e still compared with the old baseline"

# The peers (docs/variants.md "Peers") go through a night like any variant: a forced peer
# configuration that slowed is the night's one regression, and its row on the page says so.
peer='allreduce/flashinfer-pcie-ipc[staged-ring]/bf16/gpus:8/bytes:65536'
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$gpu/peers_a.json" --gpu --seed 1 --peers
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$gpu/peers_b.json" --gpu --seed 1 --peers \
  --slow "$peer=1.3"
regressed_night peers "$gpu/peers_a.json" "$gpu/peers_b.json"
grep -q "1 regression(s)" "$cmp_txt" || fail "peers: expected exactly one regression"
"$py" - "$(latest "$gpu/peers")/report.html" "$peer" <<'PY' || fail "peers: the page does not mark the peer's regression"
import re, sys
page, peer = open(sys.argv[1]).read(), sys.argv[2]
attention = page[page.index('id="attention"'):page.index("</table>", page.index('id="attention"'))]
rows = {re.search(r'<td class="name">([^<]*)</td>', r).group(1): r
        for r in attention.split('<tr class="case-row')[1:]}
assert list(rows) == [peer] and ">slower<" in rows[peer], list(rows)
assert "allreduce_rmsnorm/flashinfer-fused[twoshot]/bf16/gpus:8/tokens:16/hidden:8192" in page
PY

# A slow drift across all cases fails the night although no case moves by the threshold.
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$gpu/drift.json" --gpu --seed 3 \
  --slow "$slow=1.3" --slow "$link=1.4" --downtrained "$link" --scale 1.04
regressed_night drift "$gpu/c.json" "$gpu/drift.json"
grep -q "^no regression in " "$cmp_txt" && grep -q "^the whole run is slower: a regression" "$cmp_txt" ||
  fail "drift: the summary does not say the whole run is slower: $(tail -n 2 "$cmp_txt")"
grep -q "^whole run: slower: geometric mean +4.0%" "$cmp_txt" || fail "drift: no whole-run line in compare.txt"
grep -q "whole run slower (99% CI +4.0% to +4.0%" "$(latest "$gpu/drift")/report.html" ||
  fail "drift: the page does not show the whole run's verdict"

# A low-precision case whose error figures doubled fails the night with no time moved (same seed).
lossy='allreduce/twoshot-fp8/bf16/gpus:8/bytes:1048576'
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$gpu/lossy_a.json" --gpu --seed 1 --lossy
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$gpu/lossy_b.json" --gpu --seed 1 --lossy \
  --err "$lossy=2"
regressed_night lossy "$gpu/lossy_a.json" "$gpu/lossy_b.json"
grep -q "^1 regression(s) (1 with a rising error) in " "$cmp_txt" ||
  fail "lossy: the summary does not count the rising error: $(tail -n 2 "$cmp_txt")"
grep -q "rms_rel_err 0.9% -> 1.8% (+100%) (rose)" "$cmp_txt" || fail "lossy: compare.txt lacks the figures"
"$py" - "$(latest "$gpu/lossy")/report.html" "$gpu/lossy/history" "$lossy" <<'PY' || fail "lossy: page or history"
import glob, json, re, sys
page, history, lossy = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
attention = page[page.index('id="attention"'):page.index("</table>", page.index('id="attention"'))]
rows = {re.search(r'<td class="name">([^<]*)</td>', r).group(1): r
        for r in attention.split('<tr class="case-row')[1:]}
assert list(rows) == [lossy], list(rows)
assert "same, error rose" in rows[lossy] and "1.800% (base 0.900%), rose" in rows[lossy], rows[lossy]
assert ">exact</td>" in page  # the exact variants' rows in the error column
lines = [json.loads(l) for f in glob.glob(history + "/*.jsonl") for l in open(f)]
mine = [l for l in lines if l["case"] == lossy]
assert [l["error_rose"] for l in mine] == [False, True], mine
assert mine[-1]["rms_rel_err"] == 0.018 and mine[-1]["regression"], mine[-1]
assert all("rms_rel_err" not in l for l in lines if "fp8" not in l["case"])
PY
fi  # GPU timing

# ---- a new driver, CUDA or NCCL on one machine: judged, not restarted -----------------------
if [[ $part == stack || $part == all ]]; then
st=$gpu/stack
mkdir -p "$st"
gen() { "$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$@" --gpu; }
base_of() { echo "$st"/results/baselines/*.json; }
gen "$st/0.json" --seed 1
gen "$st/driver.json" --seed 2 --stack driver=590.10
gen "$st/cuda.json" --seed 3 --stack driver=590.10 --stack cuda_runtime=13.1
gen "$st/nccl-slow.json" --seed 3 --scale 1.10 --stack driver=590.10 --stack cuda_runtime=13.1 --stack nccl_version=2.29.2
gen "$st/nccl.json" --seed 4 --stack driver=590.10 --stack cuda_runtime=13.1 --stack nccl_version=2.29.2
gen "$st/moved.json" --seed 5 --stack driver=590.10 --stack cuda_runtime=13.1 --stack nccl_version=2.29.2 --gpu-base 0x81
stack_night() {  # stack_night RC LABEL FILE CHANGE: the banner and compare's head name CHANGE
  night "$1" "$2" ARBENCH_RESULTS_DIR="$st/results" -- --from-result "$3"
  grep -q "^nightly: STACK CHANGED: $4 since the baseline" "$tmp/$2.log" || fail "$2: no STACK CHANGED banner naming $4"
  grep -q "^stack changed: $4: " "$(latest "$st/results")/compare.txt" || fail "$2: compare's report is not headed by $4"
  grep -q "STACK CHANGED</b> stack changed: $4" "$(latest "$st/results")/report.html" || fail "$2: the page has no banner"
}
night 0 stack_base ARBENCH_RESULTS_DIR="$st/results" -- --from-result "$st/0.json"
stack_night 0 stack_driver "$st/driver.json" "driver 580.65 → 590.10"
grep -q "STACK ADOPTED" "$tmp/stack_driver.log" && cmp -s "$st/driver.json" "$(base_of)" ||
  fail "stack_driver: a green night on a new driver did not become the baseline"
stack_night 0 stack_cuda "$st/cuda.json" "CUDA runtime 13.0 → 13.1"
grep -q "STACK ADOPTED" "$tmp/stack_cuda.log" || fail "stack_cuda: the green night was not adopted"
stack_night 1 stack_nccl_slow "$st/nccl-slow.json" "NCCL 2.28.9 → 2.29.2"
grep -q "^stack changed: NCCL 2.28.9 → 2.29.2: [1-9][0-9]* cases slower, 0 faster, run-level +10" \
  "$(latest "$st/results")/compare.txt" || fail "stack_nccl_slow: the head does not count the slower cases"
grep -q "REGRESSION" "$tmp/stack_nccl_slow.log" && grep -q "STACK NOT ADOPTED" "$tmp/stack_nccl_slow.log" ||
  fail "stack_nccl_slow: an upgrade that slowed every case did not fail the night, or was adopted"
cmp -s "$st/cuda.json" "$(base_of)" || fail "stack_nccl_slow: the failed night replaced the baseline"
stack_night 0 stack_nccl "$st/nccl.json" "NCCL 2.28.9 → 2.29.2"
cmp -s "$st/nccl.json" "$(base_of)" || fail "stack_nccl: the green night on the new NCCL was not adopted"
night 0 stack_same ARBENCH_RESULTS_DIR="$st/results" -- --from-result "$st/nccl.json"
grep -q "STACK CHANGED" "$tmp/stack_same.log" && fail "stack_same: a banner although the stack is the baseline's"
(($(count "$st"/results/history/*.jsonl) == 1)) || fail "the stack changes did not keep one history"
"$py" - "$(echo "$st"/results/history/*.jsonl)" "$(latest "$st/results")/report.html" <<'PY' || fail "the history or the page does not mark the stack changes"
import json, sys
stacks = []
for line in open(sys.argv[1]):
    h = json.loads(line)
    if not stacks or stacks[-1][0] != h["date"]:
        stacks.append((h["date"], h["stack"]))
assert [s for _, s in stacks][1].startswith("driver 590.10 · CUDA runtime 13.0"), stacks
page = open(sys.argv[2]).read()
assert 'data-stack-changes="3"' in page, "data-stack-changes"  # driver, CUDA, NCCL (the red night)
assert page.count('class="stack-change"') >= 3 and "Stack changes (dashed lines)" in page
PY
night 2 stack_moved ARBENCH_RESULTS_DIR="$st/results" -- --from-result "$st/moved.json"
grep -q "different machines" "$tmp/stack_moved.log" && grep -q "gpus: " "$tmp/stack_moved.log" ||
  fail "stack_moved: other hardware of this host was not refused naming the GPUs"
(($(count "$st/results/nightly" -mindepth 1 -maxdepth 1) == 6)) || fail "stack_moved: a night folder was left behind"

# A results folder of the old fingerprints (hardware and stack hashed together), with the committed
# result written before the split as its baseline: migrated, compared, one continuous history.
old=$repo/results/samples/host-cpu-timing-sample.json
oldfp=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["arbench"]["provenance"]["fingerprint"])' "$old")
mkdir -p "$gpu/legacy/baselines" "$gpu/legacy/history"
"$py" - "$old" "$gpu/legacy" "$oldfp" "$repo/scripts" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
import stack
doc = json.load(open(sys.argv[1]))
doc["arbench"]["config"]["sweep_key"] = "01d5a3b1e0000000"
json.dump(doc, open(f"{sys.argv[2]}/baselines/{sys.argv[3]}-01d5a3b1e0000000.json", "w"))
open(f"{sys.argv[2]}/history/{sys.argv[3]}-01d5a3b1e0000000.jsonl", "w").write(json.dumps(
    {"date": "2026-11-30T00:00:00Z", "case": doc["arbench"]["cases"][0]["name"], "median_us": 1.0}) + "\n")
prov = doc["arbench"]["provenance"]  # tonight: the same box, written by today's arbench
prov["machine"] = {"id": stack.machine_id(prov), "fields": stack.machine_fields(prov)}
prov["stack"] = stack.stack(prov)
json.dump(doc, open(f"{sys.argv[2]}/tonight.json", "w"))
PY
night 0 legacy ARBENCH_RESULTS_DIR="$gpu/legacy" -- --from-result "$gpu/legacy/tonight.json"
grep -q "^nightly: MIGRATED: baseline and history" "$tmp/legacy.log" || fail "legacy: the old baseline was not migrated"
"$py" -c 'import json,sys; sys.exit(not json.load(open(sys.argv[1]))["base_migrated"])' \
  "$(latest "$gpu/legacy")/compare.json" || fail "legacy: compare does not say the baseline was migrated"
grep -q "compared case(s)" "$(latest "$gpu/legacy")/compare.txt" || fail "legacy: the old baseline was not compared"
(($(cat "$gpu"/legacy/history/*.jsonl | wc -l) == 247)) || fail "legacy: the old history was not continued"
"$exe" compare "$old" "$old" --format json --correctness-only >"$gpu/legacy/self.json"
[[ $("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["base_machine"])' "$gpu/legacy/self.json") == \
   $("$py" "$repo/scripts/stack.py" machine "$old") ]] || fail "scripts/stack.py and arbench disagree on the old result's machine"

fi  # stack changes, old fingerprints

# ---- results that must not become a baseline, inputs that are not results ------------------
if [[ $part == gpu || $part == all ]]; then
"$py" - "$gpu/c.json" "$gpu/partial.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["arbench"]["incomplete"] = {"reason": "interrupted (Ctrl-C)", "cases_planned": 99,
                                "cases_run": len(doc["arbench"]["cases"]), "not_run": []}
json.dump(doc, open(sys.argv[2], "w"))
PY
night 2 incomplete_first ARBENCH_RESULTS_DIR="$gpu/fresh" -- --from-result "$gpu/partial.json"
grep -q "tonight's result is incomplete (interrupted (Ctrl-C)" "$tmp/incomplete_first.log" ||
  fail "an incomplete first night did not say why it is refused"
(($(count "$gpu"/fresh/baselines/*.json) == 0)) || fail "an incomplete result became the baseline"
before=$(md5sum "${gpu_baselines[0]}")
night 2 incomplete_update ARBENCH_RESULTS_DIR="$gpu/results" -- --update-baseline --from-result "$gpu/partial.json"
[[ $(md5sum "${gpu_baselines[0]}") == "$before" ]] || fail "--update-baseline replaced the baseline with an incomplete result"
night 0 incomplete_compared ARBENCH_RESULTS_DIR="$gpu/results" -- --from-result "$gpu/partial.json"
grep -q "INCOMPLETE: tonight's result stopped early" "$tmp/incomplete_compared.log" || fail "an incomplete night is not marked"
printf '\x7fELF\x00\x01binary' >"$gpu/binary.json"
printf '{"weights": [1, 2]}\n' >"$gpu/other.json"
cp "$repo/tests/fixtures/topo/loaded_4gpu.json" "$gpu/topo.json"  # another command's output
for f in binary other topo; do
  night 2 "garbage_$f" ARBENCH_RESULTS_DIR="$gpu/results" -- --from-result "$gpu/$f.json"
  grep -q "not an arbench result" "$tmp/garbage_$f.log" || fail "garbage_$f: no clean message"
  grep -q "Traceback" "$tmp/garbage_$f.log" && fail "garbage_$f: a Python traceback"
done
night 2 folder_not_result ARBENCH_RESULTS_DIR="$gpu/results" -- --from-result "$gpu"
grep -q "not a file" "$tmp/folder_not_result.log" || fail "a folder as --from-result: no clean message"

# The results folder is checked before any work.
night 2 unwritable ARBENCH_RESULTS_DIR=/proc/arbench-nightly
grep -q "cannot create or write this folder" "$tmp/unwritable.log" || fail "an unwritable results folder: no message"
grep -q "^nightly: .* run " "$tmp/unwritable.log" && fail "the sweep ran although its results could not be written"

# Without ARBENCH_EXE: scripts/build.sh release (an up-to-date build/release is reused), never a
# build of its own (was: build/nightly, a second full build beside scripts/run.sh's).
tree=$tmp/tree
mkdir -p "$tree/scripts" "$tree/build/release"
cp "$repo"/scripts/*.sh "$repo"/scripts/*.py "$tree/scripts/"
touch "$tree/CMakeLists.txt"  # a source tree: without it the nightly takes itself for an installed one
printf '#!/usr/bin/env bash\necho "build.sh $*" >>"%s"\nln -sf "%s" "%s"\n' "$tmp/build-calls.log" "$exe" \
  "$tree/build/release/arbench" >"$tree/scripts/build.sh"
chmod +x "$tree/scripts/build.sh"
env ARBENCH_EXE= ARBENCH_RESULTS_DIR="$tmp/tree-results" bash "$tree/scripts/nightly.sh" --no-plots \
  --from-result "$gpu/a.json" >"$tmp/build_reuse.log" 2>&1 || { cat "$tmp/build_reuse.log"; fail "the nightly could not build"; }
grep -qx "build.sh release --target arbench" "$tmp/build-calls.log" || fail "the nightly did not build with scripts/build.sh release"
[[ -e $tree/build/nightly ]] && fail "the nightly made a build of its own (build/nightly)"
fi  # results refused, build
if ((${#flags[@]})); then
  echo "skip: every nightly check passed but the plots', unchecked: $py_why"
  exit 77
fi
echo "PASS"
