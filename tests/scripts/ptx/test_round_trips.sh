#!/usr/bin/env bash
# PCIe round trips per unit of work, counted from the PTX of every protocol kernel
# (scripts/round_trips.py, docs/round-trips.md). Every kernel of the build, for every architecture
# it targets (the PTX nvcc embedded in the objects the build made): within its family's bound, no
# serialised loop, every count the checked-in one (scripts/round_trips.expected), and
# docs/round-trips.md's table and include/arbench/core/round_trips_table.hpp up to date. Then the check
# must fail on planted kernels compiled here (tests/fixtures/round_trips/planted_kernel.cu):
# oneshot-pull's reduce with its loop over ranks not unrolled (a serialised loop), and unrolled but
# storing each rank's pack before loading the next (8 data waits per unit, bound 1).
# Exit 77 (skipped) without nvcc or a configured build.
set -uo pipefail
src=${1:?usage: test_round_trips.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: test_round_trips.sh SOURCE_DIR BUILD_DIR}
tool="python3 $src/scripts/round_trips.py"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$tool check --build-dir "$build" --expect "$src/scripts/round_trips.expected" --docs "$src/docs/round-trips.md" \
  --header "$src/include/arbench/core/round_trips_table.hpp" || exit 1

fails=0
plant() {  # plant DEFINE EXPECTED_TEXT WHAT
  "$nvcc" -I"$src/include" -I"$src" -std=c++20 -O3 -lineinfo -arch=sm_90 -ptx -D"$1" -x cu \
    "$src/tests/fixtures/round_trips/planted_kernel.cu" -o "$tmp/$1.ptx" || { fails=$((fails + 1)); return; }
  out=$($tool check --ptx "$tmp/$1.ptx" --kernel oneshot_pull 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL: $3: exit $rc, expected 1 and '$2'; output:"; echo "$out"; fails=$((fails + 1))
  else
    echo "caught: $3"
  fi
}
plant PLANT_SERIALISED "a serialised loop at planted_kernel.cu" "a loop over ranks left rolled"
plant PLANT_INTERLEAVED "8 wait(s) per unit" "each rank's pack stored before the next is loaded"
[ $fails -eq 0 ] || exit 1
echo "round-trips: every protocol kernel within its bound; the two planted kernels caught"
