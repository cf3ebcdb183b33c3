#!/usr/bin/env bash
# scripts/run.sh installs what running needs, never the test tools: on a machine without
# Chromium, Node or npm (a PATH that has none of them) it must not ask apt-get for chromium,
# nodejs or npm, nor call npm; scripts/test.sh (setup without --no-test-tools) does ask for them.
# Every tool the scripts call is a stub that logs its arguments: nothing is installed, built or
# run for real. The stubbed setup is the repository's own scripts/setup.sh.
set -uo pipefail
. "$(dirname "$0")/support/scripts_scratch.sh"

# A copy of the scripts in a scratch tree (run.sh works from its own repository).
scratch_scripts run.sh setup.sh build.sh test.sh ctest_skips.py
mkdir -p "$tree/build/release" "$tree/results"

# The machine: only these commands exist (no chromium, node or npm anywhere on PATH).
bin=$tmp/bin log=$tmp/calls.log
mkdir -p "$bin" "$tmp/cuda/include"
for tool in bash sh sed head dirname basename id cat env mkdir rm chmod nproc python3 tr grep; do
  p=$(command -v "$tool") && ln -s "$p" "$bin/$tool"
done
stub() {  # stub NAME [BODY]: logs "NAME ARGS" and runs BODY
  printf '#!/bin/sh\necho "%s $*" >>"%s"\n%s\n' "$1" "$log" "${2:-exit 0}" >"$bin/$1"
  chmod +x "$bin/$1"
}
stub apt-get
stub npm
stub sudo 'exec "$@"'
stub dpkg 'case "$*" in *chromium*|*nodejs*|*npm*) exit 1 ;; *) exit 0 ;; esac'  # Debian's packages: present
printf '#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n' >"$tmp/cuda/include/nccl.h"
stub nvcc "case \"\$*\" in *--dryrun*) echo '#\$ TOP=$tmp/cuda/bin/..' >&2 ;; *--version*) echo 'Cuda compilation tools, release 13.0, V13.0.88' ;; esac"
mkdir -p "$tmp/cuda/bin"
stub cmake
stub ctest 'exit 0'
printf '#!/bin/sh\necho "arbench $*" >>"%s"\n' "$log" >"$tree/build/release/arbench"
chmod +x "$tree/build/release/arbench"

run() {  # run SCRIPT ARGS...: with only the stubs on PATH
  : >"$log"
  env -i HOME="$tmp" PATH="$bin" bash "$tree/scripts/$1" "${@:2}" >"$tmp/out.log" 2>&1
}

run run.sh --gpus 2 || { cat "$tmp/out.log"; fail "run.sh exited $?"; }
grep -q '^arbench run --out results/latest.json --csv results/latest.csv --gpus 2$' "$log" ||
  { cat "$log" "$tmp/out.log"; fail "run.sh did not run arbench with its arguments"; }
if grep -Eq '^(apt-get|sudo) .*(chromium|nodejs|npm)' "$log" || grep -q '^npm ' "$log"; then
  cat "$log"; fail "run.sh installs test tools (Chromium, Node, npm packages) on a machine that only runs arbench"
fi
echo "run.sh: arbench ran, no test tool asked for"

# The check can fail: scripts/test.sh sets the test tools up, and is seen doing so.
run test.sh
grep -Eq '^apt-get .*install.*chromium' "$log" || { cat "$log"; fail "test.sh did not ask for chromium: the check above proves nothing"; }
echo "test.sh: asks for chromium (as it should)"
echo "PASS"
