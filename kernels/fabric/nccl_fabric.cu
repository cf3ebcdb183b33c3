#include "kernels/fabric/nccl_fabric.hpp"

#include <cstdlib>
#include <optional>

#include "arbench/core/cuda_check.hpp"

namespace arbench {
namespace {

// Resolve every peer's address of a symmetric window as `rank` sees it, with NCCL's own
// ncclGetLsaPointer (on a single node the LSA team is the world, so LSA rank = world rank).
__global__ void resolve_peer_pointers(ncclWindow_t win, int world, void** out) {
  const int p = int(threadIdx.x);
  if (p < world) out[p] = ncclGetLsaPointer(win, 0, p);
}

// Symmetric buffers from ncclMemAlloc, registered as NCCL symmetric windows.
class NcclSymmetricBuffers final : public RankBuffers {
 public:
  NcclSymmetricBuffers(const NcclApi& api, const std::vector<ncclComm_t>& comms, std::size_t bytes)
      : api_(api), comms_(comms), bytes_(bytes) {
    const int world = int(comms.size());
    const std::size_t alloc_bytes = std::max<std::size_t>(bytes, 16);
    ptrs_.assign(world, nullptr);
    wins_.assign(world, nullptr);
    peers_.assign(world, std::vector<void*>(world, nullptr));
    for (int r = 0; r < world; ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(r));
      ARB_NCCL_CHECK(api_, MemAlloc(&ptrs_[r], alloc_bytes));
      ARB_CUDA_CHECK(cudaMemset(ptrs_[r], 0, alloc_bytes));
    }
    ARB_NCCL_CHECK(api_, GroupStart());
    for (int r = 0; r < world; ++r)
      ARB_NCCL_CHECK(api_, CommWindowRegister(comms_[r], ptrs_[r], alloc_bytes, &wins_[r], NCCL_WIN_COLL_SYMMETRIC));
    ARB_NCCL_CHECK(api_, GroupEnd());
    for (int r = 0; r < world; ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(r));
      void** d_out = nullptr;
      ARB_CUDA_CHECK(cudaMalloc(&d_out, sizeof(void*) * world));
      resolve_peer_pointers<<<1, 32>>>(wins_[r], world, d_out);
      ARB_CUDA_CHECK(cudaGetLastError());
      ARB_CUDA_CHECK(cudaMemcpy(peers_[r].data(), d_out, sizeof(void*) * world, cudaMemcpyDeviceToHost));
      ARB_CUDA_CHECK(cudaFree(d_out));
    }
  }
  ~NcclSymmetricBuffers() override {
    api_.GroupStart();
    for (std::size_t r = 0; r < comms_.size(); ++r)
      if (wins_[r]) api_.CommWindowDeregister(comms_[r], wins_[r]);
    api_.GroupEnd();
    for (std::size_t r = 0; r < ptrs_.size(); ++r) {
      cudaSetDevice(int(r));
      if (ptrs_[r]) api_.MemFree(ptrs_[r]);
    }
  }
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return true; }
  void* local(int rank) const override { return ptrs_.at(rank); }
  void* peer(int rank, int peer) const override { return peers_.at(rank).at(peer); }

 private:
  const NcclApi& api_;
  std::vector<ncclComm_t> comms_;
  std::size_t bytes_;
  std::vector<void*> ptrs_;
  std::vector<ncclWindow_t> wins_;
  std::vector<std::vector<void*>> peers_;
};

// Sets environment variables for its lifetime, then restores the previous values.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& vars) {
    for (const auto& [k, v] : vars) {
      const char* old = std::getenv(k.c_str());
      saved_.push_back({k, old ? std::optional<std::string>(old) : std::nullopt});
      setenv(k.c_str(), v.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
      if (v) setenv(k.c_str(), v->c_str(), 1);
      else unsetenv(k.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

std::vector<int> first_devices(int world) {
  std::vector<int> d(world);
  for (int i = 0; i < world; ++i) d[i] = i;
  return d;
}

}  // namespace

NcclFabric::NcclFabric(int world, double timeout_s, std::map<std::string, std::string> env)
    : CudaFabric(first_devices(world), timeout_s), api_(NcclApi::get()), env_(std::move(env)) {
  comms_.assign(world, nullptr);
  const std::vector<int> devs = first_devices(world);
  {
    ScopedEnv scoped(env_);
    ARB_NCCL_CHECK(api_, CommInitAll(comms_.data(), world, devs.data()));
  }
  probe_symmetric();
}

NcclFabric::~NcclFabric() {
  for (auto c : comms_)
    if (c) api_.CommDestroy(c);
}

std::string NcclFabric::describe() const {
  std::string s = std::to_string(world()) + " GPUs, NCCL " + NcclApi::version_or_reason();
  for (const auto& [k, v] : env_) s += " " + k + "=" + v;
  return s;
}

void NcclFabric::probe_symmetric() {
  for (int a = 0; a < world(); ++a)
    for (int b = 0; b < world(); ++b) {
      int ok = 1;
      if (a != b && cudaDeviceCanAccessPeer(&ok, a, b) == cudaSuccess && !ok) {
        symmetric_reason_ = "GPU " + std::to_string(a) + " cannot access GPU " + std::to_string(b) +
                            " peer-to-peer (cudaDeviceCanAccessPeer), so NCCL symmetric memory is unavailable";
        return;
      }
    }
  std::vector<ncclDevComm_t> dev(world());
  ncclDevCommRequirements_t reqs{};
  ncclResult_t r = api_.GroupStart();
  for (int i = 0; i < world() && r == ncclSuccess; ++i) r = api_.DevCommCreate(comms_[i], &reqs, &dev[i]);
  ncclResult_t end = api_.GroupEnd();
  if (r != ncclSuccess || end != ncclSuccess) {
    const char* last = api_.GetLastError(nullptr);
    symmetric_reason_ = std::string("ncclDevCommCreate failed: ") +
                        api_.GetErrorString(r != ncclSuccess ? r : end) +
                        (last && *last ? std::string(" (") + last + ")" : std::string());
    return;
  }
  for (int i = 0; i < world(); ++i) api_.DevCommDestroy(comms_[i], &dev[i]);
}

std::unique_ptr<RankBuffers> NcclFabric::alloc(std::size_t bytes, Placement placement) {
  if (placement == Placement::local) return std::make_unique<DeviceBuffers>(first_devices(world()), bytes, false);
  if (!symmetric_reason_.empty()) throw EnvironmentError("symmetric memory unavailable: " + symmetric_reason_);
  return std::make_unique<NcclSymmetricBuffers>(api_, comms_, bytes);
}

void NcclFabric::begin_op_group() { ARB_NCCL_CHECK(api_, GroupStart()); }
void NcclFabric::end_op_group() { ARB_NCCL_CHECK(api_, GroupEnd()); }

}  // namespace arbench
