#!/usr/bin/env bash
# The documentation check (scripts/check_docs.py): the tree as it is passes (every relative
# link and #anchor in the Markdown resolves inside the repository; every option of every
# subcommand's --help is in its section of docs/user-guide.md), and each planted fault — a link to a missing
# page, a missing anchor, a link out of the repository, an option the user guide lost — fails
# with a message naming the file and what is wrong.
set -uo pipefail
src=${1:?usage: test_docs.sh SOURCE_DIR [ARBENCH_EXE]}
exe=${2:-}
check="python3 $src/scripts/check_docs.py"
opts=()
[ -n "$exe" ] && opts=(--arbench "$exe")

out=$($check --root "$src" "${opts[@]}" 2>&1) || { echo "FAIL: the documentation itself has problems:"; echo "$out"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy_tree() {
  rm -rf "$tmp/tree" && mkdir -p "$tmp/tree"
  if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$src" ls-files -z | (cd "$src" && tar --null -cf - -T - 2>/dev/null) | tar -C "$tmp/tree" -xf -
  else
    cp -r "$src"/. "$tmp/tree/" && rm -rf "$tmp/tree"/build*
  fi
}
fails=0
# expect_failure EXPECTED: the check on the planted copy must exit 1 and print EXPECTED.
expect_failure() {
  out=$($check --root "$tmp/tree" "${opts[@]}" 2>&1); rc=$?
  if [ $rc -ne 1 ] || ! grep -qF -- "$1" <<<"$out"; then
    echo "FAIL: expected exit 1 and '$1', got exit $rc:"; echo "$out"
    fails=$((fails + 1))
  fi
}
plant_line() {  # plant_line FILE TEXT EXPECTED
  copy_tree
  printf '\n%s\n' "$2" >>"$tmp/tree/$1"
  expect_failure "$3"
}
n=$(($(wc -l <"$src/README.md") + 2))
plant_line README.md '[the guide](docs/user-guid.md)' "README.md:$n: link 'docs/user-guid.md': docs/user-guid.md does not exist"
plant_line docs/output.md '[how](method.md#no-such-heading)' "link 'method.md#no-such-heading': no heading with the anchor #no-such-heading in docs/method.md"
plant_line docs/variants.md '[design](../../shared/DESIGN.md)' "link '../../shared/DESIGN.md' leaves the repository"
plant_line bench/run/README.md '[same page](#nowhere)' "link '#nowhere': no heading with the anchor #nowhere in bench/run/README.md"
# A link in a code block is not a link.
copy_tree
printf '\n```\n[not a link](missing.md)\n```\n' >>"$tmp/tree/docs/method.md"
$check --root "$tmp/tree" "${opts[@]}" >/dev/null 2>&1 || { echo "FAIL: a link inside a code block was checked"; fails=$((fails + 1)); }
planted=4
if [ -n "$exe" ]; then
  # The user guide loses an option of `run` and one of `compare`: both are named.
  copy_tree
  sed -i 's/--ring-channels//g; s/--allow-different-machines//g' "$tmp/tree/docs/user-guide.md"
  expect_failure '`arbench run --ring-channels` (from `arbench run --help`) is not documented'
  expect_failure '`arbench compare --allow-different-machines` (from `arbench compare --help`) is not documented'
  # `topo --out` is gone from topo's section: `run --out` elsewhere on the page does not count.
  copy_tree
  sed -i '/^## Options of `topo`/,/^## /{/^| `--out/d}' "$tmp/tree/docs/user-guide.md"
  expect_failure "\`arbench topo --out\` (from \`arbench topo --help\`) is not documented in '## Options of \`topo\`'"
  planted=7
fi
[ $fails -eq 0 ] && echo "docs: the tree passes and all $planted planted faults are caught"
exit $((fails > 0))
