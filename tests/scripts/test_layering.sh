#!/usr/bin/env bash
# The layering check (scripts/check_layering.py): the tree as it is passes, and each planted
# violation — kernels or algo code including a bench/ header, analysis including CUDA, a
# folder including a concern its README does not allow (measure/ reaching run/, a folder
# reaching its own subfolder's layer), a folder without its README, a folder of more than 20 files — fails
# with a message naming the file and the rule.
set -uo pipefail
checker=check_layering.py rules="the layering"
. "$(dirname "$0")/support/planted_check.sh"

# plant FILE LINE EXPECTED: adds LINE at the top of FILE in a fresh copy; the check must exit 1
# and print EXPECTED.
plant() {
  fresh_tree bench kernels include
  if [ "$2" = "--remove" ]; then rm "$tmp/tree/$1"
  elif [ "$2" = "--crowd" ]; then  # files added to folder $1 until it holds 21
    while (($(find "$tmp/tree/$1" -maxdepth 1 -type f | wc -l) <= 20)); do mktemp -p "$tmp/tree/$1" extra_XXXX.hpp >/dev/null; done
  else sed -i "1i $2" "$tmp/tree/$1"; fi
  expect_caught "planting '$2' in $1" "$3"
}
# plant_outside FILE HEADER: FILE includes "HEADER", which its folder's README.md does not allow.
plant_outside() {
  plant "$1" "#include \"$2\"" "$1:1: includes \"$2\", outside what $(dirname "$1")/README.md allows"
}
plant kernels/symm/oneshot_pull.cu '#include "measure/harness.hpp"' \
  'kernels/symm/oneshot_pull.cu:1: includes "measure/harness.hpp" from bench/'
plant include/arbench/algo/partition.hpp '#include "results/stats/stats.hpp"' \
  'include/arbench/algo/partition.hpp:1: includes "results/stats/stats.hpp" from bench/'
plant bench/analysis/compare.cpp '#include <cuda_runtime.h>' \
  'bench/analysis/compare.cpp:1: includes <cuda_runtime.h>, which bench/analysis/README.md forbids'
plant_outside bench/results/report.cpp sweep/run_config.hpp
plant kernels/ring/ring_twin.cpp '#include <nlohmann/json.hpp>' 'which kernels/ring/README.md forbids'
plant bench/topo/README.md --remove 'bench/topo/README.md: missing'
# The layers inside bench/ and kernels/fabric/ point one way: measure/ never reaches run/, the
# host-only topology never reaches its CUDA half, host fabrics never reach the NCCL layer.
plant_outside bench/measure/harness.cpp run/run_console.hpp
plant_outside bench/sweep/sweep.cpp measure/harness.hpp
plant_outside bench/topo/report.cpp topo/gpu/probe.hpp
plant_outside kernels/fabric/host/host_fabric.cpp kernels/fabric/nccl/nccl_api.hpp
plant_outside kernels/fabric/cuda/cuda_fabric.cu kernels/fabric/nccl/nccl_api.hpp
# The subfolders split off their folders point one way too: up to the folder, never back down
# (measure/ never reaches run/process/; the GPU fabrics' common part never reaches process/;
# measure/nccl/ is a leaf).
plant_outside bench/measure/harness.cpp run/process/multi_process.hpp
plant_outside kernels/fabric/cuda/cuda_fabric.cu kernels/fabric/cuda/process/process_gpu.hpp
plant_outside bench/measure/nccl/tuner_plugin.cpp measure/harness.hpp
# A folder grown past 20 files is named (split it by concern, moves only).
plant bench/run --crowd 'bench/run/: holds 21 files, more than 20; split it by concern'
[ $fails -eq 0 ] && echo "layering: the tree passes and all 15 planted violations are caught"
exit $((fails > 0))
