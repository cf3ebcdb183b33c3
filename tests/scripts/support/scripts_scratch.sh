# Sourced by the tests of scripts/*.sh (test_run_sh.sh, test_test_sh.sh): $repo (the repository:
# the test's first argument, or two folders up), a scratch folder $tmp removed on exit, fail, and
# scratch_scripts, which copies scripts into a scratch repository $tree (they work from their own).
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

tree=$tmp/repo
# scratch_scripts NAME...: copies the repository's scripts/NAME into $tree/scripts/.
scratch_scripts() {
  mkdir -p "$tree/scripts" && for f in "$@"; do cp "$repo/scripts/$f" "$tree/scripts/"; done
}
