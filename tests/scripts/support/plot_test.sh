# Sourced by the script tests that draw plots (plot_sample, plot_phases, plot_beside): how each of
# them starts, and the check that plot.py wrote a figure.
source "$(dirname "${BASH_SOURCE[0]}")/find_python.sh"

# start_plot_test: the Python that draws (`py`; without one the test exits 77, which ctest counts
# as skipped, saying which Pythons it tried), a scratch folder `tmp` removed on exit, and
# `status` 0, which each failing check sets to 1.
start_plot_test() {
  find_matplotlib_python || { echo "skip: $py_why"; exit 77; }
  echo "python with matplotlib: $py"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  status=0
}

# figures_written DIR LIST WHAT STEM...: every STEM in DIR as PNG and SVG, not empty and named in
# LIST (what plot.py printed: the files it wrote); says which is not (after WHAT, a prefix such as
# "sample: "), and returns 1 then.
figures_written() {
  local dir=$1 list=$2 what=$3 stem ext f bad=0
  shift 3
  for stem in "$@"; do
    for ext in png svg; do
      f=$dir/$stem.$ext
      if [[ ! -s $f ]] || ! grep -qx "$f" "$list"; then echo "FAIL: $what$stem.$ext not written"; bad=1; fi
    done
  done
  return "$bad"
}
