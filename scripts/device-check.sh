#!/usr/bin/env bash
# The one prepared script for a lent GPU machine (one H200, sm_90, x86-64; nvcc and CMake but
# no package manager, none of our Debian libraries, NCCL only in its Python environment).
#
#   scripts/device-check.sh build   here: build for sm_90 into device-check/ (git-ignored), a
#                                   self-contained folder: executables + the few small shared
#                                   libraries they need (not libnccl, which is found there)
#   scripts/device-check.sh run     there: find NCCL, run the GPU tests and a short sweep (the
#                                   cuda backend on 1 GPU, the single-gpu fabric with 2/4/8
#                                   virtual ranks), print a short summary table last. < 6 min.
#                                   Exits 1 when a GPU test failed (or did not finish), after the
#                                   sweep and the summary: a failing GPU test is never a pass.
#
# Device call (carry the folder):  run(command="scripts/device-check.sh run",
#                                      carry=["device-check"], timeout_s=420)
# Results come back under $OUT (logs and JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${ARBENCH_DEVICE_CHECK_DIR:-device-check}  # the carried folder (tests point it elsewhere)

build() {
  scripts/setup.sh
  command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
  cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  cmake --build build/device -j "$(nproc)" --target arbench arbench_gpu_tests
  rm -rf "$dest" && mkdir -p "$dest/lib"
  cp build/device/arbench build/device/tests/arbench_gpu_tests "$dest/"
  # Copy the non-system shared libraries (Google Benchmark); glibc/libstdc++ come from the image.
  for exe in "$dest/arbench" "$dest/arbench_gpu_tests"; do
    # (`|| true`: an executable that needs none, e.g. the static-gtest GPU tests, is not an error)
    ldd "$exe" | awk '/=> \// {print $3}' |
      { grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libdl|libpthread|librt)\.so' || true; } |
      while read -r lib; do cp -L "$lib" "$dest/lib/"; done
  done
  cp scripts/device-summary.py "$dest/"
  du -sh "$dest"
}

find_nccl() {
  if [ -n "${ARBENCH_NCCL_LIBRARY:-}" ]; then return; fi
  for py in python3 /opt/torch/.venv/bin/python3; do
    dir=$($py -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null) || continue
    if [ -f "$dir/libnccl.so.2" ]; then export ARBENCH_NCCL_LIBRARY="$dir/libnccl.so.2"; return; fi
  done
  echo "device-check: NCCL not found in the Python environment; nccl variants will be skipped" >&2
}

run() {
  [ -x "$dest/arbench" ] || { echo "device-check: $dest/arbench missing: run 'scripts/device-check.sh build' here first and carry $dest" >&2; exit 3; }
  out=${OUT:-/tmp/arbench-device}
  mkdir -p "$out"
  case $dest in /*) libs=$dest/lib ;; *) libs=$PWD/$dest/lib ;; esac
  export LD_LIBRARY_PATH="$libs:${LD_LIBRARY_PATH:-}"
  find_nccl
  echo "== GPU $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null || echo '?') | NCCL ${ARBENCH_NCCL_LIBRARY:-none}"
  set +e
  timeout 150 "$dest/arbench_gpu_tests" --gtest_brief=1 2>&1 | tee "$out/gpu_tests.log" | tail -40
  tests_rc=${PIPESTATUS[0]}
  timeout 60 "$dest/arbench" topo --out "$out/topo.json" 2>&1 | tail -25
  timeout 60 "$dest/arbench" run --backend cuda --gpus 1 -b 1K -e 64M -f 4 --samples 30 --quiet \
    --out "$out/cuda.json" 2>&1 | tail -15
  timeout 150 "$dest/arbench" run --backend single-gpu --gpus 2,4,8 -b 1K -e 16M -f 4 --samples 30 --quiet \
    --family allreduce --out "$out/single_gpu.json" 2>&1 | tail -15
  timeout 60 "$dest/arbench" run --backend single-gpu --gpus 8 --family allreduce_rmsnorm --tokens 1,16,128 \
    --samples 30 --quiet --out "$out/fused.json" 2>&1 | tail -10
  set -e
  python3 "$dest/device-summary.py" "$out"/cuda.json "$out"/single_gpu.json "$out"/fused.json
  echo "gpu tests exit code: $tests_rc"
  if [ "$tests_rc" -ne 0 ]; then
    echo "device-check: the GPU tests failed (exit $tests_rc; 124: they did not finish in time): see $out/gpu_tests.log" >&2
    exit 1
  fi
}

case "${1:-}" in
  build) build ;;
  run) run ;;
  *) echo "usage: scripts/device-check.sh build|run" >&2; exit 2 ;;
esac
