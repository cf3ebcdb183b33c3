// The functional peer-to-peer check's GPU side (peer_probe_cuda.hpp).
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/clock_kernels.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"
#include "kernels/mem_device.cuh"

namespace arbench {
namespace {

// What one rank's probe kernel found of one peer (device memory, copied back).
struct PeerProbeOut {
  std::uint64_t written = 0;   // 1: the read-back through the mapping showed the pattern
  std::uint64_t write_ns = 0;  // store until the read-back showed it
  std::uint64_t read = 0;      // the last value loaded from the peer's read word
  std::uint64_t read_ns = 0;   // the loads' time, all of them
};

struct PeerProbeArgs {
  std::uint64_t* peer[kMaxRanks] = {};  // peer i's probe memory, as this rank maps it
  std::uint64_t write[kMaxRanks] = {};  // the pattern for peer i
  int count = 0;                        // peers to probe
  int rank = 0;
  std::uint64_t bound_ns = 0;
  PeerProbeOut* out = nullptr;
};

constexpr int kReadLoads = 16;

__device__ __forceinline__ void store_sys(std::uint64_t* p, std::uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ std::uint64_t load_sys(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Purpose: one rank's side of the functional peer check (kernels/fabric/host/peer_check/peer_check.hpp,
// step 2). For each peer: store the pattern into the peer's slot `rank` through the mapping, load
// it back through the mapping until it shows (write: store + read-back, bounded by bound_ns), then
// load the peer's read word kReadLoads times (acquire loads: one at a time; read: their average).
// Requirements: one thread; peer[i] mapped to peer i's probe memory (or, planted broken, not).
// Bounded: every spin gives up at bound_ns; the loads are a fixed number (a load through a broken
// mapping may take a PCIe completion timeout, and the host's wait bounds that).
__global__ void peer_probe_kernel(const PeerProbeArgs a) {
#pragma unroll
  for (int i = 0; i < kMaxRanks; ++i) {  // compile-time indices keep the arguments in parameter space
    if (i >= a.count) continue;
    std::uint64_t* slot = a.peer[i] + a.rank;
    PeerProbeOut o;
    const std::uint64_t t0 = DeviceMem::now_ns();
    store_sys(slot, a.write[i]);
    for (;;) {
      const std::uint64_t now = DeviceMem::now_ns();
      if (load_sys(slot) == a.write[i]) {
        o.written = 1;
        o.write_ns = DeviceMem::now_ns() - t0;
        break;
      }
      if (now - t0 > a.bound_ns) break;
    }
    const std::uint64_t* word = a.peer[i] + kPeerReadWord;
    const std::uint64_t r0 = DeviceMem::now_ns();
    std::uint64_t v = 0;
    for (int k = 0; k < kReadLoads; ++k) v = load_sys(word);
    o.read_ns = DeviceMem::now_ns() - r0;
    o.read = v;
    a.out[i] = o;
  }
}

// Purpose: the SM-store half of the bulk part (peer_check.hpp, step 2): blockIdx.y picks the
// peer, every thread stores its words of peer_bulk_word(token, rank, peer, 1) into the peer's
// region `rank` through the mapping (plain stores, grid-stride), then fences at system scope so
// that the flag kernel after it (stream order) publishes data that is already there.
// Requirements: region[y] bulk_words long, 8-byte aligned. Bounded: a fixed number of stores.
struct BulkStoreArgs {
  std::uint64_t* region[kMaxRanks] = {};
  int to[kMaxRanks] = {};
  int count = 0, rank = 0;
  std::uint32_t token = 0;
  std::uint64_t bulk_words = 0;
};

__global__ void peer_bulk_store_kernel(const BulkStoreArgs a) {
  const int y = int(blockIdx.y);
  std::uint64_t* region = nullptr;
  int to = 0;
#pragma unroll
  for (int i = 0; i < kMaxRanks; ++i)  // compile-time indices keep the arguments in parameter space
    if (i == y) {
      region = a.region[i];
      to = a.to[i];
    }
  if (y >= a.count || region == nullptr) return;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t k = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < a.bulk_words; k += stride)
    region[k] = peer_bulk_word(a.token, a.rank, to, 1, k);
  __threadfence_system();
}

// Purpose: the copy engine's source for one peer: words of peer_bulk_word(token, rank, to, 0).
__global__ void peer_bulk_fill_kernel(std::uint64_t* dst, std::uint64_t words, std::uint32_t token, int rank, int to) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t k = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < words; k += stride)
    dst[k] = peer_bulk_word(token, rank, to, 0, k);
}

// Purpose: publish bulk data with its flags, after the transfers before it on the stream (data
// before flag: stream order, then a system-scope release store each). One thread.
struct FlagArgs {
  std::uint64_t* flag[kMaxRanks] = {};
  std::uint64_t value[kMaxRanks] = {};
  int count = 0;
};

__global__ void peer_flag_kernel(const FlagArgs a) {
#pragma unroll
  for (int i = 0; i < kMaxRanks; ++i)
    if (i < a.count) store_sys(a.flag[i], a.value[i]);
}

[[noreturn]] void fail(const std::string& what) { throw CaseError(what); }

}  // namespace

CudaPeerProbe::CudaPeerProbe(std::vector<int> devices, int first_rank, const RankBuffers& buf, BrokenPair planted)
    : first_rank_(first_rank), buf_(buf), planted_(planted) {
  try {
    for (int d : devices) {
      Rank r;
      r.device = d;
      ranks_.push_back(r);
      Rank& k = ranks_.back();
      ARB_CUDA_CHECK(cudaSetDevice(d));
      ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&k.probe, cudaStreamNonBlocking));
      ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&k.reader, cudaStreamNonBlocking));
      ARB_CUDA_CHECK(cudaEventCreateWithFlags(&k.done, cudaEventDisableTiming));
      ARB_CUDA_CHECK(cudaMalloc(&k.out, kMaxRanks * sizeof(PeerProbeOut)));
    }
  } catch (...) {
    release();
    throw;
  }
}

CudaPeerProbe::~CudaPeerProbe() { release(); }

void CudaPeerProbe::release() noexcept {
  for (Rank& k : ranks_) {
    if (cudaSetDevice(k.device) != cudaSuccess) continue;
    const bool idle = !k.started || k.done == nullptr || cudaEventQuery(k.done) == cudaSuccess;
    if (idle) {  // else a probe kernel may still touch them: left allocated until the process exits
      if (k.out) cudaFree(k.out);
      if (k.scratch) cudaFree(k.scratch);
    }
    // A stream still busy is released once its work ends (cudaStreamDestroy does not wait).
    if (k.done) cudaEventDestroy(k.done);
    if (k.probe) cudaStreamDestroy(k.probe);
    if (k.reader) cudaStreamDestroy(k.reader);
    k = Rank{};
  }
  (void)cudaGetLastError();
}

bool CudaPeerProbe::idle() {
  bool all = true;
  for (Rank& k : ranks_)
    if (k.started && (cudaSetDevice(k.device) != cudaSuccess || cudaEventQuery(k.done) != cudaSuccess)) all = false;
  (void)cudaGetLastError();
  return all;
}

void CudaPeerProbe::prepare(int rank, std::uint64_t read_word) {
  Rank& k = at(rank);
  std::uint64_t words[kPeerProbeWords] = {};
  words[kPeerReadWord] = read_word;
  ARB_CUDA_CHECK(cudaSetDevice(k.device));
  // All of it zeroed: a stale bulk region (an earlier check's) must not pass for this one.
  ARB_CUDA_CHECK(cudaMemsetAsync(buf_.local(rank), 0, buf_.bytes(), k.reader));
  ARB_CUDA_CHECK(cudaMemcpyAsync(buf_.local(rank), words, sizeof words, cudaMemcpyHostToDevice, k.reader));
  if (!wait_stream(k.reader, deadline_in(10.0)))
    throw HangError("preparing the peer check's memory on GPU " + std::to_string(k.device) + " did not finish");
}

void CudaPeerProbe::start(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write,
                          double bound_s, std::size_t bulk, std::uint32_t token) {
  Rank& k = at(rank);
  if (bulk % sizeof(std::uint64_t) != 0)
    fail("a bulk transfer of " + std::to_string(bulk) + " bytes is not a whole number of words");
  if (bulk > 0 && peer_bulk_offset(rank, 1, bulk) + bulk > buf_.bytes())
    fail("the peer check's memory (" + std::to_string(buf_.bytes()) + " bytes per rank) has no bulk region for rank " +
         std::to_string(rank));
  PeerProbeArgs a;
  a.count = int(std::min<std::size_t>(peers.size(), kMaxRanks));
  a.rank = rank;
  a.bound_ns = static_cast<std::uint64_t>(bound_s * 1e9);
  a.out = static_cast<PeerProbeOut*>(k.out);
  std::vector<char*> base(std::size_t(a.count));
  for (int i = 0; i < a.count; ++i) {
    const int p = peers[std::size_t(i)];
    // The planted pair writes into the writer's own memory: its data never reaches the peer.
    base[std::size_t(i)] = static_cast<char*>(planted_.covers(rank, p) ? buf_.local(rank) : buf_.peer(rank, p));
    a.peer[i] = reinterpret_cast<std::uint64_t*>(base[std::size_t(i)]);
    a.write[i] = write[std::size_t(i)];
  }
  ARB_CUDA_CHECK(cudaSetDevice(k.device));
  const cudaStream_t s = k.probe;
  k.count = a.count;
  k.started = true;
  ARB_CUDA_CHECK(cudaMemsetAsync(k.out, 0, kMaxRanks * sizeof(PeerProbeOut), s));
  if (k.stall_s > 0) launch_hold(static_cast<std::uint64_t>(k.stall_s * 1e9), s);
  peer_probe_kernel<<<1, 1, 0, s>>>(a);
  ARB_CUDA_CHECK(cudaGetLastError());
  if (bulk > 0) {
    const std::uint64_t words = bulk / sizeof(std::uint64_t);
    if (k.scratch_bytes < bulk) {
      if (k.scratch) ARB_CUDA_CHECK(cudaFree(k.scratch));
      k.scratch = nullptr;
      ARB_CUDA_CHECK(cudaMalloc(&k.scratch, bulk));
      k.scratch_bytes = bulk;
    }
    FlagArgs copied, stored;
    BulkStoreArgs st;
    st.count = copied.count = stored.count = a.count;
    st.rank = rank;
    st.token = token;
    st.bulk_words = words;
    for (int i = 0; i < a.count; ++i) {
      const int p = peers[std::size_t(i)];
      char* b = base[std::size_t(i)];
      // The copy engine: one pattern at a time through the scratch (stream order keeps them apart).
      peer_bulk_fill_kernel<<<64, 256, 0, s>>>(static_cast<std::uint64_t*>(k.scratch), words, token, rank, p);
      ARB_CUDA_CHECK(cudaGetLastError());
      ARB_CUDA_CHECK(cudaMemcpyAsync(b + peer_bulk_offset(rank, 0, bulk), k.scratch, bulk, cudaMemcpyDefault, s));
      st.region[i] = reinterpret_cast<std::uint64_t*>(b + peer_bulk_offset(rank, 1, bulk));
      st.to[i] = p;
      auto* header = reinterpret_cast<std::uint64_t*>(b);
      copied.flag[i] = header + kPeerCopyFlag0 + std::size_t(rank);
      copied.value[i] = peer_bulk_flag(token, rank, p, 0);
      stored.flag[i] = header + kPeerStoreFlag0 + std::size_t(rank);
      stored.value[i] = peer_bulk_flag(token, rank, p, 1);
    }
    peer_flag_kernel<<<1, 1, 0, s>>>(copied);
    ARB_CUDA_CHECK(cudaGetLastError());
    peer_bulk_store_kernel<<<dim3(32, unsigned(a.count)), 256, 0, s>>>(st);
    ARB_CUDA_CHECK(cudaGetLastError());
    peer_flag_kernel<<<1, 1, 0, s>>>(stored);
    ARB_CUDA_CHECK(cudaGetLastError());
  }
  ARB_CUDA_CHECK(cudaEventRecord(k.done, s));
}

bool CudaPeerProbe::finished(int rank) {
  Rank& k = at(rank);
  ARB_CUDA_CHECK(cudaSetDevice(k.device));
  const cudaError_t e = cudaEventQuery(k.done);
  if (e == cudaErrorNotReady) return false;
  ARB_CUDA_CHECK(e);
  return true;
}

std::vector<std::uint64_t> CudaPeerProbe::read_local(int rank, std::size_t offset, std::size_t bytes,
                                                     const char* what) {
  Rank& k = at(rank);
  std::vector<std::uint64_t> out(bytes / sizeof(std::uint64_t));
  ARB_CUDA_CHECK(cudaSetDevice(k.device));
  ARB_CUDA_CHECK(cudaMemcpyAsync(out.data(), static_cast<const char*>(buf_.local(rank)) + offset, bytes,
                                 cudaMemcpyDeviceToHost, k.reader));
  if (!wait_stream(k.reader, deadline_in(10.0)))
    throw HangError(std::string("reading ") + what + " on GPU " + std::to_string(k.device) + " did not finish");
  return out;
}

std::vector<PeerSeen> CudaPeerProbe::seen(int rank) {
  Rank& k = at(rank);
  PeerProbeOut host[kMaxRanks];
  ARB_CUDA_CHECK(cudaSetDevice(k.device));
  ARB_CUDA_CHECK(cudaMemcpyAsync(host, k.out, sizeof host, cudaMemcpyDeviceToHost, k.reader));
  if (!wait_stream(k.reader, deadline_in(10.0)))
    throw HangError("reading the probe's findings on GPU " + std::to_string(k.device) + " did not finish");
  std::vector<PeerSeen> seen(std::size_t(k.count));
  for (int i = 0; i < k.count; ++i) {
    PeerSeen& s = seen[std::size_t(i)];
    s.written = host[i].written != 0;
    s.write_ns = s.written ? double(host[i].write_ns) : -1;
    s.read = host[i].read;
    s.read_ns = double(host[i].read_ns) / kReadLoads;
  }
  return seen;
}

std::vector<std::uint64_t> CudaPeerProbe::header(int rank) {
  return read_local(rank, 0, kPeerProbeWords * sizeof(std::uint64_t), "the peer check's memory");
}

std::vector<std::uint64_t> CudaPeerProbe::bulk_region(int rank, int from, int path, std::size_t bulk) {
  if (peer_bulk_offset(from, path, bulk) + bulk > buf_.bytes())
    fail("the peer check's memory (" + std::to_string(buf_.bytes()) + " bytes per rank) has no bulk region for rank " +
         std::to_string(from));
  return read_local(rank, peer_bulk_offset(from, path, bulk), bulk, "a bulk region of the peer check");
}

std::string CudaPeerProbe::fatal(int rank) {
  const int d = at(rank).device;
  cudaError_t e = cudaSetDevice(d);
  (void)cudaGetLastError();  // clears an error that is not sticky
  std::size_t free_b = 0, total_b = 0;
  if (e == cudaSuccess) e = cudaMemGetInfo(&free_b, &total_b);
  if (e == cudaSuccess) return {};
  (void)cudaGetLastError();
  return "GPU " + std::to_string(d) + " reports " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
         "): its CUDA context is unusable until the process exits";
}

}  // namespace arbench
