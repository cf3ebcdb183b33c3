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
# An object a compiler cache made in another checkout names that checkout's files. Once it is
# gone, the markers are read from the same paths under this tree (a reader that found no line left
# the work loop unmarked: "... outside its work loops"); a file found nowhere stops the check.
moved() {  # moved DIR SUBDIR: compile the planted kernel from a copy at DIR/SUBDIR, then remove DIR
  mkdir -p "$1/$2" && cp -r "$src/include" "$1/" && cp "$src/tests/fixtures/round_trips/planted_kernel.cu" "$1/$2/" &&
    "$nvcc" -I"$1/include" -I"$src" -std=c++20 -O3 -lineinfo -arch=sm_90 -ptx -DPLANT_INTERLEAVED -x cu \
      "$1/$2/planted_kernel.cu" -o "$1.ptx" && rm -rf "$1"
}
if moved "$tmp/gone-checkout" tests/fixtures/round_trips && out=$($tool check --ptx "$tmp/gone-checkout.ptx" --kernel oneshot_pull 2>&1);
   [ $? -eq 1 ] && grep -qF "8 wait(s) per unit at planted_kernel.cu" <<<"$out"; then
  echo "caught: the kernel of a removed checkout, read through this tree's files"
else
  echo "FAIL: a removed checkout's PTX: expected '8 wait(s) per unit at planted_kernel.cu'; output:"; echo "$out"
  fails=$((fails + 1))
fi
if moved "$tmp/elsewhere" src && out=$($tool check --ptx "$tmp/elsewhere.ptx" --kernel oneshot_pull 2>&1);
   [ $? -ne 0 ] && grep -qF "neither on this machine nor under" <<<"$out"; then
  echo "caught: a source file found nowhere stops the check"
else
  echo "FAIL: a source found nowhere: expected the check to stop and say so; output:"; echo "$out"
  fails=$((fails + 1))
fi
[ $fails -eq 0 ] || exit 1
echo "round-trips: every protocol kernel within its bound; the two planted kernels caught"
