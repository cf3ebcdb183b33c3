#!/usr/bin/env bash
# scripts/report.py's page in a real browser (headless Chrome or Chromium): two synthetic GPU
# nights through scripts/nightly.sh --from-result (the second with a regression and a case on a
# downtrained link), then
#   - the page's own check (its script counts the case rows and trend lines it drew against the
#     case count written into the page) reads "consistent" in the DOM Chromium rendered;
#   - a screenshot is a rendered page, not a blank one (tests/scripts/support/png_check.py);
#   - the page fetches nothing: no http(s) reference, and it renders with every host name
#     unresolvable;
#   - both checks can fail: a page with one trend line removed reads "INCONSISTENT", and a
#     blank page's screenshot is called blank.
# ARBENCH_REPORT_SCREENSHOT=FILE keeps the screenshot (docs/images/nightly-report.png comes from
# here). The browser: $ARBENCH_BROWSER when set, else the first of google-chrome,
# google-chrome-stable, chromium, chromium-browser and chrome on PATH. Exit 77 (ctest: skipped)
# when there is none, naming those tried (scripts/setup.sh installs Debian's chromium).
set -uo pipefail
exe=${1:?usage: test_report.sh ARBENCH_EXE [REPO]}
repo=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
py=/usr/bin/python3
browsers=(google-chrome google-chrome-stable chromium chromium-browser chrome)
browser=${ARBENCH_BROWSER:-}
for b in "${browsers[@]}"; do
  [[ -n $browser ]] && break
  browser=$(command -v "$b" || true)
done
[[ -n $browser ]] || {
  echo "skip: no Chrome or Chromium on PATH (tried ${browsers[*]}; apt install chromium, as scripts/setup.sh does)"
  exit 77
}
echo "browser: $browser"
tmp=$(mktemp -d)
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

chrome() {  # chrome ARGS... : one headless Chrome or Chromium, bounded, with a fresh profile
  local profile
  profile=$(mktemp -d "$tmp/profile.XXXX")
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$profile" "$@" 2>"$tmp/chrome.err"
}

# Two nights of a GPU box, synthetic.
export ARBENCH_EXE=$exe ARBENCH_RESULTS_DIR=$tmp/results
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$tmp/a.json" --gpu --seed 1
"$py" "$repo/tests/scripts/support/make_synthetic_result.py" "$tmp/b.json" --gpu --seed 2 \
  --slow 'allreduce/twoshot/bf16/gpus:8/bytes:65536=1.3' \
  --slow 'allreduce/nccl/bf16/gpus:4/bytes:1048576=1.4' --downtrained 'allreduce/nccl/bf16/gpus:4/bytes:1048576'
bash "$repo/scripts/nightly.sh" --no-plots --from-result "$tmp/a.json" >"$tmp/night1.log" 2>&1 ||
  { cat "$tmp/night1.log"; fail "night 1 exited $?"; }
bash "$repo/scripts/nightly.sh" --no-plots --from-result "$tmp/b.json" >"$tmp/night2.log" 2>&1
rc=$?
((rc == 1)) || { cat "$tmp/night2.log"; fail "night 2 exited $rc, expected 1 (one regression)"; }
page=$(find "$tmp/results/nightly" -name report.html | sort | tail -n 1)
[[ -s $page ]] || fail "no report.html"

# Self-contained: nothing to fetch at view time.
# One grep, no pipe: with pipefail a `| head | grep -q` can die of SIGPIPE and hide a match.
if grep -Eq '(src|href)="https?://[^"]*"|url\(https?:[^)]*\)|@import' "$page"; then
  fail "the page references the network: $(grep -Eo '(src|href)="https?://[^"]*"' "$page" | head -n 3)"
fi

# The page's own check, in the DOM as rendered.
chrome --dump-dom "file://$page" >"$tmp/dom.html" || fail "chromium --dump-dom failed: $(tail -n 3 "$tmp/chrome.err")"
grep -o 'page check: [^<]*' "$tmp/dom.html" | head -n 1
grep -q 'data-rendered="consistent"' "$tmp/dom.html" || fail "the page's check did not say consistent"
grep -q 'page check: consistent, 177 of 177 case rows, 177 trend lines, 2 night(s), 1 regression(s)' \
  "$tmp/dom.html" || fail "the page's check counted something else"

# A screenshot that is a page, not a blank.
shot=$tmp/report.png
chrome --window-size=1400,2400 --screenshot="$shot" "file://$page" >/dev/null || fail "chromium --screenshot failed"
"$py" "$repo/tests/scripts/support/png_check.py" "$shot" 1400 2400 || fail "the screenshot is blank or unreadable"
[[ -z ${ARBENCH_REPORT_SCREENSHOT:-} ]] || cp "$shot" "$ARBENCH_REPORT_SCREENSHOT"

# Both checks can fail.
"$py" - "$page" "$tmp/broken.html" <<'PY'
import sys
page = open(sys.argv[1]).read()
start = page.index('<svg class="spark"', page.index('id="all-cases"'))
open(sys.argv[2], "w").write(page[:start] + page[page.index("</svg>", start) + 6:])
PY
chrome --dump-dom "file://$tmp/broken.html" >"$tmp/broken-dom.html" || fail "chromium failed on the broken page"
grep -q 'page check: INCONSISTENT, 177 of 177 case rows, 176 trend lines' "$tmp/broken-dom.html" ||
  fail "a page missing a trend line was not caught by its own check"
echo '<!DOCTYPE html><html><body style="background:#f5f7fa"></body></html>' >"$tmp/blank.html"
chrome --window-size=1400,2400 --screenshot="$tmp/blank.png" "file://$tmp/blank.html" >/dev/null
if "$py" "$repo/tests/scripts/support/png_check.py" "$tmp/blank.png" 1400 2400; then
  fail "a blank page's screenshot was not called blank"
fi
echo "PASS"
