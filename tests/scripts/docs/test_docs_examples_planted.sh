#!/usr/bin/env bash
# Docs that run, the checker itself (the pages run in the docs_examples.<page> entries,
# test_docs_examples.sh): every page with an example that runs without a GPU has its entry (the
# pages CMake registered are the arguments after ARBENCH_EXE; a page that gained examples since
# CMake ran fails here). Then planted pages show that each kind of rot is caught: an example with
# an option arbench lacks, a transcript in an output format arbench no longer prints, a compare of
# the shipped sample with a result of this machine without --allow-different-machines, a message
# table (`<!-- docs-run: messages -->`) showing a message arbench no longer prints; that a
# GPU-only line is not run; and that a page with examples but no entry is named.
set -uo pipefail
usage="usage: test_docs_examples_planted.sh SOURCE_DIR ARBENCH_EXE REGISTERED_PAGE..."
src=${1:?$usage}
exe=${2:?$usage}
shift 2
registered=("$@")
check="python3 $src/scripts/check_docs.py"
fails=0

uncovered() {  # uncovered ROOT PAGE...: the pages of ROOT with runnable examples that are not among PAGE...
  local root=$1 page
  shift
  while read -r page; do
    [[ " $* " == *" $page "* ]] || echo "$page"
  done < <($check --root "$root" --example-pages)
}
left_out=$(uncovered "$src" "${registered[@]}")
[ -z "$left_out" ] || { echo "FAIL: pages with examples that no docs_examples entry runs (re-run cmake):"
                        echo "$left_out"; fails=$((fails + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/docs" "$tmp/tree/results/samples" "$tmp/tree/tests" "$tmp/tree/scripts"
# The shipped sample, moved to another machine: it was recorded on a 2-core VM named "vm", and a
# machine of that kind has the same fingerprint, so the copy names a host no machine has.
python3 - "$src/results/samples/host-cpu-timing-sample.json" "$tmp/tree/results/samples/host-cpu-timing-sample.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["arbench"]["provenance"]
p["host_name"] = p["fingerprint_fields"]["host_name"] = "a-machine-no-test-runs-on"
p["fingerprint"] = "0" * 16
json.dump(d, open(sys.argv[2], "w"))
PY
plant() {  # plant EXPECTED: a page docs/planted.md (from stdin) must be reported with EXPECTED
  cat >"$tmp/tree/docs/planted.md"
  out=$($check --root "$tmp/tree" --arbench "$exe" --run-examples --pages docs/planted.md 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! grep -qF -- "$1" <<<"$out"; then
    echo "FAIL: expected exit 1 and '$1', got exit $rc:"; echo "$out"; fails=$((fails + 1))
  fi
}
plant "docs/planted.md:3: \`arbench list --backend host --gpus 2 --no-such-option\` exited 2, the page expects 0" <<'MD'
# planted
```sh
arbench list --backend host --gpus 2 --no-such-option
```
MD
# The planted page has a runnable example and no entry: it is named.
[ "$(uncovered "$tmp/tree" README.md)" = docs/planted.md ] ||
  { echo "FAIL: a page with examples but no entry was not named: '$(uncovered "$tmp/tree" README.md)'"; fails=$((fails + 1)); }
plant "no longer prints a line shaped like: allreduce/oneshot-pull/bf16/gpus:2/bytes:1024/skew:20    40.5 us" <<'MD'
# planted: the --skew output of an older arbench
```
$ arbench run --backend host --skew 0,20 --gpus 2 -b 1K -e 1K --variants oneshot-pull --family allreduce
allreduce/oneshot-pull/bf16/gpus:2/bytes:1024/skew:20    40.5 us  ...  p10_us 39.3518  p50_us 40.466  ...
```
MD
plant "exited 2, the page expects 0" <<'MD'
# planted: the shipped sample came from another machine
```sh
arbench run --backend host --gpus 2 -b 1K -e 1K --variants reference --family allreduce --out mine.json
arbench compare results/samples/host-cpu-timing-sample.json mine.json --threshold 25
```
MD
# A message table (`<!-- docs-run: messages -->`) showing what arbench no longer prints: the
# --nccl-channels message of an older arbench (was: the docs showed it for months, unchecked).
plant "docs/planted.md:6: \`arbench --nccl-channels 65\` (exit 2) no longer prints the message shown: --nccl-channels: 65 is out of range: 1 <= N <= 32" <<'MD'
# planted: a stale message
<!-- docs-run: messages -->

| input | message |
|---|---|
| `--nccl-channels 65` | `--nccl-channels: 65 is out of range: 1 <= N <= 32` |
| `--gpus 16` | `--gpus: 16 is out of range: 1 <= N <= 8` |
MD
# Not a fault: GPU-only lines are not run, and a transcript whose lines all appear passes.
cat >"$tmp/tree/docs/planted.md" <<'MD'
# fine
```sh
arbench run --backend cuda --gpus 8
arbench topo --out links.json
```
```
$ arbench list --backend host --gpus 2 -b 1K -e 1K --variants reference,nccl --family allreduce
# backend host: 1 cases, 1 skipped
allreduce/reference/bf16/gpus:2/bytes:1024
...
# skipped [1]: NCCL needs GPUs; the host backend runs CPU twins only
```
<!-- docs-run: messages -->

| input | message |
|---|---|
| `--gpus 16` | `arbench: error: --gpus: 16 is out of range: 1 <= N <= 8` |
| `-b 64K -e 1K` | `--min-bytes 64K is larger than …` |
MD
out=$($check --root "$tmp/tree" --arbench "$exe" --run-examples --pages docs/planted.md --verbose 2>&1) ||
  { echo "FAIL: a page that matches was reported:"; echo "$out"; fails=$((fails + 1)); }
grep -q "not run: arbench run --backend cuda --gpus 8 (needs a GPU" <<<"$out" || { echo "FAIL: no GPU skip: $out"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "docs_examples.planted: every page with examples has its entry (${#registered[@]}), the 4 planted faults and a page left out are caught"
exit $((fails > 0))
