# Sourced by the script tests that draw plots (support/plot_test.sh, nightly_end_to_end):
# find a Python that imports matplotlib wherever it is, not only Debian's /usr/bin/python3 (a
# pyenv or venv python3 first on PATH may lack it while /usr/bin/python3 has it, or the reverse).
#
# find_matplotlib_python: tries $ARBENCH_PYTHON (when set), python3 on PATH, /usr/bin/python3,
# /usr/local/bin/python3 and python on PATH, in that order; sets `py` to the first that imports
# matplotlib and returns 0, or sets `py_why` to what it tried and returns 1.
find_matplotlib_python() {
  local c tried=()
  py="" py_why=""
  for c in "${ARBENCH_PYTHON:-}" "$(command -v python3 2>/dev/null)" /usr/bin/python3 /usr/local/bin/python3 \
           "$(command -v python 2>/dev/null)"; do
    [[ -n $c && -x $c ]] || continue
    tried+=("$c")
    if "$c" -c 'import matplotlib' >/dev/null 2>&1; then
      py=$c
      return 0
    fi
  done
  py_why="no Python with matplotlib (tried: ${tried[*]:-no python3 at all}; apt install python3-matplotlib)"
  return 1
}
