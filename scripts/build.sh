#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release; `ci` under CI=true), then says where
# the arbench binary is and how to put it on the PATH.
# Usage: scripts/build.sh [preset] [extra cmake --build args]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
preset=${1:-$([ "${CI:-}" = "true" ] && echo ci || echo release)}
shift || true
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" "$@"
if [ -x "build/$preset/arbench" ]; then
  echo "arbench: built $(pwd)/build/$preset/arbench"
  echo "arbench: to put it on the PATH: cmake --install build/$preset --prefix ~/.local  (then ~/.local/bin/arbench)"
fi
