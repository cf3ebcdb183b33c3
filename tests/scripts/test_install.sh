#!/usr/bin/env bash
# Install works on day one: from a build tree where only arbench was built (as scripts/run.sh
# builds it, `--target arbench`), `cmake --install BUILD --prefix P` exits 0 and P holds what a
# user runs, working from there:
#   - building arbench builds the tuner plugin (ninja's graph: the plugin is an input of arbench),
#     so the install never finds it missing (was: "file INSTALL cannot find libarbench-nccl-tuner.so")
#   - P/bin/arbench runs; P/lib/libarbench-nccl-tuner.so is there
#   - P/bin/arbench settings finds the installed plugin (no "not found" warning; its paste lines
#     name P/lib), and from a folder without one its warning names the place it really looked
#   - P/share/arbench/scripts/nightly.sh runs a night with P/bin/arbench (no build, no sources),
#     and its plot.py/report.py/history.py are found beside it
# Usage: test_install.sh REPO BUILD_DIR   (BUILD_DIR: a configured tree with arbench built)
set -uo pipefail
repo=${1:?usage: test_install.sh REPO BUILD_DIR}
build=${2:?usage: test_install.sh REPO BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
P=$tmp/prefix

# (the query is read whole first: `grep -q` would close the pipe early, and under pipefail ninja's
# SIGPIPE would fail the check)
query=$(ninja -C "$build" -t query arbench 2>/dev/null) || fail "ninja -t query arbench failed in $build"
grep -q 'libarbench-nccl-tuner.so' <<<"$query" ||
  fail "building the target arbench does not build the tuner plugin (add_dependencies(arbench arbench_nccl_tuner))"
echo "ok: building arbench builds libarbench-nccl-tuner.so"
[[ -x $build/arbench ]] || fail "$build/arbench is not built"

cmake --install "$build" --prefix "$P" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install exited $?"; }
echo "ok: cmake --install $build --prefix P exited 0"
for f in bin/arbench lib/libarbench-nccl-tuner.so share/arbench/scripts/nightly.sh share/arbench/scripts/plot.py \
         share/arbench/scripts/report.py share/arbench/scripts/history.py \
         share/arbench/results/reference/published-pcie-allreduce.json; do
  [[ -e $P/$f ]] || fail "P/$f is not installed: $(cd "$P" && find . -type f)"
done
for f in bin/arbench share/arbench/scripts/nightly.sh share/arbench/scripts/plot.py share/arbench/scripts/report.py; do
  [[ -x $P/$f ]] || fail "P/$f is not executable"
done
"$P/bin/arbench" --version >"$tmp/v.txt" 2>&1 || { cat "$tmp/v.txt"; fail "P/bin/arbench --version failed"; }
echo "ok: $(head -1 "$tmp/v.txt")"

# settings: the installed plugin is found (and named in the paste lines).
fixture=$repo/tests/fixtures/settings/pcie8-crossovers.json
(cd "$tmp" && "$P/bin/arbench" settings "$fixture" --out-dir "$tmp/s") >"$tmp/settings.txt" 2>&1 ||
  { cat "$tmp/settings.txt"; fail "P/bin/arbench settings failed"; }
! grep -q "not found" "$tmp/settings.txt" || { grep "not found" "$tmp/settings.txt"; fail "settings did not find the installed plugin"; }
grep -qF "plugin   $P/lib/libarbench-nccl-tuner.so" "$tmp/settings.txt" ||
  { grep plugin "$tmp/settings.txt"; fail "settings does not name the installed plugin"; }
echo "ok: settings names $P/lib/libarbench-nccl-tuner.so"
# Without the plugin, the warning says where it looked and what would put it there, nothing else.
mkdir -p "$tmp/bare/bin"
cp "$P/bin/arbench" "$tmp/bare/bin/"
"$tmp/bare/bin/arbench" settings "$fixture" --out-dir "$tmp/s2" >"$tmp/bare.txt" 2>&1 || { cat "$tmp/bare.txt"; fail "settings failed"; }
flat=$(tr -s ' \n' '  ' <"$tmp/bare.txt")  # the warning is fitted to 120 columns: read it as one line
grep -qF "libarbench-nccl-tuner.so not found (looked at $tmp/bare/bin/libarbench-nccl-tuner.so, $tmp/bare/lib/libarbench-nccl-tuner.so)" \
  <<<"$flat" || { head -5 "$tmp/bare.txt"; fail "the warning does not say where settings looked"; }
grep -qF "the lines below name $tmp/bare/lib/libarbench-nccl-tuner.so, where \`cmake --install\` puts it" <<<"$flat" ||
  { head -5 "$tmp/bare.txt"; fail "the warning does not say what puts it there"; }
awk 'length > 120 { bad = 1 } END { exit bad }' "$tmp/bare.txt" || fail "a settings line over 120 columns"
echo "ok: without the plugin, the warning names where it looked"

# The installed nightly, with no sources anywhere near it: P/bin/arbench, a night, a page.
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3)
env -u ARBENCH_EXE -u ARBENCH_BUILD_DIR -u ARBENCH_RESULTS_DIR ARBENCH_PYTHON=$py "$P/share/arbench/scripts/nightly.sh" --results "$tmp/r" --no-plots -- --backend host --gpus 2 \
  -b 1K -e 2K --family allreduce --variants ring --samples 5 --warmup 1 >"$tmp/nightly.txt" 2>&1 ||
  { cat "$tmp/nightly.txt"; fail "the installed nightly.sh exited $?"; }
grep -qF "nightly: $P/bin/arbench run" "$tmp/nightly.txt" || { cat "$tmp/nightly.txt"; fail "the installed nightly did not run P/bin/arbench"; }
! grep -q "building arbench" "$tmp/nightly.txt" || fail "the installed nightly tried to build"
ls "$tmp"/r/nightly/*/report.html >/dev/null 2>&1 || { cat "$tmp/nightly.txt"; fail "the installed nightly wrote no page"; }
awk 'length > 120 { bad = 1 } END { exit bad }' "$tmp/nightly.txt" || { cat "$tmp/nightly.txt"; fail "a nightly line over 120 columns"; }
echo "ok: the installed nightly.sh ran a night with P/bin/arbench"
echo "PASS"
