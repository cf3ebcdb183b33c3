#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, run the default sweep, print the table and
# write results/latest.json and results/latest.csv. Extra arguments go to `arbench run`
# (e.g. --gpus 2,8 -e 16M).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-test-tools  # what running needs; test tools (Chromium, npm validators) are scripts/test.sh's
scripts/build.sh release --target arbench
echo "arbench: running build/release/arbench run --out results/latest.json --csv results/latest.csv $*"
exec build/release/arbench run --out results/latest.json --csv results/latest.csv "$@"
