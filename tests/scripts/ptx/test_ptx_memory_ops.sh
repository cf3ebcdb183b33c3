#!/usr/bin/env bash
# The PTX the device memory policy emits (scripts/ptx_memory_ops.py, docs/verification.md).
# Every protocol kernel of the build, for every architecture it targets, in the PTX nvcc embedded
# in the objects the build made (compiled again with the build's own flags only where that PTX
# cannot be unpacked here): each policy operation emits only its PTX (flags st.release.sys /
# ld.acquire.sys, data one 16-byte access ...), no ld.global.nc, no scope below .sys, every
# kernel has its protocol's operations, and each operation's count is the checked-in one
# (scripts/ptx_memory_ops.expected). Then the checker must fail on what a broken device policy
# or protocol would emit, planted in a copy of oneshot_pull's sm_90 PTX: a flag store at .gpu
# scope, a plain load for the acquire, a non-coherent load of peer data, the release stores gone,
# one of its two acquire loads gone; and in island_twoshot's (a cross-island flag at .gpu scope,
# one release store gone), island_oneshot's (an LL line read non-coherently, one LL store gone)
# and oneshot_fp8's (a flush-to-zero multiply: the FP8 kernels must keep fp32 subnormals); and in
# the probe kernels' (bench/topo/gpu/probe_kernels.cu) a plain cacheable peer load and a
# non-coherent one, either of which L1 may serve when a probe reads the same peer addresses again.
# Exit 77 (skipped) without nvcc or a configured build.
set -uo pipefail
src=${1:?usage: test_ptx_memory_ops.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: test_ptx_memory_ops.sh SOURCE_DIR BUILD_DIR}
tool="python3 $src/scripts/ptx_memory_ops.py"
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "no nvcc: skipped"; exit 77; }
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect=$src/scripts/ptx_memory_ops.expected
$tool check --build-dir "$build" --keep "$tmp/ptx" --expect "$expect" || exit 1
base=$tmp/ptx/oneshot_pull.cu.sm_90.ptx
[ -f "$base" ] || { echo "FAIL: no $base (does the build still target sm_90?)"; exit 1; }

fails=0
mkdir -p "$tmp/planted"
plant() {  # plant SED_SCRIPT EXPECTED_TEXT WHAT [KERNEL]
  local base=$tmp/ptx/${4:-oneshot_pull}.cu.sm_90.ptx planted=$tmp/planted/${4:-oneshot_pull}.cu.sm_90.ptx
  [ -f "$base" ] || { echo "FAIL: no $base (does the build still target sm_90?)"; fails=$((fails + 1)); return; }
  sed "$1" "$base" >"$planted"
  if cmp -s "$base" "$planted"; then
    echo "FAIL: planting '$3' changed nothing (sed '$1')"; fails=$((fails + 1)); return
  fi
  out=$($tool check --ptx "$planted" --policy "$src/kernels/mem_device.cuh" --expect "$expect" 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL: $3: exit $rc, expected 1 and '$2'; output:"; echo "$out"; fails=$((fails + 1))
  else
    echo "caught: $3"
  fi
}
plant 's/st\.release\.sys\.global/st.release.gpu.global/' "below system scope" "a flag store at .gpu scope"
plant 's/ld\.acquire\.sys\.global\.u32/ld.global.u32/' "emitted by DeviceMem::load_acquire" "a plain load for the acquire"
plant 's/ld\.global\.v4\.u32/ld.global.nc.v4.u32/' "a non-coherent load" "a non-coherent load of peer data"
plant '/st\.release\.sys\.global/d' "no instruction of DeviceMem::store_release" "the release stores dropped"
plant '0,/ld\.acquire\.sys\.global\.u32/{/ld\.acquire\.sys\.global\.u32/d}' \
  "DeviceMem::load_acquire emitted 1x ld.acquire.sys.global.u32, expected 2x" "one of two acquire loads dropped"
plant 's/st\.release\.sys\.global/st.release.gpu.global/' "below system scope" \
  "island-twoshot: a cross-island flag store at .gpu scope" island_twoshot
plant '0,/st\.release\.sys\.global\.u32/{/st\.release\.sys\.global\.u32/d}' \
  "DeviceMem::store_release emitted 2x st.release.sys.global.u32, expected 3x" \
  "island-twoshot: one of three release stores dropped" island_twoshot
plant 's/ld\.volatile\.global\.v2\.u64/ld.global.nc.v2.u64/' "a non-coherent load" \
  "island-oneshot: an LL line read non-coherently" island_oneshot
plant '0,/st\.volatile\.global\.v2\.u64/{/st\.volatile\.global\.v2\.u64/d}' \
  "DeviceMem::ll_store emitted 31x st.volatile.global.v2.u64, expected 32x" \
  "island-oneshot: one LL store dropped" island_oneshot
plant 's/^\(\s*\)mul\.f32/\1mul.ftz.f32/' "flush-to-zero instruction(s) (.ftz)" \
  "oneshot-fp8: fp32 subnormals flushed (as -ftz=true or --use_fast_math would)" oneshot_fp8
plant 's/ld\.global\.cg\.v4\.u32/ld.global.v4.u32/' "a load L1 may cache in a probe kernel" \
  "probe: a plain cacheable peer load (a repeated pull would time L1)" probe_kernels
plant 's/ld\.global\.cg\.v4\.u32/ld.global.nc.v4.u32/' "a load L1 may cache in a probe kernel" \
  "probe: a non-coherent peer load" probe_kernels
[ $fails -eq 0 ] || exit 1
echo "ptx-memory-ops: every protocol and probe kernel clean; the twelve planted violations caught"
