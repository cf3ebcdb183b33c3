# Sourced by the tests of a tree check (test_layering.sh, test_cuda_streams.sh), after they set
# checker (its script in scripts/) and rules (what it checks, for messages); the test's argument
# is the source tree. The tree as it is must pass; then each planted violation, in a fresh copy
# of the tree, must be caught.
src=${1:?usage: $(basename "$0") SOURCE_DIR}
check="python3 $src/scripts/$checker"
out=$($check --root "$src" 2>&1) || { echo "FAIL: the tree itself breaks $rules:"; echo "$out"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# fresh_tree FOLDER...: $tmp/tree holds a fresh copy of these folders of the source tree.
fresh_tree() {
  rm -rf "$tmp/tree" && mkdir -p "$tmp/tree" && for d in "$@"; do cp -r "$src/$d" "$tmp/tree/"; done
}

# expect_caught WHAT EXPECTED: the check of $tmp/tree (WHAT planted in it) must exit 1 and print
# EXPECTED; a miss is counted in $fails.
expect_caught() {
  out=$($check --root "$tmp/tree" 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL: $1 gave exit $rc, expected 1 and '$2'; output:"; echo "$out"
    fails=$((fails + 1))
  fi
}
