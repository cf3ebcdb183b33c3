#!/usr/bin/env bash
# tests/scripts/support/find_python.sh finds a Python with matplotlib wherever it is: the python3 first on
# PATH when it has matplotlib, else the next candidate (/usr/bin/python3, ...) when the first
# lacks it, $ARBENCH_PYTHON before both; and with none, it fails naming what it tried. Stub
# pythons stand in (one that imports matplotlib, one that cannot), so this runs on any machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/support/find_python.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
stub() {  # stub DIR NAME HAS_MATPLOTLIB: a python that can or cannot import matplotlib
  mkdir -p "$1"
  printf '#!/usr/bin/env bash\n[[ "$*" == *matplotlib* ]] && exit %s\nexit 0\n' "$([[ $3 == yes ]] && echo 0 || echo 1)" >"$1/$2"
  chmod +x "$1/$2"
}
stub "$tmp/with" python3 yes
stub "$tmp/without" python3 no
stub "$tmp/env" mypython yes

# The python3 first on PATH has matplotlib: it is the one.
PATH="$tmp/with:$PATH" find_matplotlib_python || fail "missed the python3 on PATH with matplotlib: $py_why"
[[ $py == "$tmp/with/python3" ]] || fail "picked $py, not the python3 first on PATH ($tmp/with/python3)"
echo "python3 on PATH with matplotlib: picked"

# ARBENCH_PYTHON comes first.
ARBENCH_PYTHON="$tmp/env/mypython" PATH="$tmp/with:$PATH" find_matplotlib_python || fail "$py_why"
[[ $py == "$tmp/env/mypython" ]] || fail "picked $py, not \$ARBENCH_PYTHON"
echo "ARBENCH_PYTHON: picked first"

# The first on PATH lacks matplotlib: not it (the next candidate, when this machine has one).
if PATH="$tmp/without:$PATH" find_matplotlib_python; then
  [[ $py != "$tmp/without/python3" ]] || fail "picked $py, which cannot import matplotlib"
  echo "python3 on PATH without matplotlib: skipped for $py"
fi

# None anywhere (a PATH of stubs without it, no /usr/bin or /usr/local/bin candidate that has it):
# a failure naming what was tried. Only checkable where /usr/bin/python3 and /usr/local/bin/python3
# cannot import matplotlib; elsewhere the candidate list itself is checked.
if ! /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 && ! /usr/local/bin/python3 -c 'import matplotlib' >/dev/null 2>&1; then
  PATH="$tmp/without" find_matplotlib_python && fail "found $py where no Python has matplotlib"
  [[ $py_why == *"tried: $tmp/without/python3"* ]] || fail "the failure does not say what it tried: $py_why"
  echo "none with matplotlib: fails, saying: $py_why"
fi
grep -q '/usr/bin/python3 /usr/local/bin/python3' "$here/support/find_python.sh" || fail "find_python.sh no longer tries /usr/bin/python3 and /usr/local/bin/python3"
echo "PASS"
