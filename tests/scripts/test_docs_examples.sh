#!/usr/bin/env bash
# Docs that run (scripts/check_docs.py --run-examples): every command of README.md and docs/*.md
# that needs no GPU runs from this build, and each transcript keeps its output's shape. Then
# planted pages show that each kind of rot is caught: an example with an option arbench lacks, a
# transcript in an output format arbench no longer prints, a compare of the shipped sample with a
# result of this machine without --allow-different-machines; and that a GPU-only line is not run.
set -uo pipefail
src=${1:?usage: test_docs_examples.sh SOURCE_DIR ARBENCH_EXE}
exe=${2:?usage: test_docs_examples.sh SOURCE_DIR ARBENCH_EXE}
check="python3 $src/scripts/check_docs.py"

out=$($check --root "$src" --arbench "$exe" --run-examples --verbose 2>&1) ||
  { echo "FAIL: the examples of the documentation do not run as shown:"; echo "$out"; exit 1; }
echo "$out" | grep -E "example command|not run" | head -40

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
fails=0
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
MD
out=$($check --root "$tmp/tree" --arbench "$exe" --run-examples --pages docs/planted.md --verbose 2>&1) ||
  { echo "FAIL: a page that matches was reported:"; echo "$out"; fails=$((fails + 1)); }
grep -q "not run: arbench run --backend cuda --gpus 8 (needs a GPU" <<<"$out" || { echo "FAIL: no GPU skip: $out"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "docs_examples: every example runs as shown, and the 3 planted faults are caught"
exit $((fails > 0))
