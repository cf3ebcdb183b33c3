#!/usr/bin/env bash
# Set up, build (with -Werror under CI=true) and run every test: host, tsan and gpu labels
# (gpu tests skip with a reason when no device is present). Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
preset=$([ "${CI:-}" = "true" ] && echo ci || echo release)
scripts/build.sh "$preset"
cd "build/$preset"
exec ctest --output-on-failure --timeout 1500 -j "$(nproc)" "$@"
