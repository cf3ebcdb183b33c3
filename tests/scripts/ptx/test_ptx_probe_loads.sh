#!/usr/bin/env bash
# The probe kernels' peer loads bypass L1 (scripts/ptx_memory_ops.py rule 4, issue 57), checked
# without a build: bench/topo/gpu/probe_kernels.cu compiled to PTX for sm_90 here passes, and the
# same kernels planted with a plain cacheable load in copy_packs (what the probe had before:
# `src[i]`, which nvcc emits as ld.global.v4 or, through __restrict__ const, ld.global.nc.v4) fail
# with the probe's message. Exit 77 (skipped) without nvcc.
set -uo pipefail
src=${1:?usage: test_ptx_probe_loads.sh SOURCE_DIR}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tool="python3 $src/scripts/ptx_memory_ops.py"
ptx() {  # ptx INCLUDE_FIRST OUT: probe_kernels.cu's sm_90 PTX, headers looked up in INCLUDE_FIRST first
  "$nvcc" -I"$1" -I"$src/bench" -I"$src/include" -I"$src" -std=c++20 -O3 -DNDEBUG -lineinfo -arch=sm_90 -ptx \
    "$1/topo/gpu/probe_kernels.cu" -o "$2" || { echo "FAIL: nvcc on $1/topo/gpu/probe_kernels.cu"; exit 1; }
}
mkdir -p "$tmp/real/topo/gpu" "$tmp/planted/topo/gpu" "$tmp/out/real" "$tmp/out/planted"
cp "$src/bench/topo/gpu/probe_kernels.cu" "$src/bench/topo/gpu/probe_kernels.cuh" "$tmp/real/topo/gpu/"
cp "$tmp/real/topo/gpu/"* "$tmp/planted/topo/gpu/"
sed -i 's/__ldcg(src + \([^)]*\))/src[\1]/g' "$tmp/planted/topo/gpu/probe_kernels.cuh"
if cmp -s "$tmp/real/topo/gpu/probe_kernels.cuh" "$tmp/planted/topo/gpu/probe_kernels.cuh"; then
  echo "FAIL: planting a plain load changed nothing (does copy_packs still load with __ldcg(src + i)?)"; exit 1
fi
ptx "$tmp/real" "$tmp/out/real/probe_kernels.cu.sm_90.ptx"
ptx "$tmp/planted" "$tmp/out/planted/probe_kernels.cu.sm_90.ptx"
policy=$src/kernels/mem_device.cuh
$tool check --ptx "$tmp/out/real/probe_kernels.cu.sm_90.ptx" --policy "$policy" \
  --expect "$src/scripts/ptx_memory_ops.expected" || { echo "FAIL: the probe kernels' own PTX"; exit 1; }
out=$($tool check --ptx "$tmp/out/planted/probe_kernels.cu.sm_90.ptx" --policy "$policy" 2>&1); rc=$?
if [ $rc -ne 1 ] || ! grep -q "copy_kernel: .*a load L1 may cache in a probe kernel" <<<"$out" ||
   ! grep -q "fanout_copy_kernel: .*a load L1 may cache in a probe kernel" <<<"$out"; then
  echo "FAIL: a probe kernel with a plain cacheable peer load: exit $rc, expected 1 naming copy_kernel and"
  echo "fanout_copy_kernel; output:"; echo "$out"; exit 1
fi
echo "$out" | grep "a load L1 may cache" | cut -c1-160
echo "ptx-probe-loads: the probe kernels load past L1; the planted plain loads caught"
