#!/usr/bin/env bash
# The ctest `layering`: the layering check on the sources (test_layering.sh: includes, READMEs,
# crowded folders), then on the objects of BUILD_DIR (scripts/check_layering.py --build): no
# function kernels/ calls is defined in bench/. The build as it is passes; a kernels/ object that
# calls a bench/ function it declared by hand (no bench/ header included: only the objects show
# it) is named with the function and its bench/ file, and so are the host fabrics' calls once the
# World is built in bench/core/ again (where it was until issue 39).
set -uo pipefail
src=${1:?usage: test_layering_build.sh SOURCE_DIR BUILD_DIR CXX}
build=${2:?usage: test_layering_build.sh SOURCE_DIR BUILD_DIR CXX}
cxx=${3:?usage: test_layering_build.sh SOURCE_DIR BUILD_DIR CXX}
check="python3 $src/scripts/check_layering.py --root $src"

bash "$(dirname "$0")/test_layering.sh" "$src" || exit 1
out=$($check --build "$build" 2>&1) || { echo "FAIL: kernels/ calls into bench/ in $build:"; echo "$out"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
missed=0
# caught WHAT EXPECTED... : the last check's output ($out, exit $rc) names every EXPECTED.
caught() {
  local what=$1 want
  shift
  for want in "$@"; do
    [ "$rc" -eq 1 ] && grep -qF -- "$want" <<<"$out" && continue
    echo "FAIL: $what: exit $rc, expected 1 and '$want'; output:"; echo "$out"
    missed=$((missed + 1))
    return
  done
}

# A call from kernels/ into bench/text/wrap.cpp, declared by hand, in an object of arbench_twins.
obj=$tmp/planted/CMakeFiles/arbench_twins.dir/kernels/planted_call.cpp.o
mkdir -p "$(dirname "$obj")"
printf '%s\n' '#include <cstddef>' '#include <string>' \
  'namespace arbench { std::string wrap(const std::string& text, std::size_t width, std::size_t indent); }' \
  'std::string planted_call() { return arbench::wrap("planted", 80, 0); }' >"$tmp/planted_call.cpp"
"$cxx" -std=c++20 -c "$tmp/planted_call.cpp" -o "$obj" || { echo "FAIL: $cxx cannot compile the planted call"; exit 1; }
out=$($check --build "$build" --build "$tmp/planted" 2>&1); rc=$?
caught "a planted call from kernels/ into bench/" 'kernels/planted_call.cpp: calls arbench::wrap(' \
  'defined only in bench/text/wrap.cpp'

# The World implemented in bench/ again: the build's objects (linked), world.cpp's moved there.
mkdir -p "$tmp/view" && cp -rs "$(realpath "$build")/CMakeFiles" "$tmp/view/"
while IFS= read -r o; do
  dir=${o%/kernels/core/world.cpp.o}
  mkdir -p "$dir/bench/core" && mv "$o" "$dir/bench/core/world.cpp.o"
done < <(find "$tmp/view" -path '*/kernels/core/world.cpp.o')
out=$($check --build "$tmp/view" 2>&1); rc=$?
caught "world.cpp built in bench/core/" \
  'kernels/fabric/host/host_fabric.cpp: calls arbench::solo_world(), defined only in bench/core/world.cpp'

[ $missed -eq 0 ] && echo "layering: the objects of $build pass, and both planted calls into bench/ are caught"
exit $((missed > 0))
