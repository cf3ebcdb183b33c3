#!/usr/bin/env bash
# scripts/device-check.sh run exits non-zero when the GPU tests fail, after its sweep and summary,
# and 0 when they pass. Fake executables stand in for the carried folder (ARBENCH_DEVICE_CHECK_DIR):
# an arbench_gpu_tests that fails (then passes), an arbench that does nothing. Before, the script
# printed the tests' exit code and exited 0 whatever it was.
set -uo pipefail
src=${1:?usage: test_device_check.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/device-check
mkdir -p "$dir/lib" "$tmp/out"
cp "$src/scripts/device-summary.py" "$dir/"
printf '#!/bin/sh\nexit 0\n' >"$dir/arbench"
chmod +x "$dir/arbench"
fails=0
run_with_tests_exiting() {  # run_with_tests_exiting CODE: the exit code of device-check.sh run
  printf '#!/bin/sh\necho "[  FAILED  ] Planted.Failure"\nexit %s\n' "$1" >"$dir/arbench_gpu_tests"
  chmod +x "$dir/arbench_gpu_tests"
  ARBENCH_DEVICE_CHECK_DIR=$dir OUT=$tmp/out ARBENCH_NCCL_LIBRARY=/none bash "$src/scripts/device-check.sh" run \
    >"$tmp/log" 2>&1
}
run_with_tests_exiting 1
rc=$?
if [ $rc -eq 0 ]; then echo "FAIL: GPU tests exited 1 but device-check.sh run exited 0"; cat "$tmp/log"; fails=1; fi
grep -q "the GPU tests failed" "$tmp/log" || { echo "FAIL: no message naming the failed GPU tests"; cat "$tmp/log"; fails=1; }
grep -q "cases, " "$tmp/log" || { echo "FAIL: the summary was not printed before the exit"; cat "$tmp/log"; fails=1; }
run_with_tests_exiting 0
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: GPU tests passed but device-check.sh run exited $rc"; cat "$tmp/log"; fails=1; fi
[ $fails -eq 0 ] && echo "device-check: a failing GPU test fails the run; passing ones do not"
exit $fails
