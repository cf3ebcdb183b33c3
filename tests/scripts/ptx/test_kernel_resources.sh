#!/usr/bin/env bash
# Kernel resources without a GPU (scripts/kernel_resources.py). First the checker itself, on
# saved ptxas reports (tests/fixtures/ptxas): a clean report passes; a spilling kernel, a kernel
# that compiled to almost nothing (4 registers, no barrier: what the fused kernels became when
# built without --expt-relaxed-constexpr) and a kernel nobody set expectations for all fail; a
# peer's kernel (--peer) passes with its own stack frame and fails on a spill.
# Then the reader of built objects (scripts/cuda_objects.py) on a planted kernel compiled here for
# one architecture (tests/fixtures/ptxas/planted_kernel.cu: spills, a second barrier, few
# registers): all three are reported from the object. Then every kernel of the build, for every
# architecture it targets, read from the objects the build made: no stack frame, no spill, its
# barriers and register floor, and the table in docs/variants.md up to date (the table came from
# ptxas's own report, so the reader agrees with ptxas on every row); in a build with peers, their
# kernels too, by the peers' rules and outside the docs table. Exit 77 (skipped) without
# nvcc or a configured build.
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
# A peer's kernel (kernels/peers/): its own stack frame is reported, not a failure; a spill fails.
peer() {  # peer REPORT EXIT TEXT
  out=$($check --report "$fixtures/$1" --source vllm_custom_ar.cu --peer 2>&1); rc=$?
  if [ $rc -ne "$2" ] || ! grep -qF -- "$3" <<<"$out"; then
    echo "FAIL: $1 (peer) gave exit $rc, expected $2 and '$3'; output:"; echo "$out"
    fails=$((fails + 1))
  fi
}
peer peer_stack.txt 0 "| 31 | 0 | 64 | 0 / 0 | 1 |"
peer peer_spill.txt 1 "24 B spill stores, 24 B spill loads in a peer's kernel"
[ $fails -eq 0 ] || exit 1
echo "kernel-resources: the checker passes a clean report and catches spills, empty kernels and unknown kernels"

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: skipped"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$nvcc" -arch=sm_90 -maxrregcount=24 -c "$fixtures/planted_kernel.cu" -o "$tmp/planted.o" || exit 1
out=$($check --object "$tmp/planted.o" --source planted_kernel.cu 2>&1); rc=$?
for want in "fused_twoshot_kernel<fp16> \(sm_90\): [1-9][0-9]* B stack frame, \? B spill stores" \
    "fused_twoshot_kernel<fp16> \(sm_90\): 2 barriers, expected 1" \
    "fused_twoshot_kernel<fp16> \(sm_90\): [0-9]+ registers, below the floor of 45"; do
  if [ $rc -ne 1 ] || ! grep -qE -- "$want" <<<"$out"; then
    echo "FAIL: the planted object gave exit $rc, expected 1 and '$want'; output:"; echo "$out"
    fails=$((fails + 1))
  fi
done
[ $fails -eq 0 ] || exit 1
echo "kernel-resources: the object reader catches a planted spill, barrier and register regression"

$check --build-dir "$build" --docs "$src/docs/variants.md" >/dev/null
