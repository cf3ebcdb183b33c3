#!/usr/bin/env bash
# Kernel resources without a GPU (scripts/kernel_resources.py). First the checker itself, on
# saved ptxas reports (tests/fixtures/ptxas): a clean report passes; a spilling kernel, a kernel
# that compiled to almost nothing (4 registers, no barrier: what the fused kernels became when
# built without --expt-relaxed-constexpr) and a kernel nobody set expectations for all fail.
# Then every kernel of the build, for every architecture it targets, recompiled with the build's
# own flags and --resource-usage: no stack frame, no spill, its barriers and register floor, and
# the table in docs/variants.md up to date. Exit 77 (skipped) without nvcc or a configured build.
set -uo pipefail
src=${1:?usage: test_kernel_resources.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: test_kernel_resources.sh SOURCE_DIR BUILD_DIR}
check="python3 $src/scripts/kernel_resources.py check"
fixtures=$src/tests/fixtures/ptxas
fails=0

expect() {  # expect REPORT EXIT TEXT
  out=$($check --report "$fixtures/$1" --source start_gate.cu 2>&1); rc=$?
  if [ $rc -ne "$2" ] || ! grep -qF -- "$3" <<<"$out"; then
    echo "FAIL: $1 gave exit $rc, expected $2 and '$3'; output:"; echo "$out"
    fails=$((fails + 1))
  fi
}
expect clean.txt 0 "2 kernels, 0 problem(s)"
expect spill.txt 1 "fused_twoshot_kernel<fp16> (sm_120): 128 B stack frame, 140 B spill stores"
expect empty.txt 1 "fused_twoshot_kernel<fp16> (sm_120): 4 registers, below the floor"
expect empty.txt 1 "fused_twoshot_kernel<fp16> (sm_120): 0 barriers, expected 1"
expect unknown.txt 1 "mystery_kernel (sm_90): no expectation"
[ $fails -eq 0 ] || exit 1
echo "kernel-resources: the checker passes a clean report and catches spills, empty kernels and unknown kernels"

command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "no nvcc: skipped"; exit 77; }
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: skipped"; exit 77; }
$check --build-dir "$build" --docs "$src/docs/variants.md" >/dev/null
