#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release; `ci` under CI=true).
# Usage: scripts/build.sh [preset] [extra cmake --build args]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
preset=${1:-$([ "${CI:-}" = "true" ] && echo ci || echo release)}
shift || true
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" "$@"
