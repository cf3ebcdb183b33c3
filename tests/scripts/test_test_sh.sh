#!/usr/bin/env bash
# scripts/test.sh shows why each skipped test was skipped (README: "GPU tests skip, with a
# reason"): a real ctest run of a tiny project with a GoogleTest-style skip and an exit-77 skip,
# through the repository's test.sh (setup and build stubbed), must print both reasons, where the
# time went (scripts/test_times.py) and keep ctest's exit code; --quick runs only the tests
# labelled quick.
set -uo pipefail
. "$(dirname "$0")/support/scripts_scratch.sh"

scratch_scripts test.sh ctest_skips.py test_times.py
mkdir -p "$tree/project"
printf '#!/bin/sh\nexit 0\n' >"$tree/scripts/setup.sh"
printf '#!/bin/sh\nexit 0\n' >"$tree/scripts/build.sh"
chmod +x "$tree/scripts/"*.sh
cat >"$tree/project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.21)
project(skips NONE)
enable_testing()
add_test(NAME script_skip COMMAND sh -c "echo 'skip: no nvcc on this machine'; exit 77")
set_tests_properties(script_skip PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME gtest_skip COMMAND sh -c "echo '[ RUN      ] Gpu.Sum'; echo 'x.cpp:3: Skipped'; echo 'no GPU on this machine (cudaErrorNoDevice)'; echo '[  SKIPPED ] Gpu.Sum (0 ms)'")
set_tests_properties(gtest_skip PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
add_test(NAME passes COMMAND true)
set_tests_properties(passes PROPERTIES LABELS quick)
CMAKE
cmake -S "$tree/project" -B "$tree/build/release" >/dev/null || fail "cmake could not configure the tiny project"

out=$(CI= bash "$tree/scripts/test.sh" 2>&1); rc=$?
echo "$out"
((rc == 0)) || fail "test.sh exited $rc for a run without failures"
grep -q "2 test(s) skipped, and why:" <<<"$out" || fail "no skip summary"
grep -q "skip: no nvcc on this machine" <<<"$out" || fail "the exit-77 skip's reason is missing"
grep -q "no GPU on this machine (cudaErrorNoDevice)" <<<"$out" || fail "the GoogleTest skip's reason is missing"
grep -q "^tests: 3 (1 passed, 2 skipped, 0 failed) | test time" <<<"$out" || fail "no test-time summary"
grep -q "^slowest 3:" <<<"$out" || fail "no list of the slowest tests"

# --quick: the tests labelled quick, and nothing else.
out=$(CI= bash "$tree/scripts/test.sh" --quick 2>&1); rc=$?
((rc == 0)) || fail "test.sh --quick exited $rc"
grep -q "^tests: 1 (1 passed, 0 skipped, 0 failed)" <<<"$out" || { echo "$out"; fail "--quick ran more than the quick test"; }

# ctest's exit code is kept when a test fails.
printf 'add_test(NAME fails COMMAND false)\n' >>"$tree/project/CMakeLists.txt"
cmake -S "$tree/project" -B "$tree/build/release" >/dev/null
CI= bash "$tree/scripts/test.sh" >/dev/null 2>&1 && fail "test.sh exited 0 although a test failed"
echo "PASS"
