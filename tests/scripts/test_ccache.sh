#!/usr/bin/env bash
# The cached build (CMakeLists.txt, "ccache"): with ccache installed, C++ and CUDA compile through
# it with the source tree as its base dir, so a copy of the tree in another folder hits the cache
# that the first filled; with -DARBENCH_CCACHE=OFF (what a machine without ccache gets) nothing
# goes through ccache and the same object still builds. Exit 77: no ccache on this machine.
set -uo pipefail
src=${1:?usage: test_ccache.sh SOURCE_DIR}
command -v ccache >/dev/null 2>&1 || { echo "skip: no ccache on this machine (scripts/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Two copies of the tracked sources in different folders, as two clones would be.
for copy in a b; do
  mkdir -p "$tmp/$copy"
  (cd "$src" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$tmp/$copy" ||
    fail "could not copy the sources of $src"
done
export CCACHE_DIR=$tmp/cache  # an empty cache of its own: the developer's is never touched
configure() {  # configure SOURCE BUILD [cmake args...]
  local s=$1 b=$2; shift 2
  cmake -S "$s" -B "$b" -G Ninja -DARBENCH_BUILD_TESTS=OFF "$@" >"$b.log" 2>&1 ||
    { cat "$b.log"; fail "cmake could not configure $s ($*)"; }
}
hits() { ccache --print-stats | awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" {n += $2} END {print n + 0}'; }

configure "$tmp/a" "$tmp/a/build"
# One C++ object of the first library, whatever its sources are called today.
object=$(ninja -C "$tmp/a/build" -t targets all | sed -n 's/^\(CMakeFiles\/arbench_core\.dir\/[^:]*\.cpp\.o\): .*/\1/p' | head -n 1)
[ -n "$object" ] || fail "no object of arbench_core among the build's targets"
grep -q "CCACHE_BASEDIR=$tmp/a " "$tmp/a/build/CMakeFiles/rules.ninja" ||
  fail "with ccache installed the compile rules do not go through ccache with base dir $tmp/a"
ninja -C "$tmp/a/build" "$object" >/dev/null || fail "the first copy did not build $object"
(( $(hits) == 0 )) || fail "an empty cache reported a hit"

configure "$tmp/b" "$tmp/b/build"
ninja -C "$tmp/b/build" "$object" >/dev/null || fail "the second copy did not build $object"
(( $(hits) == 1 )) || fail "the copy in another folder missed the cache (hits: $(hits)): paths are not relative to the base dir"

configure "$tmp/b" "$tmp/b/plain" -DARBENCH_CCACHE=OFF
! grep -q ccache "$tmp/b/plain/CMakeFiles/rules.ninja" || fail "-DARBENCH_CCACHE=OFF still compiles through ccache"
ninja -C "$tmp/b/plain" "$object" >/dev/null || fail "without ccache $object did not build"
echo "PASS: a copy in another folder hit the cache; without ccache the build runs the compiler directly"
