#!/usr/bin/env bash
# The layering check (scripts/check_layering.py): the tree as it is passes, and each planted
# violation — kernels or algo code including a bench/ header, analysis including CUDA, a
# folder including a concern its README does not allow (measure/ reaching run/, a folder
# reaching its own subfolder's layer), a folder without its README, a folder of more than 20 files — fails
# with a message naming the file and the rule.
set -uo pipefail
src=${1:?usage: test_layering.sh SOURCE_DIR}
check="python3 $src/scripts/check_layering.py"

out=$($check --root "$src" 2>&1) || { echo "FAIL: the tree itself violates the layering:"; echo "$out"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
# plant FILE LINE EXPECTED: adds LINE at the top of FILE in a fresh copy; the check must exit 1
# and print EXPECTED.
plant() {
  rm -rf "$tmp/tree" && mkdir -p "$tmp/tree" && cp -r "$src/bench" "$src/kernels" "$src/include" "$tmp/tree/"
  if [ "$2" = "--remove" ]; then rm "$tmp/tree/$1"
  elif [ "$2" = "--crowd" ]; then  # files added to folder $1 until it holds 21
    while (($(find "$tmp/tree/$1" -maxdepth 1 -type f | wc -l) <= 20)); do mktemp -p "$tmp/tree/$1" extra_XXXX.hpp >/dev/null; done
  else sed -i "1i $2" "$tmp/tree/$1"; fi
  out=$($check --root "$tmp/tree" 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! grep -qF -- "$3" <<<"$out"; then
    echo "FAIL: planting '$2' in $1 gave exit $rc, expected 1 and '$3'; output:"; echo "$out"
    fails=$((fails + 1))
  fi
}
plant kernels/symm/oneshot_pull.cu '#include "measure/harness.hpp"' \
  'kernels/symm/oneshot_pull.cu:1: includes "measure/harness.hpp" from bench/'
plant include/arbench/algo/partition.hpp '#include "results/stats.hpp"' \
  'include/arbench/algo/partition.hpp:1: includes "results/stats.hpp" from bench/'
plant bench/analysis/compare.cpp '#include <cuda_runtime.h>' \
  'bench/analysis/compare.cpp:1: includes <cuda_runtime.h>, which bench/analysis/README.md forbids'
plant bench/results/report.cpp '#include "sweep/run_config.hpp"' \
  'bench/results/report.cpp:1: includes "sweep/run_config.hpp", outside what bench/results/README.md allows'
plant kernels/ring/ring_twin.cpp '#include <nlohmann/json.hpp>' 'which kernels/ring/README.md forbids'
plant bench/topo/README.md --remove 'bench/topo/README.md: missing'
# The layers inside bench/ and kernels/fabric/ point one way: measure/ never reaches run/, the
# host-only topology never reaches its CUDA half, host fabrics never reach the NCCL layer.
plant bench/measure/harness.cpp '#include "run/run_console.hpp"' \
  'bench/measure/harness.cpp:1: includes "run/run_console.hpp", outside what bench/measure/README.md allows'
plant bench/sweep/sweep.cpp '#include "measure/harness.hpp"' \
  'bench/sweep/sweep.cpp:1: includes "measure/harness.hpp", outside what bench/sweep/README.md allows'
plant bench/topo/report.cpp '#include "topo/gpu/probe.hpp"' \
  'bench/topo/report.cpp:1: includes "topo/gpu/probe.hpp", outside what bench/topo/README.md allows'
plant kernels/fabric/host/host_fabric.cpp '#include "kernels/fabric/nccl/nccl_api.hpp"' \
  'kernels/fabric/host/host_fabric.cpp:1: includes "kernels/fabric/nccl/nccl_api.hpp", outside what kernels/fabric/host/README.md allows'
plant kernels/fabric/cuda/cuda_fabric.cu '#include "kernels/fabric/nccl/nccl_api.hpp"' \
  'kernels/fabric/cuda/cuda_fabric.cu:1: includes "kernels/fabric/nccl/nccl_api.hpp", outside what kernels/fabric/cuda/README.md allows'
# The subfolders split off their folders point one way too: up to the folder, never back down
# (measure/ never reaches run/process/; the GPU fabrics' common part never reaches process/;
# measure/nccl/ is a leaf).
plant bench/measure/harness.cpp '#include "run/process/multi_process.hpp"' \
  'bench/measure/harness.cpp:1: includes "run/process/multi_process.hpp", outside what bench/measure/README.md allows'
plant kernels/fabric/cuda/cuda_fabric.cu '#include "kernels/fabric/cuda/process/process_gpu.hpp"' \
  'kernels/fabric/cuda/cuda_fabric.cu:1: includes "kernels/fabric/cuda/process/process_gpu.hpp", outside what kernels/fabric/cuda/README.md allows'
plant bench/measure/nccl/tuner_plugin.cpp '#include "measure/harness.hpp"' \
  'bench/measure/nccl/tuner_plugin.cpp:1: includes "measure/harness.hpp", outside what bench/measure/nccl/README.md allows'
# A folder grown past 20 files is named (split it by concern, moves only).
plant bench/run --crowd 'bench/run/: holds 21 files, more than 20; split it by concern'
[ $fails -eq 0 ] && echo "layering: the tree passes and all 15 planted violations are caught"
exit $((fails > 0))
