#!/usr/bin/env bash
# scripts/setup.sh finds CUDA and NCCL however nvcc reaches PATH. Regression: CI's PATH held only
# /usr/local/bin/nvcc, a wrapper script exec'ing the toolkit's nvcc, and setup looked for nccl.h
# beside the wrapper. Here the wrapper sits in a temporary folder, with a PATH that has nothing
# else of CUDA's, and setup must still say ok and name the toolkit's nccl.h.
# Exit 77 (ctest: skipped) when this machine has no nvcc at all.
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
real_nvcc=$(command -v nvcc || true)
[ -n "$real_nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || real_nvcc=/usr/local/cuda/bin/nvcc
[ -n "$real_nvcc" ] || { echo "skip: no nvcc on this machine"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nexec %s "$@"\n' "$real_nvcc" > "$tmp/nvcc"
chmod +x "$tmp/nvcc"

out=$(env -i HOME="$tmp" PATH="$tmp:/usr/bin:/bin" bash "$repo/scripts/setup.sh" --no-test-tools 2>&1) || {
  echo "FAIL: setup.sh with a wrapper nvcc on PATH exited non-zero:"; echo "$out"; exit 1; }
echo "$out"
grep -q '^setup: ok (CUDA 1[3-9]' <<<"$out" || { echo "FAIL: no 'setup: ok' line"; exit 1; }

# nvcc's own TOP wins over the fixed fallbacks: a fake toolkit whose nvcc reports CUDA 13 and a
# TOP holding an NCCL 2.27 header must be refused as too old (exit 3), naming that header.
fake=$tmp/fake-cuda
mkdir -p "$fake/bin" "$fake/include" "$tmp/path"
printf '#define NCCL_MAJOR 2\n#define NCCL_MINOR 27\n' > "$fake/include/nccl.h"
cat > "$fake/bin/nvcc" <<FAKE
#!/bin/sh
case "\$*" in
  *--dryrun*) echo '#\$ TOP=$fake/bin/..' >&2 ;;
  *--version*) echo 'Cuda compilation tools, release 13.0, V13.0.88' ;;
esac
FAKE
chmod +x "$fake/bin/nvcc"
printf '#!/bin/sh\nexec %s "$@"\n' "$fake/bin/nvcc" > "$tmp/path/nvcc"
chmod +x "$tmp/path/nvcc"
rc=0
out=$(env -i HOME="$tmp" PATH="$tmp/path:/usr/bin:/bin" bash "$repo/scripts/setup.sh" --no-test-tools 2>&1) || rc=$?
echo "$out"
[ "$rc" -eq 3 ] || { echo "FAIL: expected exit 3 for NCCL 2.27, got $rc"; exit 1; }
grep -q "NCCL 2.27 at $fake/include/nccl.h is too old" <<<"$out" || {
  echo "FAIL: the refusal does not name the fake toolkit's header"; exit 1; }
echo "ok"
