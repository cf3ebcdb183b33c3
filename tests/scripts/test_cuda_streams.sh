#!/usr/bin/env bash
# The CUDA stream rules (scripts/check_cuda_streams.py): the tree passes, and each planted
# violation — a cudaMemcpy / cudaMemset on the legacy default stream, a kernel launched without
# a stream, an unbounded stream synchronisation in a fabric — fails naming the file and the rule.
set -uo pipefail
checker=check_cuda_streams.py rules="the stream rules"
. "$(dirname "$0")/support/planted_check.sh"

# plant FILE LINE EXPECTED: appends LINE to FILE in a fresh copy; the check must exit 1 and
# print EXPECTED.
plant() {
  fresh_tree bench kernels
  printf '%s\n' "$2" >>"$tmp/tree/$1"
  expect_caught "planting '$2' in $1" "$3"
}
plant kernels/fabric/cuda/cuda_fabric.cu 'void f(void* d, const void* s) { cudaMemcpy(d, s, 4, cudaMemcpyHostToDevice); }' \
  'cuda_fabric.cu:'
plant kernels/fabric/cuda/cuda_fabric.cu 'void g(void* d) { cudaMemset(d, 0, 4); }' 'cudaMemset runs on the legacy default stream'
plant kernels/fabric/nccl/nccl_windows.cu 'void h() { resolve_peer_pointers<<<1, 32>>>(nullptr, 1, nullptr); }' \
  'kernel launched without a stream'
plant kernels/fabric/cuda/cuda_fabric.cu 'void k(cudaStream_t s) { cudaStreamSynchronize(s); }' 'waits without a bound'
plant bench/topo/gpu/probe.cu 'void m(void* d, const void* s) { cudaMemcpy(d, s, 4, cudaMemcpyDeviceToHost); }' \
  'bench/topo/gpu/probe.cu:'
[ $fails -eq 0 ] && echo "cuda stream rules: the tree passes and all 5 planted violations are caught"
exit $((fails > 0))
