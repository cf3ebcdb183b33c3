#!/usr/bin/env bash
# Docs that run, one page (scripts/check_docs.py --run-examples --pages PAGE): every command of
# PAGE that needs no GPU runs from this build, and each transcript keeps its output's shape.
# ctest runs one entry per page that has such commands (docs_examples.<page>, side by side);
# docs_examples.planted (test_docs_examples_planted.sh) shows that each kind of rot is caught and
# that no page with examples is left without an entry.
set -uo pipefail
src=${1:?usage: test_docs_examples.sh SOURCE_DIR ARBENCH_EXE PAGE}
exe=${2:?usage: test_docs_examples.sh SOURCE_DIR ARBENCH_EXE PAGE}
page=${3:?usage: test_docs_examples.sh SOURCE_DIR ARBENCH_EXE PAGE}

out=$(python3 "$src/scripts/check_docs.py" --root "$src" --arbench "$exe" --run-examples --pages "$page" --verbose 2>&1) ||
  { echo "FAIL: the examples of $page do not run as shown:"; echo "$out"; exit 1; }
echo "$out"  # with each command's seconds: where the time goes
# A page whose examples all vanished (or a parser that no longer finds them) must not pass empty.
grep -qE "^check_docs: [1-9][0-9]* example command\(s\) run" <<<"$out" ||
  { echo "FAIL: no example of $page ran; if it has none left, re-run cmake (its entry goes)"; exit 1; }
echo "docs_examples: every example of $page runs as shown"
