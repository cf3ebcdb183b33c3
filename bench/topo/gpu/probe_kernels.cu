// The probe kernels, defined once; documentation with the declarations in probe_kernels.cuh.
#include "topo/gpu/probe_kernels.cuh"

namespace arbench::topo::probe {

__global__ void copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  copy_packs(dst, src, n, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x, stride);
}

__global__ void pingpong_kernel(unsigned* my_flag, unsigned* peer_flag, unsigned rounds, int initiator,
                                unsigned long long first_timeout_ns, unsigned long long timeout_ns,
                                PingPongResult* result) {
  unsigned long long start = 0;
  for (unsigned k = 1; k <= rounds + 1; ++k) {
    if (k == 2) start = global_ns();
    const unsigned long long bound = k == 1 ? first_timeout_ns : timeout_ns;
    if (initiator) store_release_sys(peer_flag, k);
    if (!wait_flag(my_flag, k, bound)) {
      result->failed_round = k;
      return;
    }
    if (!initiator) store_release_sys(peer_flag, k);
  }
  result->elapsed_ns = global_ns() - start;
}

__global__ void fanout_copy_kernel(FanoutJob job, unsigned long long* first_ns, unsigned long long* last_ns) {
  const int peer = static_cast<int>(blockIdx.x % static_cast<unsigned>(job.peers));
  const unsigned rank_in_peer = blockIdx.x / static_cast<unsigned>(job.peers);
  const unsigned peer_blocks = (gridDim.x - static_cast<unsigned>(peer) + job.peers - 1) / job.peers;
  __shared__ unsigned long long t0;
  if (threadIdx.x == 0) t0 = global_ns();
  const std::size_t first = static_cast<std::size_t>(rank_in_peer) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(peer_blocks) * blockDim.x;
  for (int r = 0; r < job.reps; ++r) copy_packs(job.dst[peer], job.src[peer], job.packs, first, stride);
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMin(first_ns + peer, t0);
    atomicMax(last_ns + peer, global_ns());
  }
}

__global__ void gate_kernel(const unsigned* go, unsigned long long timeout_ns, unsigned* timed_out) {
  if (!wait_flag(go, 1u, timeout_ns)) *timed_out = 1;
}

}  // namespace arbench::topo::probe
