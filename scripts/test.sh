#!/usr/bin/env bash
# Set up, build (with -Werror under CI=true) and run every test: host, tsan, model, mutation and
# gpu labels (gpu tests skip with a reason when no device is present: the reasons are printed
# after ctest's summary, scripts/ctest_skips.py), then where the time went (scripts/test_times.py).
#   scripts/test.sh            the whole suite (docs/developing.md: about 15 minutes on 2 cores)
#   scripts/test.sh --quick    the edit loop: only the tests labelled quick (under 3 minutes)
# Other arguments go to ctest (e.g. -R NAME, -L LABEL, -j N).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
ctest_args=()
for a in "$@"; do
  case $a in
    --quick) quick=(-L quick) ;;
    *) ctest_args+=("$a") ;;
  esac
done
scripts/setup.sh
preset=$([ "${CI:-}" = "true" ] && echo ci || echo release)
scripts/build.sh "$preset"
cd "build/$preset"
rc=0
ctest --output-on-failure --timeout 1500 -j "$(nproc)" --output-junit ctest-junit.xml \
  ${quick[@]+"${quick[@]}"} ${ctest_args[@]+"${ctest_args[@]}"} || rc=$?
python3 ../../scripts/ctest_skips.py ctest-junit.xml || true
python3 ../../scripts/test_times.py ctest-junit.xml || true
exit "$rc"
